import { createServer, type Server } from 'node:http';
import { WebhookOrder } from './evidence';
import { random } from './random';

/** One webhook request as the receiver saw it. */
export interface Delivery {
  id: string;
  event: string;
  sessionId: string | undefined;
  /** A refund's events (refund.completed, refund.failed) name it. */
  refundId: string | undefined;
}

export interface WebhookReceiver {
  server: Server;
  url: string;
  /** Every request, in arrival order (redeliveries included). */
  received: Delivery[];
  /** The sequence of each aggregate's deliveries, checked as they arrive. */
  order: WebhookOrder;
}

/**
 * The merchant's (and the TPP's) webhook receiver: every request recorded (event id, event,
 * session) and its sequence checked per aggregate, answered 200 — or 500 now and then, so
 * redelivery happens.
 */
export async function startReceiver(): Promise<WebhookReceiver> {
  const received: Delivery[] = [];
  const order = new WebhookOrder();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        received.push({
          id: envelope.id,
          event: envelope.event,
          sessionId: envelope.data?.session_id ?? envelope.data?.id,
          refundId: envelope.data?.refund_id,
        });
        order.record(envelope);
      } catch {
        /* not an envelope */
      }
      response.writeHead(random() < 0.05 ? 500 : 200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/webhooks`, received, order };
}
