import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayClient, webhooks, WebhookVerificationError, type WebhookEvent } from '@gateway/sdk';

export interface MerchantAppOptions {
  gatewayUrl: string; // the gateway's REST base, e.g. http://localhost:8080
  apiKey: string; // mk_test_… while integrating
  webhookSecret: string; // whsec_…, shown once when the merchant was registered
  port?: number;
  onEvent?: (event: WebhookEvent) => void;
}

/** A shop: sells through payment sessions, fulfils an order when its verified payment.completed arrives. */
export async function startMerchantApp({ gatewayUrl, apiKey, webhookSecret, port = 0, onEvent }: MerchantAppOptions) {
  const gateway = new GatewayClient({ baseUrl: gatewayUrl, apiKey });
  const paidOrders = new Set<string>();

  // The webhook endpoint: the raw body, as received, is what the signature covers.
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/webhooks') return response.writeHead(404).end();
      try {
        const event = webhooks.verify(Buffer.concat(chunks), request.headers, webhookSecret);
        if (event.event === 'payment.completed' && event.data.reference) paidOrders.add(event.data.reference);
        onEvent?.(event);
        response.writeHead(200).end();
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        response.writeHead(401).end(error.reason); // not from the gateway, or replayed: ignored
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

  return {
    webhookUrl,
    /** Checkout for an order: a session paid to the shop's alias; send the customer to checkout_url. */
    checkout: (order: string, amount: number, payTo: string) =>
      gateway.post('/payments/sessions', {
        body: {
          amount,
          currency: 'LYD',
          destination: { type: 'alias', value: payTo },
          reference: order,
          webhook_url: webhookUrl,
        },
        params: { header: { 'Idempotency-Key': `order-${order}` } }, // a retried checkout never charges twice
      }),
    isPaid: (order: string) => paidOrders.has(order),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
