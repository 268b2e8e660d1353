import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TEST_OTP } from '@gateway/bank-sandbox';
import { cardPage, escapeHtml, securityHeaders } from './html';

/** What the one-click payment needs of the launcher's demo.json (written by platform/src/demo). */
interface DemoKeys {
  seed_complete?: boolean;
  merchant?: { api_key?: string };
  customers?: Array<{ alias: string; bank_handle: string; otp: string }>;
}

/**
 * The demo's payer and payee. The demo merchant is a test merchant, so the payer is a test payer
 * (success@<bank>, OTP 123456) and the payee a demo customer at the other bank, whose test-mode
 * credit lands in the built-in test bank: the one-click payment never moves the demo's live money.
 */
/** What the one-click demo payment charges (the start page names it through the one formatter). */
export const DEMO_PAYMENT = { amount: 12_500, currency: 'LYD' } as const;

export interface DemoParties {
  apiKey: string;
  payer: { alias: string; otp: string };
  payee: { alias: string };
}

/** The demo's keys and parties, or null while the seed is not complete (or the file is unreadable). */
export function readDemoParties(file: string): DemoParties | null {
  let demo: DemoKeys;
  try {
    demo = JSON.parse(readFileSync(file, 'utf8')) as DemoKeys;
  } catch {
    return null;
  }
  const payer = demo.customers?.[0];
  const payee = demo.customers?.find((customer) => customer.bank_handle !== payer?.bank_handle);
  if (!demo.seed_complete || !demo.merchant?.api_key || !payer || !payee) return null;
  return {
    apiKey: demo.merchant.api_key,
    payer: { alias: `success@${payer.bank_handle}`, otp: TEST_OTP },
    payee: { alias: payee.alias },
  };
}

function answerPage(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  securityHeaders(reply, nonce);
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      cardPage(
        title,
        `<h1>${escapeHtml(title)}</h1><p class="meta">${escapeHtml(text)}</p><p><a href="/">Back to the start page</a></p>`,
        nonce,
      ),
    );
}

/**
 * The button works from this platform's pages only. Browsers say where a post comes from in
 * Sec-Fetch-Site; an older one in Origin (which is "null" here: the start page sends no referrer).
 */
function fromThisSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin' || site === 'none';
  const origin = request.headers.origin;
  return origin === undefined || origin === 'null' || origin === `${request.protocol}://${request.host}`;
}

/**
 * POST /demo/payment, the start page's one-click payment (registered with the start page only:
 * `npm start` with the demo, never in production). The server creates a session as the demo
 * merchant, through this layer's own POST /payments/sessions (the merchant key stays on the
 * server), and sends the browser to its checkout page, which returns to the start page when paid.
 * A plain form post answered 303: it works without script.
 */
export function registerDemoPayment(app: FastifyInstance, demoFile: string): void {
  app.post('/demo/payment', async (request, reply) => {
    if (!fromThisSite(request))
      return answerPage(
        reply,
        403,
        'Not from this page',
        'The demo payment starts from the start page of this platform.',
      );
    const demo = readDemoParties(demoFile);
    if (!demo)
      return answerPage(
        reply,
        503,
        'The demo is not ready yet',
        'The demo data is still being seeded. Try again in a few seconds.',
      );
    const base = `${request.protocol}://${request.host}`;
    const created = await app.inject({
      method: 'POST',
      url: '/payments/sessions',
      headers: {
        authorization: `Bearer ${demo.apiKey}`,
        'content-type': 'application/json',
        'x-request-id': request.requestId,
      },
      payload: {
        ...DEMO_PAYMENT,
        destination: { type: 'alias', value: demo.payee.alias },
        description: `Demo payment to ${demo.payee.alias}: pay as ${demo.payer.alias}, one-time password ${demo.payer.otp}`,
        reference: `demo-${Date.now()}`,
        redirect_url: `${base}/`,
      },
    });
    if (created.statusCode !== 201) {
      const code = (created.json() as { error?: { code?: string } }).error?.code ?? String(created.statusCode);
      return answerPage(reply, 502, 'The demo payment could not be created', `The platform answered ${code}.`);
    }
    // The checkout page on this same origin (checkout_url's host may be spelled differently: localhost or 127.0.0.1).
    const checkout = new URL((created.json() as { checkout_url: string }).checkout_url);
    return reply.code(303).header('location', checkout.pathname).header('cache-control', 'no-store').send();
  });
}
