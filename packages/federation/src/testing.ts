import { newId, PRINCIPAL_HEADER, REQUEST_ID_HEADER, signPrincipal, type Principal } from '@gateway/kernel';
import { subgraphNameAt } from './server';

export interface GraphQLResult<T = Record<string, unknown>> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: { code?: string; detail?: string } }>;
}

/**
 * Calls a subgraph directly as the router would: with a principal signed for that subgraph and the
 * request, an anonymous caller's when none is given (the router signs every hop). `audience`: the
 * subgraph's name, by default the one this process serves at `graphqlUrl`. `execute` fails the
 * test on any error; `attempt` returns errors for the test to assert on.
 */
export function subgraphClient(graphqlUrl: string, platformSecret: string, audience?: string) {
  async function attempt<T = Record<string, any>>(
    query: string,
    variables: Record<string, unknown> = {},
    principal: Principal = { kind: 'anonymous' },
  ): Promise<GraphQLResult<T>> {
    const name = audience ?? subgraphNameAt(graphqlUrl);
    if (!name) throw new Error(`no subgraph is served at ${graphqlUrl} in this process: pass its name`);
    const requestId = newId('request');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      [REQUEST_ID_HEADER]: requestId,
      [PRINCIPAL_HEADER]: signPrincipal(principal, platformSecret, { audience: name, requestId }),
    };
    const response = await fetch(graphqlUrl, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    return (await response.json()) as GraphQLResult<T>;
  }
  async function execute<T = Record<string, any>>(
    query: string,
    variables: Record<string, unknown> = {},
    principal?: Principal,
  ): Promise<T> {
    const result = await attempt<T>(query, variables, principal);
    if (result.errors?.length) throw new Error(`unexpected GraphQL errors: ${JSON.stringify(result.errors)}`);
    return result.data as T;
  }
  /** The spec code of the first error, for `expect(...).toBe('HANDLE_TAKEN')`. */
  async function errorCode(
    query: string,
    variables: Record<string, unknown> = {},
    principal?: Principal,
  ): Promise<string | undefined> {
    return (await attempt(query, variables, principal)).errors?.[0]?.extensions?.code;
  }
  return { attempt, execute, errorCode };
}

export const TEST_PLATFORM_SECRET = 'test-platform-secret-0123456789abcdef';
