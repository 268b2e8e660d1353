import Fastify from 'fastify';
import { hmacSha256Hex, safeEqual, type Logger } from '@gateway/kernel';

export interface WebhookReceiver {
  url: string;
  /** Verified deliveries, newest last (the demo prints them; tests read them). */
  deliveries: Array<{ event: string; id?: string; data: unknown }>;
  setSecret(secret: string): void;
  stop(): Promise<void>;
}

/**
 * The demo merchant's webhook endpoint: verifies X-Service-Signature over the raw body as a
 * merchant should (spec "Events"), refuses a mismatch with 401, and logs what it accepted.
 */
export async function startWebhookReceiver(options: {
  host: string;
  port: number;
  secret: string;
  logger: Logger;
}): Promise<WebhookReceiver> {
  let secret = options.secret;
  const deliveries: WebhookReceiver['deliveries'] = [];
  const app = Fastify({ logger: false });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.post('/webhooks/demo', async (request, reply) => {
    const raw = request.body as Buffer;
    const signature = String(request.headers['x-service-signature'] ?? '');
    if (!safeEqual(signature, `sha256=${hmacSha256Hex(secret, raw)}`)) {
      options.logger.warn('demo webhook refused: bad signature');
      return reply.code(401).send({ error: 'bad signature' });
    }
    const envelope = JSON.parse(raw.toString('utf8')) as { id?: string; event: string; data: unknown };
    deliveries.push(envelope);
    options.logger.info(
      { event: envelope.event, event_id: envelope.id, data: envelope.data },
      'demo merchant: verified webhook',
    );
    return reply.code(200).send({ received: true });
  });
  const base = await app.listen({ host: options.host, port: options.port });
  return {
    url: `${base}/webhooks/demo`,
    deliveries,
    setSecret(next) {
      secret = next;
    },
    stop: () => app.close(),
  };
}
