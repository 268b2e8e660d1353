import { setTimeout as sleep } from 'node:timers/promises';
import { ClientRequests, isRetryable } from './evidence';

export interface Answer {
  status: number;
  body: any;
}

/** One HTTP call; a dropped connection or timeout is status 0 (the caller decides whether to retry). */
export async function call(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<Answer> {
  try {
    const response = await fetch(url, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: response.status, body: parsed };
  } catch (error) {
    return { status: 0, body: String(error) };
  }
}

/**
 * The run's HTTP client, which keeps the client's side of the evidence: retries by call, and
 * each request to the public address with the attempts it took (ClientRequests).
 */
export class Client {
  /** Retries by call (`authorize`, `GET /banks`, ...). */
  readonly retries: Record<string, number> = {};
  readonly requests = new ClientRequests();
  /** The public address once the platform is up: calls to it are the client's requests. */
  publicUrl = '';

  /**
   * Retries while the platform is down or restarting (no answer, 5xx, 429, 409 IDEMPOTENCY_KEY_IN_USE)
   * — with the same Idempotency-Key where one is sent. A call to the public address (`client`) is
   * one of the client's requests in the evidence: how many attempts it took.
   * 30 attempts span about two minutes: past a restart, and past IDEMPOTENCY_LOCK_MS (60 s), after
   * which a key left in flight by a killed process is taken over.
   */
  async retrying(what: string, send: () => Promise<Answer>, attempts = 30, client = true): Promise<Answer> {
    let last: Answer = { status: 0, body: 'not sent' };
    const failures: Answer[] = [];
    for (let i = 0; i < attempts; i++) {
      last = await send();
      if (!isRetryable(last)) break;
      failures.push(last);
      if (i === attempts - 1) break;
      this.retries[what] = (this.retries[what] ?? 0) + 1;
      await sleep(500 + i * 250);
    }
    if (client) this.requests.record(what, failures, isRetryable(last));
    return last;
  }

  /** A call that must succeed (after retries): its body, or an error that aborts the run. */
  async ok(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
    const answer = await this.retrying(
      `${method} ${new URL(url).pathname.replace(/\/(ops|mdt|po|con|mer|bnk)_[\w-]+/g, '/{id}')}`,
      () => call(method, url, body, headers),
      30,
      this.publicUrl !== '' && url.startsWith(this.publicUrl),
    );
    if (answer.status >= 300 || answer.status === 0)
      throw new Error(`${method} ${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }
}
