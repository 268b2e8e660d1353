import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { TEST_OTP, TEST_PAYERS } from '@gateway/bank-sandbox';
import { formatMoney } from '@gateway/kernel';
import { DEMO_PAYMENT, registerDemoPayment, readDemoParties } from './demo-payment';
import { cardPage, escapeHtml, securityHeaders } from './html';

/** What a platform started with `npm start` tells a newcomer at `/` (never in production mode). */
export interface LandingInfo {
  /** e.g. "embedded PGlite in .data/pglite" or "PostgreSQL (DATABASE_URL)". */
  database: string;
  /** "in-process" or "RabbitMQ (AMQP_URL)". */
  bus: string;
  /** The router's own GraphQL endpoint (rest-compat also proxies /graphql). */
  graphqlUrl: string;
  /** Where the demo's keys are, when the sandbox banks and demo data run. */
  demoFile?: string;
  /** METRICS_TOKEN is set: /metrics answers only a scrape that sends it. */
  metricsLocked?: boolean;
}

const links = (info: LandingInfo): Array<[string, string]> => [
  ['/docs', 'API reference: every REST route with examples, search and try-it'],
  ['/graphql', 'GraphiQL: queries, mutations and subscriptions on the GraphQL API (the demo merchant’s key prefilled)'],
  ['/dashboard', 'Merchant dashboard: sign in with a merchant key, sessions live, webhook deliveries, mandates'],
  [
    '/operator',
    'Operator console: sign in with the admin key printed at start; participants, attention, settlement, audit log',
  ],
  ['/openapi.json', 'OpenAPI 3.1 document'],
  ['/openapi/bank-core.json', 'What the gateway sends a bank core, and what it accepts'],
  ['/readyz', 'Readiness: database, bus and subgraphs'],
  [
    '/metrics',
    info.metricsLocked
      ? 'Prometheus metrics (with the header Authorization: Bearer <METRICS_TOKEN>)'
      : 'Prometheus metrics',
  ],
];

export function renderLandingPage(info: LandingInfo, base: string, nonce: string): string {
  const items = links(info)
    .map(([path, text]) => `<li><a href="${escapeHtml(path)}">${escapeHtml(path)}</a> — ${escapeHtml(text)}</li>`)
    .join('\n');
  const parties = info.demoFile ? readDemoParties(info.demoFile) : null;
  // A plain form: the server creates the session with the demo merchant's key, which never reaches the page.
  const oneClick = parties
    ? `<form method="post" action="/demo/payment" id="demo-payment">
<button type="submit" id="demo-payment-button">Make a demo payment</button>
<p class="meta">${escapeHtml(formatMoney(DEMO_PAYMENT.amount, DEMO_PAYMENT.currency))} from the demo shop's checkout: pay as <strong>${escapeHtml(parties.payer.alias)}</strong> with the one-time password <strong>${escapeHtml(parties.payer.otp)}</strong>.</p>
<p class="meta" id="demo-world">Test mode: the demo shop's key is a test key (mk_test_…), so this payment moves money at the gateway's built-in test bank only; no sandbox bank balance changes. The live demo shop (<code>live_merchant</code> in demo.json, mk_live_…) moves the sandbox banks' money.</p>
</form>`
    : '<p class="meta" id="demo-payment-pending">The demo data is being seeded: reload in a few seconds for a one-click demo payment.</p>';
  const demo = info.demoFile
    ? `<h2>Try it</h2>
${oneClick}
<p class="meta">The demo banks, customers (with their OTPs), merchant key and TPP are in <code id="demo-file">${escapeHtml(info.demoFile)}</code>.</p>
<ul>
<li>A payment: create a session with the merchant key (<code>POST ${escapeHtml(base)}/payments/sessions</code>), open its checkout_url and pay as a test payer (test key) or a demo customer (live key).</li>
<li><code>npm run demo:open-banking</code> — a TPP from consent to account data, payment orders and SCA.</li>
<li><code>npm run demo:mandates</code> — a recurring mandate confirmed in the browser, charged twice, then settled.</li>
</ul>`
    : '';
  const testPayers = `<h2>Test payers</h2>
<p class="meta">With a test key (mk_test_…, a test TPP's token) every payment goes to the built-in test bank. Pay as <code>&lt;name&gt;@&lt;bank_handle&gt;</code> with OTP ${escapeHtml(TEST_OTP)} (any registered bank); each gives one outcome. Real customers' aliases work too, as payers with OTP ${escapeHtml(TEST_OTP)} or as payees: their test-mode money moves in the test bank, never in their accounts.</p>
<ul id="test-payers">
${TEST_PAYERS.map((payer) => `<li><code>${escapeHtml(payer.name)}@&lt;bank&gt;</code> — ${escapeHtml(payer.outcome)}</li>`).join('\n')}
</ul>`;
  const body = `
<h1>Payment gateway is running</h1>
<ul class="meta" id="running">
<li>REST API: <code>${escapeHtml(base)}</code></li>
<li>GraphQL: <code>${escapeHtml(base)}/graphql</code> (the router: <code>${escapeHtml(info.graphqlUrl)}</code>; subscriptions over graphql-ws on the same path)</li>
<li>Database: ${escapeHtml(info.database)}</li>
<li>Event bus: ${escapeHtml(info.bus)}</li>
</ul>
<h2>Links</h2>
<ul id="links">
${items}
</ul>
${demo}
${testPayers}`;
  return cardPage('Payment gateway', body, nonce);
}

/** GET / in development: what runs here and where to start. Production answers / with the usual 404. */
export function registerLandingPage(app: FastifyInstance, info: LandingInfo): void {
  app.get('/', async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    securityHeaders(reply, nonce);
    const base = `${request.protocol}://${request.host}`;
    return reply.type('text/html; charset=utf-8').send(renderLandingPage(info, base, nonce));
  });
  if (info.demoFile) registerDemoPayment(app, info.demoFile);
}
