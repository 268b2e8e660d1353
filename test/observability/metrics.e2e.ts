import { bearer, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text as samples (label values here never hold a quote or a comma). */
function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="([^"]*)"/g)].map((pair) => [pair[1]!, pair[2]!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

const value = (all: Sample[], name: string, labels: Record<string, string>): number | undefined =>
  all.find(
    (sample) => sample.name === name && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted),
  )?.value;

/** "/metrics has bank-core and per-operation figures after one payment" (issue 14, item 6). */
describe('metrics after one payment', () => {
  let t: TestPlatform;
  let payerBank: PaymentBank;
  let payeeBank: PaymentBank;
  const metricsOf = async (base: string) =>
    samples(await (await fetch(`${base.replace(/\/graphql$/, '')}/metrics`)).text());

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    payerBank = await startPaymentBank(t);
    payeeBank = await startPaymentBank(t);
  });
  afterAll(async () => {
    await payerBank?.sandbox.stop();
    await payeeBank?.sandbox.stop();
    await t?.stop();
  });

  it('counts the bank-core calls by bank, operation and outcome, the router by operation and outcome, and the process once', async () => {
    const merchant = await t.seed.createMerchant();
    const payer = await payerBank.customer({ balance: 50_000 });
    const payee = await payeeBank.customer({ balance: 0 });
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 2_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    expect(created.status).toBe(201);
    const id = created.body.session_id as string;
    // One wrong OTP first: a refusal has its own outcome, at the core and at the router.
    const refused = await t.rest('POST', `/pay/${id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: '000000' },
    });
    expect(refused.body.error.code).toBe('OTP_INVALID');
    const paid = await t.rest('POST', `/pay/${id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    expect(paid.status).toBe(200);

    const payments = await metricsOf(t.platform.subgraphUrls.payments!);
    const core = (bank: string, operation: string, outcome: string) =>
      value(payments, 'bank_core_call_duration_seconds_count', { service: 'payments', bank, operation, outcome });
    expect(core(payerBank.handle, 'verifyCustomer', 'ok')).toBe(1);
    expect(core(payerBank.handle, 'verifyCustomer', 'otp_invalid')).toBe(1);
    expect(core(payerBank.handle, 'debit', 'ok')).toBe(1);
    expect(core(payeeBank.handle, 'credit', 'ok')).toBe(1);
    // Latency, not only a count: the buckets of one call add up to it.
    expect(
      value(payments, 'bank_core_call_duration_seconds_bucket', {
        bank: payerBank.handle,
        operation: 'debit',
        outcome: 'ok',
        le: '+Inf',
      }),
    ).toBe(1);

    const router = await metricsOf(t.platform.routerUrl);
    const byOperation = (operation: string, outcome: string) =>
      value(router, 'router_request_duration_seconds_count', { service: 'router', operation, outcome });
    expect(byOperation('CreatePaymentSession', 'ok')).toBe(1);
    expect(byOperation('AuthorizeCheckout', 'OTP_INVALID')).toBe(1);
    expect(byOperation('AuthorizeCheckout', 'ok')).toBe(1);

    // One process, one scrape target (issue 31): rest-compat's and the router's /metrics (the
    // start page links rest-compat's) have every service's series, each with its service label.
    for (const scraped of [await metricsOf(t.platform.restUrl), router]) {
      expect(value(scraped, 'bank_core_call_duration_seconds_count', { service: 'payments', operation: 'debit' })).toBe(
        1,
      );
      expect(value(scraped, 'subgraph_request_duration_seconds_count', { service: 'identity' })).toBeGreaterThan(0);
      expect(value(scraped, 'subgraph_request_duration_seconds_count', { service: 'payments' })).toBeGreaterThan(0);
      const authorized = { service: 'router', operation: 'AuthorizeCheckout', outcome: 'ok' };
      expect(value(scraped, 'router_request_duration_seconds_count', authorized)).toBe(1);
      expect(
        value(scraped, 'rest_compat_requests_total', { service: 'rest-compat', route: '/payments/sessions' }),
      ).toBe(1);
      // Merged by name: one TYPE line for a name several services share.
      expect(
        scraped.filter((sample) => sample.name === 'subgraph_request_duration_seconds_count').length,
      ).toBeGreaterThan(1);
    }
    const restText = await (await fetch(`${t.platform.restUrl}/metrics`)).text();
    expect(restText.match(/^# TYPE subgraph_request_duration_seconds histogram$/gm)).toHaveLength(1);
    // A subgraph's own port still serves only its own series.
    expect(payments.some((sample) => sample.labels.service && sample.labels.service !== 'payments')).toBe(false);

    // The process's figures (prom-client's default metrics) on every service's /metrics, once each.
    for (const registry of [payments, router, await metricsOf(t.platform.restUrl)]) {
      expect(registry.filter((sample) => sample.name === 'process_cpu_user_seconds_total')).toHaveLength(1);
      expect(value(registry, 'nodejs_heap_size_used_bytes', {})).toBeGreaterThan(0);
    }
  });

  it('keeps the label set bounded: no name is "anonymous", and a flood of made-up names from unauthenticated callers folds into "other"', async () => {
    const ask = (body: Record<string, unknown>) =>
      fetch(t.platform.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await ask({ query: '{ __typename }' })).status).toBe(200);
    for (let n = 0; n < 60; n += 1) expect((await ask({ query: `query Flood${n} { __typename }` })).status).toBe(200);

    const router = await metricsOf(t.platform.routerUrl);
    const count = (operation: string) =>
      value(router, 'router_request_duration_seconds_count', { operation, outcome: 'ok' }) ?? 0;
    expect(count('anonymous')).toBe(1);
    const kept = new Set(
      router.filter((sample) => sample.labels.operation?.startsWith('Flood')).map((sample) => sample.labels.operation),
    );
    // The checkout's own names (AuthorizeCheckout, …) took some of the unauthenticated allowance of 50 first.
    expect(kept.size).toBeLessThan(50);
    expect(count('other')).toBe(60 - kept.size);
  });
});
