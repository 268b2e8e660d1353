import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { WEBHOOK_EVENTS, webhookEnvelopeSchema } from '@gateway/rest-compat/testing';

/** One request as the merchant's endpoint got it: raw body and headers, for signature checks. */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  envelope: { id: string; event: string; created_at: string; data: Record<string, any> };
  receivedAt: number;
  /** How the body differs from its event's schema in the OpenAPI document's `webhooks`; undefined when it matches. */
  undocumented?: string;
}

/** Checks a delivery against the document's webhooks section, so that what is sent cannot drift from what is documented. */
function undocumented(envelope: { event?: unknown }): string | undefined {
  const event = String(envelope?.event);
  if (!(event in WEBHOOK_EVENTS)) return `event "${event}" is not in the OpenAPI document's webhooks`;
  const error = webhookEnvelopeSchema(event).safeParse(envelope).error;
  return error ? `${event} differs from its documented schema: ${error.message}` : undefined;
}

/**
 * What the endpoint answers: a status, 'hang' to never answer (a slow or dead receiver), or a
 * status once the promise settles (an answer that comes late, when the test says).
 */
export type Answer = number | 'hang' | Promise<number>;

export interface TestWebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Decides the answer to each request (default 200). */
  answer(decide: (webhook: ReceivedWebhook, index: number) => Answer): void;
  /**
   * Resolves with the first request matching `predicate`, now or later; rejects when that request
   * is not what the OpenAPI document's webhooks section says it is.
   */
  waitFor(predicate: (webhook: ReceivedWebhook) => boolean, what?: string): Promise<ReceivedWebhook>;
  stop(): Promise<void>;
}

/** A merchant's webhook endpoint on a loopback port, recording every request it gets. */
export async function startTestReceiver(): Promise<TestWebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters: Array<{ predicate: (w: ReceivedWebhook) => boolean; resolve: (w: ReceivedWebhook) => void }> = [];
  const hanging = new Set<ServerResponse>();
  let decide: (webhook: ReceivedWebhook, index: number) => Answer = () => 200;

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const webhook: ReceivedWebhook = {
        headers: request.headers as Record<string, string>,
        body,
        envelope: JSON.parse(body),
        receivedAt: performance.now(),
      };
      webhook.undocumented = undocumented(webhook.envelope);
      const index = received.push(webhook) - 1;
      for (const waiter of [...waiters]) {
        if (waiter.predicate(webhook)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(webhook);
        }
      }
      const answer = decide(webhook, index);
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      const reply = (status: number) => {
        if (!response.destroyed)
          response.writeHead(status, { 'content-type': 'application/json' }).end('{"received":true}');
      };
      if (typeof answer === 'number') return reply(answer);
      hanging.add(response);
      void answer.then((status) => {
        hanging.delete(response);
        reply(status);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    answer(next) {
      decide = next;
    },
    waitFor(predicate, what = 'webhook') {
      const documented = (webhook: ReceivedWebhook) =>
        webhook.undocumented ? Promise.reject(new Error(webhook.undocumented)) : Promise.resolve(webhook);
      const found = received.find(predicate);
      if (found) return documented(found);
      return new Promise<ReceivedWebhook>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 30_000);
        waiters.push({ predicate, resolve: (w) => (clearTimeout(timer), resolve(w)) });
      }).then(documented);
    },
    async stop() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The spec's check, as a merchant codes it: sha256= + hex HMAC-SHA256 of the raw body. */
export const serviceSignature = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * Standard Webhooks verification, written from that specification rather than from our signer:
 * key = base64-decoded text after `whsec_`, content = "id.timestamp.body", signature list "v1,<b64>".
 */
export function standardWebhooksValid(secret: string, webhook: ReceivedWebhook): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const content = `${webhook.headers['webhook-id']}.${webhook.headers['webhook-timestamp']}.${webhook.body}`;
  const expected = createHmac('sha256', key).update(content).digest('base64');
  return (webhook.headers['webhook-signature'] ?? '').split(' ').some((entry) => entry === `v1,${expected}`);
}
