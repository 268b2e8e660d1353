import type { DocumentTypeDecoration, TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';

/**
 * A GraphQL document that carries the types of its result and variables, so a test's reads of
 * `data` and its variables are checked by the compiler. Either a string from `gql` (graphql-codegen's
 * TypedDocumentString shape, written by hand: no generator) or a TypedDocumentNode.
 */
export type TypedDocumentString<TResult, TVariables> = string & DocumentTypeDecoration<TResult, TVariables>;
export type TypedDocument<TResult, TVariables> =
  TypedDocumentString<TResult, TVariables> | TypedDocumentNode<TResult, TVariables>;

/** Types a document written inline: gql<{ merchant: { name: string } }, { id: string }>(`query($id: ID!) { … }`). */
export const gql = <TResult, TVariables = Record<string, never>>(
  source: string,
): TypedDocumentString<TResult, TVariables> => source as TypedDocumentString<TResult, TVariables>;

export interface GraphQLErrorResult {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: { code?: string; detail?: string; [key: string]: unknown };
}

export interface GraphQLResponse<TResult> {
  status: number;
  data?: TResult | null;
  errors: GraphQLErrorResult[];
}

type HeaderMap = Record<string, string>;

/** Variables may be left out only when the operation declares none that are required. */
export type OperationArgs<TVariables> =
  Record<string, never> extends TVariables
    ? [variables?: TVariables, headers?: HeaderMap]
    : [variables: TVariables, headers?: HeaderMap];

/** What the testkit offers for GraphQL: an unexpected error fails the test, an expected one is asked for by name. */
export interface GraphQLTestClient {
  /**
   * Runs the operation and returns `data`. Any GraphQL error (or an answer without data) fails the
   * test with the error list, like Hive's expectNoGraphQLErrors: a test never reads `data` of a
   * call that went wrong.
   */
  execute<TResult, TVariables>(
    document: TypedDocument<TResult, TVariables>,
    ...args: OperationArgs<TVariables>
  ): Promise<TResult>;
  /** For tests of failures: returns the errors (and any partial data); fails the test when there are none. */
  executeExpectingErrors<TResult, TVariables>(
    document: TypedDocument<TResult, TVariables>,
    ...args: OperationArgs<TVariables>
  ): Promise<GraphQLResponse<TResult>>;
}

const sourceOf = (document: TypedDocument<unknown, unknown>): string =>
  typeof document === 'string' ? document : print(document);

/** The operation's first line, so a failure names the call that failed. */
const operationLabel = (source: string): string => source.trim().split('\n')[0]!.slice(0, 120);

export function graphqlTestClient(graphqlUrl: string): GraphQLTestClient {
  async function send<TResult>(
    document: TypedDocument<TResult, any>,
    variables: unknown = {},
    headers: HeaderMap = {},
  ): Promise<GraphQLResponse<TResult> & { source: string }> {
    const source = sourceOf(document);
    const response = await fetch(graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: source, variables }),
    });
    const text = await response.text();
    let payload: { data?: TResult | null; errors?: GraphQLErrorResult[] };
    try {
      payload = JSON.parse(text);
    } catch {
      throw new Error(
        `GraphQL answered ${response.status} without JSON to ${operationLabel(source)}:\n${text.slice(0, 2_000)}`,
      );
    }
    return { source, status: response.status, data: payload.data, errors: payload.errors ?? [] };
  }

  return {
    async execute(document, ...[variables, headers]) {
      const { source, status, data, errors } = await send(document, variables, headers);
      if (errors.length || data == null) {
        throw new Error(
          `unexpected GraphQL errors (HTTP ${status}) from ${operationLabel(source)}:\n${JSON.stringify(errors, null, 2)}`,
        );
      }
      return data;
    },
    async executeExpectingErrors(document, ...[variables, headers]) {
      const { source, ...answer } = await send(document, variables, headers);
      if (!answer.errors.length)
        throw new Error(
          `expected GraphQL errors from ${operationLabel(source)}, got data: ${JSON.stringify(answer.data)}`,
        );
      return answer;
    },
  };
}
