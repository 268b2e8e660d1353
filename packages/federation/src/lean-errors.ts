import { GraphQLError, Kind, type GraphQLFormattedError } from 'graphql';

/** The formatter the subgraph gives Apollo (formatGatewayError): the lean path calls the same one. */
export type ErrorFormatter = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/** What the errors of one answer add to its HTTP head: a status and headers, from an `http` extension. */
export interface ErrorHead {
  status?: number;
  headers: Map<string, string>;
}

/**
 * The errors of one answer formatted as Apollo Server 5 formats them (its errorNormalize.ts,
 * normalizeAndFormatErrors, which the package does not export): an error without a code gets
 * INTERNAL_SERVER_ERROR before the formatter sees it, an `http` extension moves to the answer's
 * head, and a formatter that throws gives Apollo's masked error. Stack traces are never included
 * (the subgraphs run with includeStacktraceInErrorResponses off).
 */
export function formatErrorsLikeApollo(
  errors: readonly unknown[],
  formatError: ErrorFormatter,
): { formatted: GraphQLFormattedError[]; head: ErrorHead } {
  const head: ErrorHead = { headers: new Map() };
  const enrich = (maybeError: unknown): GraphQLFormattedError => {
    const graphqlError = ensureGraphQLError(maybeError);
    const extensions: Record<string, unknown> = {
      ...graphqlError.extensions,
      code: graphqlError.extensions.code ?? 'INTERNAL_SERVER_ERROR',
    };
    if (isPartialHead(extensions.http)) {
      if (extensions.http.status) head.status = extensions.http.status;
      for (const [name, value] of extensions.http.headers ?? []) head.headers.set(name.toLowerCase(), value);
      delete extensions.http;
    }
    return { ...graphqlError.toJSON(), extensions };
  };
  const formatted = errors.map((error) => {
    try {
      return formatError(enrich(error), error);
    } catch {
      return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
  });
  return { formatted, head };
}

/**
 * graphql-js's errors for a bad variable value, which Apollo turns into BAD_USER_INPUT
 * (requestPipeline.ts, isBadUserInputGraphQLError and UserInputError), and keeps the rest.
 */
export function markBadUserInput(error: GraphQLError): GraphQLError {
  const node = error.nodes?.length === 1 ? error.nodes[0] : undefined;
  if (node?.kind !== Kind.VARIABLE_DEFINITION || error.extensions?.code != null) return error;
  const variable = `Variable "$${node.variable.name.value}"`;
  const bad = [' has invalid value', ' got invalid value ', ' of required type ', ' of non-null type '].some((rest) =>
    error.message.startsWith(variable + rest),
  );
  if (!bad) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    originalError: error.originalError ?? error,
    extensions: { ...error.extensions, code: 'BAD_USER_INPUT' },
  });
}

/** Apollo's ensureGraphQLError: any thrown value as a GraphQLError, the original kept for the logs. */
export function ensureGraphQLError(maybeError: unknown): GraphQLError {
  const error =
    maybeError instanceof Error ? maybeError : new GraphQLError(`Unexpected error value: ${String(maybeError)}`);
  return error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error });
}

function isPartialHead(value: unknown): value is { status?: number; headers?: Map<string, string> } {
  if (!value || typeof value !== 'object') return false;
  const head = value as { status?: unknown; headers?: unknown };
  return (
    (!('status' in head) || typeof head.status === 'number') && (!('headers' in head) || head.headers instanceof Map)
  );
}
