import type { z } from 'zod';
import type { HttpMethod } from './route';
import { ROUTES } from './routes';

/** The dashboard's own copies its browser tests check against the platform (the bundle cannot import a server package). */
export { MERCHANT_EVENTS } from './pages/dashboard/client/operations-webhooks';
export { CHART_COLORS } from './pages/dashboard/client/chart-colors';

/** Helpers for specs of the REST API, published as `@gateway/rest-compat/testing` (not shipped through index.ts). */

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  body: any;
}

export interface CallOptions {
  /** An object is sent as JSON; a string is sent as it is (malformed JSON, huge bodies). */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Calls rest-compat as any HTTP client would, and keeps the raw answer for header and body checks. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  { body, headers = {} }: CallOptions = {},
): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** The documented success schema of a route: real answers are checked against it, so docs cannot drift. */
export function responseSchemaOf(method: HttpMethod, path: string): z.ZodType {
  const route = ROUTES.find((candidate) => candidate.method === method && candidate.path === path);
  if (!route?.response) throw new Error(`no documented response for ${method} ${path}`);
  return route.response;
}

/** Asserts the spec's error body and that its request_id is the X-Request-Id header. */
export function expectError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status, code });
  expect(answer.body.error).toEqual({
    code,
    message: expect.any(String),
    detail: expect.any(String),
    request_id: expect.stringMatching(/^req_/),
  });
  expect(answer.headers.get('x-request-id')).toBe(answer.body.error.request_id);
}

/** The rate-limit headers the router sets on every answer, passed through. */
export function expectRateLimitHeaders(answer: Answer): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
    expect(answer.headers.get(name)).toMatch(/^\d+$/);
}

/** The documented body of each webhook event (the document's `webhooks`): real deliveries are checked against it. */
export { WEBHOOK_EVENTS, webhookEnvelopeSchema } from './openapi/webhook-events';
