import { request, type Dispatcher } from 'undici';
import { newId, timeoutSignal } from '@gateway/kernel';

/** What a core answered to a raw call: the status and the refusal code it gave, if any. */
export interface RawAnswer {
  status: number;
  code: string | undefined;
  body: unknown;
}

export interface RawCall {
  baseUrl: string;
  method: 'GET' | 'POST';
  path: string;
  /** null: no X-Service-Internal-Key header at all. */
  internalKey: string | null;
  body?: unknown;
  timeoutMs: number;
  dispatcher: Dispatcher;
}

/**
 * One call the bank-core client would never make (a wrong or missing internal key), sent with
 * undici directly so the check sees exactly what the core answers.
 */
export async function rawCall(call: RawCall): Promise<RawAnswer> {
  // The answer's body is read under the same deadline.
  const deadline = timeoutSignal(call.timeoutMs);
  try {
    return await answerOf(call, deadline.signal);
  } finally {
    deadline.clear();
  }
}

async function answerOf(call: RawCall, signal: AbortSignal): Promise<RawAnswer> {
  const response = await request(`${call.baseUrl}${call.path}`, {
    method: call.method,
    headers: {
      accept: 'application/json',
      'x-request-id': newId('request'),
      ...(call.internalKey !== null ? { 'x-service-internal-key': call.internalKey } : {}),
      ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
    signal,
    dispatcher: call.dispatcher,
  });
  const text = await response.body.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.statusCode, code: refusalCode(body), body };
}

/** A refusal's code read as the contract reads it: `error.code`, `code`, or `error` when a string. */
export function refusalCode(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { error, code } = body as { error?: unknown; code?: unknown };
  if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string')
    return (error as { code: string }).code;
  if (typeof code === 'string') return code;
  if (typeof error === 'string') return error;
  return undefined;
}
