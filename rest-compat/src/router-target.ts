/**
 * ROUTER_URL may be given as the router's base address or as its /graphql endpoint (the
 * launcher passes the latter); both the endpoint and the base (for /readyz) are derived here.
 */
export interface RouterTarget {
  baseUrl: string;
  graphqlUrl: string;
}

export function routerTarget(routerUrl: string): RouterTarget {
  const url = new URL(routerUrl);
  const basePath = url.pathname.replace(/\/+$/, '').replace(/\/graphql$/, '');
  const baseUrl = `${url.origin}${basePath}`;
  return { baseUrl, graphqlUrl: `${baseUrl}/graphql` };
}
