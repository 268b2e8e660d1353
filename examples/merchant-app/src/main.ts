import { startMerchantApp } from './app';

// npm start -w @gateway/example-merchant-app, with the gateway running (npm start) and a test merchant's keys.
void (async () => {
  const env = (name: string) => process.env[name] ?? (console.error(`${name} is required`), process.exit(1));
  const app = await startMerchantApp({
    gatewayUrl: process.env.GATEWAY_URL ?? 'http://localhost:8080',
    apiKey: env('GATEWAY_API_KEY'),
    webhookSecret: env('GATEWAY_WEBHOOK_SECRET'),
    port: Number(process.env.PORT ?? 3000),
    onEvent: (event) => console.log(`verified ${event.event} ${event.id}`),
  });
  const session = await app.checkout(`order-${Date.now()}`, 12_500, env('PAY_TO_ALIAS'));
  console.log(`webhooks at ${app.webhookUrl}; pay ${session.session_id} at ${session.checkout_url}`);
})();
