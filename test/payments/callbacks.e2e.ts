import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  FAST_ENGINE,
  sessionEvents,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';

const PATH = '/service/callbacks/v1/payment/credit-confirmed';

/** POST /service/callbacks/v1/payment/credit-confirmed: the creditor bank's core completes cross-bank sessions. */
describe('credit-confirmed callback', () => {
  let t: TestPlatform;
  let base: string;
  let payerBank: PaymentBank;
  let creditor: PaymentBank;
  let merchant: { merchantId: string; apiKey: string };
  let payee: Customer;
  let payer: Customer;

  /** A cross-bank session waiting in SETTLEMENT_PENDING (the creditor sandbox's own confirmation is far off). */
  const pendingSession = async (amount = 8_000) => {
    const created = await call(base, 'POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    const id = created.body.session_id as string;
    const authorized = await call(base, 'POST', `/pay/${id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    expect(authorized.body.status).toBe('SETTLEMENT_PENDING');
    return id;
  };
  const confirmation = (id: string, patch: Record<string, unknown> = {}) => ({
    payment_reference: id,
    session_id: id,
    creditor_iban: payee.iban,
    amount: 8_000,
    currency: 'LYD',
    rrn: 'RRN000111222',
    ...patch,
  });
  const confirm = (body: Record<string, unknown>, key: string | null = creditor.internalKey) =>
    call(base, 'POST', PATH, { headers: key ? { 'x-service-internal-key': key } : {}, body });
  const status = async (id: string) =>
    (await call(base, 'GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) })).body.status;
  const completedEvents = async (id: string) =>
    (await sessionEvents(t, id)).filter((event) => event.kind === 'payment.completed');

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    payerBank = await startPaymentBank(t);
    creditor = await startPaymentBank(t, { confirmDelayMs: { min: 600_000, max: 600_000 } });
    merchant = await t.seed.createMerchant();
    payee = await creditor.customer({ balance: 0 });
    payer = await payerBank.customer({ balance: 1_000_000 });
  });
  afterAll(async () => {
    await payerBank.sandbox.stop();
    await creditor.sandbox.stop();
    await t.stop();
  });

  it('completes the session with the creditor bank’s internal key, once; a repeat is answered as a duplicate', async () => {
    const id = await pendingSession();
    const first = await confirm(confirmation(id));
    expect(first.status).toBe(200);
    expect(responseSchemaOf('POST', PATH).safeParse(first.body).error).toBeUndefined();
    expect(first.body).toEqual({ payment_reference: id, session_id: id, status: 'COMPLETED', duplicate: false });
    expect(await status(id)).toBe('COMPLETED');
    const again = await confirm(confirmation(id));
    expect(again.body).toEqual({ payment_reference: id, session_id: id, status: 'COMPLETED', duplicate: true });
    expect(await completedEvents(id)).toHaveLength(1);
    expect(await t.platform.db.knex('payments.payment_executions').where({ movement_id: id }).first()).toMatchObject({
      step: 'done',
      rrn: 'RRN000111222',
    });
  });

  it('deduplicates concurrent copies of one confirmation by payment_reference', async () => {
    const id = await pendingSession();
    const answers = await Promise.all(Array.from({ length: 4 }, () => confirm(confirmation(id))));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(answers.filter((answer) => answer.body.duplicate === false)).toHaveLength(1);
    expect(await completedEvents(id)).toHaveLength(1);
    expect(
      await t.platform.db.knex('payments.credit_confirmations').where({ session_id: id, outcome: 'accepted' }),
    ).toHaveLength(1);
  });

  it('refuses and logs a confirmation whose amount, currency, IBAN or reference does not match; the session keeps waiting', async () => {
    const id = await pendingSession();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ amount: 7_999 }, /^amount: 7999 does not match the session's 8000/],
      [{ currency: 'USD' }, /^currency: USD does not match/],
      [
        { creditor_iban: lyIban(creditor.institutionCode, 31_337) },
        /^creditor_iban: .* is not the session's destination/,
      ],
      [{ payment_reference: `${id}:other` }, /^payment_reference: /],
    ];
    for (const [patch, detail] of cases) {
      const answer = await confirm(confirmation(id, patch));
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.error.detail).toMatch(detail);
    }
    expect(await status(id)).toBe('SETTLEMENT_PENDING');
    expect(await completedEvents(id)).toEqual([]);
    const refused = await t.platform.db
      .knex('payments.credit_confirmations')
      .where({ session_id: id, outcome: 'refused' });
    expect(refused).toHaveLength(4);
    expect(refused.map((row: { reason: string }) => row.reason).join('\n')).toMatch(/amount: 7999/);
    expect((await confirm(confirmation(id))).body.duplicate).toBe(false);
  });

  it("is for the creditor bank's core only, and only for a session awaiting its confirmation", async () => {
    const id = await pendingSession();
    expectError(await confirm(confirmation(id), null), 401, 'UNAUTHORIZED');
    expectError(await confirm(confirmation(id), 'sik_not_a_real_key_000000000'), 401, 'UNAUTHORIZED');
    expectError(await confirm(confirmation(id), payerBank.internalKey), 404, 'SESSION_NOT_FOUND');
    expectError(
      await call(base, 'POST', PATH, { headers: { 'x-service-admin-key': t.adminKey }, body: confirmation(id) }),
      403,
      'FORBIDDEN',
    );
    expectError(await confirm(confirmation('ops_unknownunknownunknown1')), 404, 'SESSION_NOT_FOUND');
    expect(await status(id)).toBe('SETTLEMENT_PENDING');

    const unpaid = (
      await call(base, 'POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: { amount: 8_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      })
    ).body.session_id;
    expectError(await confirm(confirmation(unpaid)), 409, 'SESSION_ALREADY_COMPLETED');
    expect(await status(unpaid)).toBe('PENDING');
    expectError(await confirm({ ...confirmation(id), extra: true }), 400, 'VALIDATION_ERROR');
  });
});
