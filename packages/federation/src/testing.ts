import { PRINCIPAL_HEADER, signPrincipal, type Principal } from '@gateway/kernel';

export interface GraphQLResult<T = Record<string, unknown>> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: { code?: string; detail?: string } }>;
}

/**
 * Calls a subgraph directly as the router would: with a signed principal, an anonymous caller's
 * when none is given (the router signs every hop). `execute` fails the test on any error;
 * `attempt` returns errors for the test to assert on.
 */
export function subgraphClient(graphqlUrl: string, platformSecret: string) {
  async function attempt<T = Record<string, any>>(
    query: string,
    variables: Record<string, unknown> = {},
    principal: Principal = { kind: 'anonymous' },
  ): Promise<GraphQLResult<T>> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      [PRINCIPAL_HEADER]: signPrincipal(principal, platformSecret),
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
