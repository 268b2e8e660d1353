import type { GraphQLFormattedError } from 'graphql';
import { dpopNonceOf, ERROR_CODES, isErrorCode, retryAfterOf, type Logger } from '@gateway/kernel';

/** Apollo's own codes for requests that never reached a resolver: all are bad input. */
const BAD_INPUT_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
]);

/**
 * Keeps spec-coded errors as they are and turns everything else into INTERNAL_ERROR without a
 * stack or message that could leak internals. Bad GraphQL input becomes VALIDATION_ERROR.
 */
export function formatGatewayError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const code = formatted.extensions?.code;
    if (isErrorCode(code)) {
      const retryAfter = retryAfterOf(formatted.extensions);
      const dpopNonce = dpopNonceOf(formatted.extensions);
      return {
        message: formatted.message,
        path: formatted.path,
        extensions: {
          code,
          status: ERROR_CODES[code].status,
          detail: formatted.extensions?.detail ?? formatted.message,
          ...(retryAfter !== undefined ? { retryAfter } : {}),
          ...(dpopNonce !== undefined ? { dpopNonce } : {}),
        },
      };
    }
    if (typeof code === 'string' && BAD_INPUT_CODES.has(code)) {
      // The message says what is wrong (a GraphQL client shows only the message); the code is the spec's.
      return {
        message: formatted.message,
        path: formatted.path,
        extensions: { code: 'VALIDATION_ERROR', status: 400, detail: formatted.message },
      };
    }
    logger.error(
      { err: (error as { originalError?: unknown })?.originalError ?? error, path: formatted.path },
      'unexpected resolver error',
    );
    return {
      message: ERROR_CODES.INTERNAL_ERROR.message,
      path: formatted.path,
      extensions: { code: 'INTERNAL_ERROR', status: 500, detail: 'internal error' },
    };
  };
}
