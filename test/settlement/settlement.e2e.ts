import { eventually, FAST_ENGINE, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { admin, pay, settlementLines, unsettledGauge } from './support';

/**
 * Net settlement between sandbox banks (API-CONTRACT "Settlement"): after cross-bank payments a
 * cycle's positions sum to zero and each bank's settlement account moves once by its net.
 */
describe('settlement cycles between sandbox banks', () => {
  let t: TestPlatform;
  let banks: PaymentBank[];
  let customers: Customer[];
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestPlatform({
      paymentsEngine: FAST_ENGINE,
      env: { SETTLEMENT_INTERVAL_SECONDS: '0' },
      paymentsSettlement: { retryMaxMs: 600 },
    });
    banks = [await startPaymentBank(t), await startPaymentBank(t), await startPaymentBank(t)];
    customers = await Promise.all(banks.map((bank) => bank.customer({ balance: 1_000_000 })));
    merchant = await t.seed.createMerchant({ name: 'Settlement Shop' });
  });
  afterAll(async () => {
    for (const bank of banks) await bank.sandbox.stop();
    await t.stop();
  });

  const run = () => t.rest('POST', '/settlement/cycles', { headers: admin(t) });
  const read = (id: string, headers: Record<string, string> = admin(t)) =>
    t.rest('GET', `/settlement/cycles/${id}`, { headers });
  const coreCalls = () =>
    banks.map((bank) => bank.sandbox.requestCounts().byOperation).map((ops) => ops.debit + ops.credit);

  it('nets the cross-bank payments into zero-sum positions and moves each settlement account once by its net', async () => {
    const [a, b, c] = banks as [PaymentBank, PaymentBank, PaymentBank];
    const [ca, cb, cc] = customers as [Customer, Customer, Customer];
    await pay(t, merchant.apiKey, ca, cb, 10_000);
    await pay(t, merchant.apiKey, cb, cc, 4_000);
    await pay(t, merchant.apiKey, cc, ca, 1_000);
    await pay(t, merchant.apiKey, ca, cc, 2_500);
    expect([
      await unsettledGauge(t, a.handle),
      await unsettledGauge(t, b.handle),
      await unsettledGauge(t, c.handle),
    ]).toEqual([3, 2, 3]);
    const before = await Promise.all(banks.map((bank) => bank.balance(bank.settlementIban)));

    const answer = await run();
    expect(answer.status).toBe(201);
    const cycle = answer.body;
    expect(cycle).toMatchObject({
      cycle_id: expect.stringMatching(/^stl_/),
      status: 'SETTLED',
      obligation_count: 4,
      trigger: 'api',
    });
    const nets = { [a.handle]: -11_500, [b.handle]: 6_000, [c.handle]: 5_500 };
    expect(
      cycle.positions.map((p: any) => [
        p.bank_handle,
        p.currency,
        p.net_amount,
        p.direction,
        p.status,
        p.core_reference,
      ]),
    ).toEqual(
      banks.map((bank) => [
        bank.handle,
        'LYD',
        nets[bank.handle],
        nets[bank.handle]! > 0 ? 'CREDIT' : 'DEBIT',
        'SETTLED',
        `${cycle.cycle_id}:${bank.handle}:LYD`,
      ]),
    );
    expect(cycle.positions.reduce((sum: number, p: any) => sum + p.net_amount, 0)).toBe(0);

    for (const [i, bank] of banks.entries()) {
      const net = nets[bank.handle]!;
      expect(await settlementLines(bank, `${cycle.cycle_id}:${bank.handle}:LYD`)).toEqual([
        `${net > 0 ? 'CREDIT' : 'DEBIT'} ${bank.settlementIban} ${Math.abs(net)}`,
      ]);
      expect(await bank.balance(bank.settlementIban)).toBe(before[i]! + net);
    }
    expect(await read(cycle.cycle_id).then((r) => r.body)).toEqual(cycle);
    for (const bank of banks) expect(await unsettledGauge(t, bank.handle)).toBe(0);
  });

  it('a second cycle with nothing new takes nothing and calls no core', async () => {
    const calls = coreCalls();
    const answer = await run();
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ status: 'SETTLED', obligation_count: 0, positions: [] });
    expect(coreCalls()).toEqual(calls);
    const list = await t.rest('GET', '/settlement/cycles?limit=1', { headers: admin(t) });
    expect(list.body.cycles.map((c: any) => c.cycle_id)).toEqual([answer.body.cycle_id]);
    expect(list.body.pagination.has_more).toBe(true);
  });

  it('two runs at once make one cycle', async () => {
    await pay(t, merchant.apiKey, customers[0]!, customers[1]!, 700);
    const [first, second] = await Promise.all([run(), run()]);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.cycle_id).toBe(first.body.cycle_id);
    expect(first.body).toMatchObject({ obligation_count: 1, status: 'SETTLED' });
    expect(first.body.positions.map((p: any) => p.net_amount)).toEqual([-700, 700]);
    const lines = await settlementLines(banks[0]!, `${first.body.cycle_id}:${banks[0]!.handle}:LYD`);
    expect(lines).toEqual([`DEBIT ${banks[0]!.settlementIban} 700`]);
  });

  it("a position in another currency is booked on the bank's settlement account for that currency", async () => {
    const [a, b] = banks as [PaymentBank, PaymentBank];
    const [payer, payee] = await Promise.all([a.customer({ currency: 'USD' }), b.customer({ currency: 'USD' })]);
    await pay(t, merchant.apiKey, payer, payee, 4_200, 'USD');
    await pay(t, merchant.apiKey, customers[1]!, customers[0]!, 100);
    const lydBefore = await Promise.all([a.balance(a.settlementIban), b.balance(b.settlementIban)]);
    const cycle = (await run()).body;
    expect(cycle.status).toBe('SETTLED');
    expect(cycle.positions.map((p: any) => [p.bank_handle, p.currency, p.net_amount]).sort()).toEqual(
      [
        [a.handle, 'LYD', 100],
        [a.handle, 'USD', -4_200],
        [b.handle, 'LYD', -100],
        [b.handle, 'USD', 4_200],
      ].sort(),
    );
    expect(await settlementLines(a, `${cycle.cycle_id}:${a.handle}:USD`)).toEqual([
      `DEBIT ${a.usdSettlementIban} 4200`,
    ]);
    expect(await settlementLines(b, `${cycle.cycle_id}:${b.handle}:USD`)).toEqual([
      `CREDIT ${b.usdSettlementIban} 4200`,
    ]);
    expect([await a.balance(a.settlementIban), await b.balance(b.settlementIban)]).toEqual([
      lydBefore[0]! + 100,
      lydBefore[1]! - 100,
    ]);
    const record = await t.rest('GET', `/banks/${a.handle}`, { headers: admin(t) });
    expect(record.body.settlement_accounts).toEqual([{ currency: 'USD', iban: a.usdSettlementIban }]);
  });

  it('a bank key sees its own position only; other credentials are refused with their codes', async () => {
    await pay(t, merchant.apiKey, customers[1]!, customers[2]!, 300);
    const cycle = (await run()).body;
    const [, b, c] = banks as [PaymentBank, PaymentBank, PaymentBank];
    const own = await read(cycle.cycle_id, { 'x-service-bank-key': b.bankKey });
    expect(own.status).toBe(200);
    expect(own.body.positions.map((p: any) => [p.bank_handle, p.net_amount])).toEqual([[b.handle, -300]]);
    expect(
      (await read(cycle.cycle_id, { 'x-service-bank-key': c.bankKey })).body.positions.map((p: any) => p.bank_handle),
    ).toEqual([c.handle]);
    const outsider = await read(cycle.cycle_id, { 'x-service-bank-key': banks[0]!.bankKey });
    expect([outsider.status, outsider.body.error.code]).toEqual([403, 'FORBIDDEN']);

    const asMerchant = { authorization: `Bearer ${merchant.apiKey}` };
    for (const [method, path] of [
      ['POST', '/settlement/cycles'],
      ['GET', '/settlement/cycles'],
      ['GET', `/settlement/cycles/${cycle.cycle_id}`],
    ] as const) {
      const refused = await t.rest(method, path, { headers: asMerchant });
      expect([method, path, refused.status, refused.body.error.code]).toEqual([method, path, 403, 'FORBIDDEN']);
      const anonymous = await t.rest(method, path);
      expect([method, path, anonymous.status, anonymous.body.error.code]).toEqual([method, path, 401, 'UNAUTHORIZED']);
    }
    const bankPost = await t.rest('POST', '/settlement/cycles', { headers: { 'x-service-bank-key': b.bankKey } });
    expect([bankPost.status, bankPost.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const unknown = await read('stl_unknown0000000000000000');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'SETTLEMENT_CYCLE_NOT_FOUND']);
  });

  it('a core down during settlement: the position retries with its reference and the cycle ends SETTLED when the core is back', async () => {
    const [a, b] = banks as [PaymentBank, PaymentBank];
    await pay(t, merchant.apiKey, customers[0]!, customers[1]!, 1_200);
    b.sandbox.injectFaults({ errorRate: 1, errorStatus: 503, operations: ['credit'] });
    const answer = await run();
    expect(answer.body.status).toBe('SETTLING');
    const reference = `${answer.body.cycle_id}:${b.handle}:LYD`;
    const down = answer.body.positions.find((p: any) => p.bank_handle === b.handle);
    expect(down).toMatchObject({
      status: 'PENDING',
      core_reference: reference,
      last_error: expect.stringMatching(/CBS_ERROR|CBS_TIMEOUT/),
    });
    expect(answer.body.positions.find((p: any) => p.bank_handle === a.handle).status).toBe('SETTLED');
    await eventually(
      async () =>
        (await read(answer.body.cycle_id)).body.positions.find((p: any) => p.bank_handle === b.handle).attempts >= 2
          ? true
          : undefined,
      'a retry',
    );
    expect(await settlementLines(b, reference)).toEqual([]);
    expect(await unsettledGauge(t, b.handle)).toBe(1);

    b.sandbox.clearFaults();
    const settled = await eventually(async () => {
      const cycle = (await read(answer.body.cycle_id)).body;
      return cycle.status === 'SETTLED' ? cycle : undefined;
    }, 'the cycle to settle');
    expect(settled.positions.map((p: any) => p.status)).toEqual(['SETTLED', 'SETTLED']);
    expect(await settlementLines(b, reference)).toEqual([`CREDIT ${b.settlementIban} 1200`]);
    expect(await unsettledGauge(t, b.handle)).toBe(0);
  });

  it('a refused debit (settlement account without funds) is FAILED, the cycle PARTIALLY_FAILED, and an operator retry settles it', async () => {
    const [, b, c] = banks as [PaymentBank, PaymentBank, PaymentBank];
    await pay(t, merchant.apiKey, customers[2]!, customers[1]!, 900);
    const funds = await c.balance(c.settlementIban);
    c.sandbox.injectFaults({ errorRate: 1, errorStatus: 422, operations: ['debit'] });
    const answer = await run();
    expect(answer.body.status).toBe('PARTIALLY_FAILED');
    const failed = answer.body.positions.find((p: any) => p.bank_handle === c.handle);
    expect(failed).toMatchObject({ status: 'FAILED', direction: 'DEBIT', net_amount: -900 });
    expect(answer.body.positions.find((p: any) => p.bank_handle === b.handle).status).toBe('SETTLED');
    // Retried with backoff, refused again while the account stays short.
    await eventually(
      async () =>
        (await read(answer.body.cycle_id)).body.positions.find((p: any) => p.bank_handle === c.handle).attempts >= 2
          ? true
          : undefined,
      'a retry',
    );
    expect((await read(answer.body.cycle_id)).body.status).toBe('PARTIALLY_FAILED');

    c.sandbox.clearFaults();
    const retried = await t.rest('POST', `/settlement/cycles/${answer.body.cycle_id}/positions/${c.handle}/LYD/retry`, {
      headers: admin(t),
    });
    expect(retried.status).toBe(202);
    const reference = `${answer.body.cycle_id}:${c.handle}:LYD`;
    const retries = async () =>
      (await t.rest('GET', `/admin/audit?action=settlement.retried&target=${reference}`, { headers: admin(t) })).body
        .entries;
    expect(await retries()).toEqual([
      expect.objectContaining({
        actor: { kind: 'admin', id: null, name: 'ADMIN_KEY' },
        target: reference,
        changes: { next_attempt_at: { from: expect.any(String), to: expect.any(String) } },
        request_id: retried.headers.get('x-request-id'),
      }),
    ]);
    const settled = await eventually(async () => {
      const cycle = (await read(answer.body.cycle_id)).body;
      return cycle.status === 'SETTLED' ? cycle : undefined;
    }, 'the failed position to settle');
    expect(settled.positions.map((p: any) => p.status)).toEqual(['SETTLED', 'SETTLED']);
    expect(await c.balance(c.settlementIban)).toBe(funds - 900);
    const again = await t.rest('POST', `/settlement/cycles/${answer.body.cycle_id}/positions/${c.handle}/LYD/retry`, {
      headers: admin(t),
    });
    expect([again.status, again.body.status, again.body.attempts]).toEqual([
      202,
      'SETTLED',
      settled.positions.find((p: any) => p.bank_handle === c.handle).attempts,
    ]);
    expect(await settlementLines(c, `${answer.body.cycle_id}:${c.handle}:LYD`)).toEqual([
      `DEBIT ${c.settlementIban} 900`,
    ]);
    // A SETTLED position is not retried: nothing to record.
    expect(await retries()).toHaveLength(1);
    const missing = await t.rest('POST', `/settlement/cycles/${answer.body.cycle_id}/positions/${c.handle}/EUR/retry`, {
      headers: admin(t),
    });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'SETTLEMENT_CYCLE_NOT_FOUND']);
  });
});
