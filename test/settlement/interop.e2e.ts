import type { EngineSettings } from '@gateway/subgraph-payments';
import { startMinimalBank, type MinimalBank } from '../support/minimal-bank';
import { bearer, eventually, FAST_ENGINE } from '../support/payments';
import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';
import { admin } from './support';

const ENGINE: Partial<EngineSettings> = { ...FAST_ENGINE, confirmGiveUpAfterMs: 1_000, confirmResendAfterMs: 300 };

/**
 * Settlement with bank cores written from the spec alone: exactly the spec's fields on
 * /accounts/credit and /accounts/debit, one booking per position, and a lost answer replayed
 * with the same reference (the core answering "duplicate") counted as booked, never re-sent blindly.
 */
describe('settlement with bank cores written from the spec alone', () => {
  let t: TestPlatform;
  let alpha: MinimalBank;
  let beta: MinimalBank;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: ENGINE, env: { SETTLEMENT_INTERVAL_SECONDS: '0' } });
    alpha = await startMinimalBank(t);
    beta = await startMinimalBank(t, { replay: 'duplicate' });
    for (const bank of [alpha, beta])
      bank.core.openAccount(lyIban(bank.institutionCode, 1), {
        customerRef: `${bank.handle}-settlement`,
        otp: '000000',
        balance: 1_000_000,
      });
  });
  afterAll(async () => {
    await alpha.core.stop();
    await beta.core.stop();
    await t.stop();
  });

  it('books each position once with the spec fields, a lost answer replayed and taken as booked', async () => {
    const merchant = await t.seed.createMerchant();
    const payer = await alpha.customer({ balance: 50_000 });
    const payee = await beta.customer({ balance: 0 });
    const session = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 3_100, currency: 'LYD', destination: { type: 'iban', value: payee.iban } },
    });
    await t.rest('POST', `/pay/${session.body.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    // The spec-only core sends no credit confirmation: the obligation exists once the rail credit is booked.
    await eventually(
      async () =>
        (await t.platform.db.knex('payments.interbank_obligations').where({ session_id: session.body.session_id }))
          .length
          ? true
          : undefined,
      'the obligation',
    );

    // The payment done first: a resend of its credit (confirmResendAfterMs) would otherwise take the fault meant for settlement.
    await eventually(
      async () =>
        (await t.rest('GET', `/payments/sessions/${session.body.session_id}`, { headers: bearer(merchant.apiKey) }))
          .body.status === 'COMPLETED'
          ? true
          : undefined,
      'the payment to complete',
    );
    beta.core.fail({ path: '/accounts/credit', kind: 'book-then-status', status: 502 });
    const answer = await t.rest('POST', '/settlement/cycles', { headers: admin(t) });
    const cycleId = answer.body.cycle_id as string;
    const settled = await eventually(async () => {
      const cycle = (await t.rest('GET', `/settlement/cycles/${cycleId}`, { headers: admin(t) })).body;
      return cycle.status === 'SETTLED' ? cycle : undefined;
    }, 'the cycle to settle');
    expect(settled.positions.map((p: any) => [p.bank_handle, p.net_amount, p.direction])).toEqual([
      [alpha.handle, -3_100, 'DEBIT'],
      [beta.handle, 3_100, 'CREDIT'],
    ]);

    const calls = (bank: MinimalBank, path: string) =>
      bank.core.calls.filter((call) => call.path === path && String(call.body?.reference).startsWith(cycleId));
    const debits = calls(alpha, '/accounts/debit');
    expect(debits.map((call) => call.body)).toEqual([
      {
        iban: lyIban(alpha.institutionCode, 1),
        amount: 3_100,
        currency: 'LYD',
        reference: `${cycleId}:${alpha.handle}:LYD`,
        description: `Net settlement ${cycleId}:${alpha.handle}:LYD`,
      },
    ]);
    expect(debits[0]!.headers['x-service-internal-key']).toBe(alpha.internalKey);
    expect(debits[0]!.headers['x-request-id']).toMatch(/^req_/);
    // The 502 after booking was replayed with the same reference; the core's DUPLICATE_REFERENCE answer proves it was booked.
    expect(new Set(calls(beta, '/accounts/credit').map((call) => call.body?.reference))).toEqual(
      new Set([`${cycleId}:${beta.handle}:LYD`]),
    );
    expect(calls(beta, '/accounts/credit').length).toBeGreaterThanOrEqual(2);
    expect(beta.core.entries(lyIban(beta.institutionCode, 1)).map((entry) => [entry.amount, entry.reference])).toEqual([
      [3_100, `${cycleId}:${beta.handle}:LYD`],
    ]);
    expect(alpha.core.balance(lyIban(alpha.institutionCode, 1))).toBe(1_000_000 - 3_100);
    expect(beta.core.balance(lyIban(beta.institutionCode, 1))).toBe(1_000_000 + 3_100);
  });
});
