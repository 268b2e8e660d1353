import type { components } from './generated/schema';

/** The spec's error body: {error: {code, message, detail, request_id}} (components.schemas.Error). */
export type ErrorBody = components['schemas']['Error'];
/** Every code the API answers with (packages/kernel/src/errors.ts, through the OpenAPI document). */
export type ErrorCode = ErrorBody['error']['code'];

/** Anything the SDK throws for a call: catch this one to catch them all. */
export class GatewayError extends Error {
  override name = 'GatewayError';
}

/**
 * The API refused the call with the spec's error body. `code` is what to branch on; `requestId`
 * (req_…, also the X-Request-Id header) is what the operator needs to find the call in the logs.
 */
export class GatewayApiError extends GatewayError {
  override name = 'GatewayApiError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly detail: string;
  readonly requestId: string;
  /** Seconds the API asked to wait (Retry-After of a 429), when given. */
  readonly retryAfterSeconds?: number;

  constructor(status: number, body: ErrorBody['error'], retryAfterSeconds?: number) {
    super(`${body.code}: ${body.message}${body.detail ? ` (${body.detail})` : ''}`);
    this.status = status;
    this.code = body.code;
    this.detail = body.detail;
    this.requestId = body.request_id;
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** An answer that is not the API's (a proxy's HTML 502, a truncated body): status and the raw text, no code. */
export class GatewayUnexpectedResponseError extends GatewayError {
  override name = 'GatewayUnexpectedResponseError';
  constructor(
    readonly status: number,
    readonly body: string,
    readonly requestId: string | undefined,
  ) {
    super(`unexpected answer ${status}${requestId ? ` (request ${requestId})` : ''}: ${body.slice(0, 200)}`);
  }
}

/** No answer at all after every attempt (connection refused or reset, timeout). `cause` is the last failure. */
export class GatewayConnectionError extends GatewayError {
  override name = 'GatewayConnectionError';
  constructor(
    message: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const isErrorBody = (value: unknown): value is ErrorBody => {
  const error = (value as { error?: Record<string, unknown> } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
};

/** The error for a non-2xx answer: typed when the body is the spec's, unexpected otherwise. */
export function errorOf(response: Response, body: unknown): GatewayApiError | GatewayUnexpectedResponseError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (isErrorBody(body)) {
    const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
    return new GatewayApiError(
      response.status,
      { ...body.error, detail: body.error.detail ?? '', request_id: body.error.request_id ?? requestId ?? '' },
      Number.isFinite(retryAfter) ? retryAfter : undefined,
    );
  }
  return new GatewayUnexpectedResponseError(
    response.status,
    typeof body === 'string' ? body : JSON.stringify(body ?? ''),
    requestId,
  );
}
