import { webhooks } from '@gateway/sdk';

/** An event as the events API answers it: the webhook envelope plus livemode. */
export interface ListedEvent {
  id: string;
  event: string;
  created_at: string;
  livemode: boolean;
  sequence?: number | null;
  data: Record<string, unknown>;
}

export interface ForwardResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** The platform's own limit for a receiver's answer (API-CONTRACT "Webhook headers"). */
const ANSWER_TIMEOUT_MS = 10_000;

/** The envelope a webhook delivery carries, without the events API's extra fields. */
export function envelopeOf(event: ListedEvent): string {
  const { id, event: kind, created_at, livemode, sequence, data } = event;
  return JSON.stringify({ id, event: kind, created_at, livemode, ...(sequence != null ? { sequence } : {}), data });
}

/**
 * POSTs one event to a local URL as the platform would deliver it: the same envelope, event id and
 * both signature schemes, keyed with the CLI's forwarding secret (so the receiver's own
 * `webhooks.verify` runs unchanged). One attempt: the user sees the answer and fixes their code.
 */
export async function forwardEvent(url: string, event: ListedEvent, secret: string): Promise<ForwardResult> {
  const body = envelopeOf(event);
  const started = Date.now();
  try {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { ...webhooks.sign(body, secret, { id: event.id }), 'user-agent': 'gateway-cli' },
      body,
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
    await answer.arrayBuffer();
    return { status: answer.status, error: null, durationMs: Date.now() - started };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { status: null, error: cause ?? (error as Error).message, durationMs: Date.now() - started };
  }
}
