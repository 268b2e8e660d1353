import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  sessionEvents,
  sessionReaches,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Checkout and the payment engine end to end: payer resolved in the registry, OTP verified at
 * the payer's sandbox core, debit and credit booked in the sandbox ledgers, events in the outbox.
 * Covers every row of the spec's session state table.
 */
describe('checkout and the payment engine', () => {
  let t: TestPlatform;
  let base: string;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  let merchant: { merchantId: string; apiKey: string };
  let payee: Customer;

  const create = async (destination: Customer | string, patch: Record<string, unknown> = {}) => {
    const target =
      typeof destination === 'string'
        ? { type: 'iban', value: destination }
        : { type: 'alias', value: destination.alias };
    const answer = await call(base, 'POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 12_345, currency: 'LYD', destination: target, ...patch },
    });
    if (answer.status !== 201) throw new Error(`session creation failed: ${answer.text}`);
    return answer.body.session_id as string;
  };
  const authorize = (id: string, payer: Customer, otp = payer.otp, type: 'alias' | 'iban' = 'alias') =>
    call(base, 'POST', `/pay/${id}/authorize`, {
      body: { payer: { type, value: type === 'alias' ? payer.alias : payer.iban }, otp },
    });
  const read = async (id: string) =>
    (await call(base, 'GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) })).body;
  const ledger = async (bank: PaymentBank, reference: string) =>
    (await bank.movements(reference)).map((line) => `${line.operation} ${line.iban} ${line.amount}`).sort();
  const kinds = async (id: string) => (await sessionEvents(t, id)).map((event) => `${event.kind} ${event.data.status}`);
  const obligations = (id: string) => t.platform.db.knex('payments.interbank_obligations').where({ session_id: id });

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    alpha = await startPaymentBank(t);
    beta = await startPaymentBank(t);
    merchant = await t.seed.createMerchant({ name: 'Checkout Shop' });
    payee = await alpha.customer({ balance: 0 });
  });
  afterEach(() => {
    alpha.sandbox.clearFaults();
    beta.sandbox.clearFaults();
  });
  afterAll(async () => {
    await alpha.sandbox.stop();
    await beta.sandbox.stop();
    await t.stop();
  });

  it("answers the page's JSON view of an unknown or malformed session with the spec's error body", async () => {
    for (const id of ['ops_000000000000000000000000', 'not-a-session']) {
      const answer = await t.rest('GET', `/pay/${id}`, { headers: { accept: 'application/json' } });
      expect(answer.status).toBe(404);
      expect(answer.body.error).toMatchObject({
        code: 'SESSION_NOT_FOUND',
        request_id: answer.headers.get('x-request-id'),
      });
    }
  });

  it("answers the page's JSON view of a session as /openapi.json documents it; a browser gets the page on the same path", async () => {
    const id = await create(payee, { reference: 'view-1' });
    const view = await call(base, 'GET', `/pay/${id}`, { headers: { accept: 'application/json' } });
    expect(view.status).toBe(200);
    expect(responseSchemaOf('GET', '/pay/{session_id}').safeParse(view.body).error).toBeUndefined();
    expect(view.body).toEqual({
      session_id: id,
      status: 'PENDING',
      otp_attempts_left: 3,
      redirect_to: null,
      failure_code: null,
      completed_at: null,
    });
    const documented = (await call(base, 'GET', '/openapi.json')).body.paths['/pay/{session_id}'].get.responses['200']
      .content;
    expect(Object.keys(documented).sort()).toEqual(['application/json', 'text/html']);

    for (const accept of [undefined, 'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8']) {
      const page = await call(base, 'GET', `/pay/${id}`, { headers: accept ? { accept } : {} });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('Checkout Shop');
    }
  });

  describe('same bank', () => {
    it('PENDING -> PROCESSING -> COMPLETED: one debit and one credit at the core, settlement internal, sst_ token, redirect with status=completed', async () => {
      const payer = await alpha.customer({ balance: 100_000 });
      const id = await create(payee, { reference: 'same-1', redirect_url: 'https://shop.example/return?cart=9' });
      const payeeBefore = await alpha.balance(payee.iban);
      const answer = await authorize(id, payer);
      expect(answer.status).toBe(200);
      expect(responseSchemaOf('POST', '/pay/{session_id}/authorize').safeParse(answer.body).error).toBeUndefined();
      expect(answer.body).toEqual({
        session_id: id,
        status: 'COMPLETED',
        session_token: expect.stringMatching(/^sst_[0-9A-Za-z]{32}$/),
        redirect_to: `https://shop.example/return?cart=9&session_id=${id}&status=completed`,
      });

      expect(await alpha.balance(payer.iban)).toBe(100_000 - 12_345);
      expect(await alpha.balance(payee.iban)).toBe(payeeBefore + 12_345);
      expect(await ledger(alpha, id)).toEqual([`CREDIT ${payee.iban} 12345`, `DEBIT ${payer.iban} 12345`]);
      expect(await obligations(id)).toEqual([]);
      expect(await read(id)).toMatchObject({
        status: 'COMPLETED',
        debtor_bank: alpha.handle,
        settlement_type: 'internal',
        completed_at: expect.any(String),
      });

      // Same-bank sessions never pass through SETTLEMENT_PENDING.
      expect(await kinds(id)).toEqual([
        'payment.initiated PENDING',
        'payment.processing PROCESSING',
        'payment.completed COMPLETED',
      ]);
      const completed = (await sessionEvents(t, id)).at(-1)!;
      expect(completed).toEqual({
        kind: 'payment.completed',
        audience: merchant.merchantId,
        data: {
          session_id: id,
          livemode: true,
          status: 'COMPLETED',
          amount: 12_345,
          currency: 'LYD',
          reference: 'same-1',
          metadata: {},
          merchant_id: merchant.merchantId,
          settlement_type: 'internal',
          creditor_bank: alpha.handle,
        },
      });

      const token = answer.body.session_token;
      const stored = await t.platform.db.knex('auth.credentials').where({ kind: 'session_token', owner_id: id });
      expect(stored).toHaveLength(1);
      expect(JSON.stringify(stored)).not.toContain(token);
      const status = await call(base, 'GET', `/pay/${id}/status`, { headers: { 'x-session-token': token } });
      expect(status.status).toBe(200);
      expect(responseSchemaOf('GET', '/pay/{session_id}/status').safeParse(status.body).error).toBeUndefined();
      expect(status.body).toEqual({
        session_id: id,
        status: 'COMPLETED',
        failure_code: null,
        redirect_to: answer.body.redirect_to,
        completed_at: expect.any(String),
      });
      // When it completed, for the payer's receipt.
      expect(Math.abs(Date.parse(status.body.completed_at) - Date.now())).toBeLessThan(60_000);
      expectError(await call(base, 'GET', `/pay/${id}/status`), 401, 'UNAUTHORIZED');
      expectError(
        await call(base, 'GET', `/pay/${id}/status`, { headers: { 'x-session-token': 'sst_forged' } }),
        401,
        'UNAUTHORIZED',
      );
      const otherId = await create(payee);
      expectError(
        await call(base, 'GET', `/pay/${otherId}/status`, { headers: { 'x-session-token': token } }),
        404,
        'SESSION_NOT_FOUND',
      );

      // A completed session cannot be modified.
      expectError(await authorize(id, payer), 409, 'SESSION_ALREADY_COMPLETED');
      expect(await ledger(alpha, id)).toHaveLength(2);
    });

    it('PENDING -> FAILED after three wrong OTPs: nothing moves, the right OTP is refused afterwards', async () => {
      const payer = await alpha.customer({ otp: '424242' });
      const id = await create(payee, { reference: 'otp-3' });
      for (const left of ['2 attempts left', '1 attempt left']) {
        const wrong = await authorize(id, payer, '111111');
        expectError(wrong, 401, 'OTP_INVALID');
        expect(wrong.body.error.detail).toBe(`the one-time password was refused; ${left}`);
        expect((await read(id)).status).toBe('PENDING');
      }
      const third = await authorize(id, payer, '111111');
      expectError(third, 401, 'OTP_INVALID');
      expect(third.body.error.detail).toBe('the one-time password was refused; the session has failed');
      expect(await read(id)).toMatchObject({
        status: 'FAILED',
        failure_code: 'OTP_INVALID',
        failed_at: expect.any(String),
      });
      expect(await kinds(id)).toEqual(['payment.initiated PENDING', 'payment.failed FAILED']);
      expect((await sessionEvents(t, id)).at(-1)!.data).toMatchObject({
        failure_code: 'OTP_INVALID',
        reference: 'otp-3',
      });
      expectError(await authorize(id, payer, '424242'), 409, 'SESSION_FAILED');
      expect(await ledger(alpha, id)).toEqual([]);
    });

    it('refuses unknown payers, paying into the destination itself and malformed input; the session stays payable', async () => {
      const payer = await alpha.customer();
      const id = await create(payee);
      expectError(
        await call(base, 'POST', `/pay/${id}/authorize`, {
          body: { payer: { type: 'alias', value: 'nobody.at.all' }, otp: '123456' },
        }),
        404,
        'ALIAS_NOT_FOUND',
      );
      expectError(await authorize(id, payee), 400, 'VALIDATION_ERROR');
      expectError(await authorize(id, payer, 'abc'), 400, 'VALIDATION_ERROR');
      expectError(
        await call(base, 'POST', `/pay/${id}/authorize`, {
          body: { payer: { type: 'iban', value: 'LY00 nope' }, otp: '123456' },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await call(base, 'POST', `/pay/${id}/authorize`, {
          body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp, amount: 1 },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(await authorize('ops_doesnotexist0000000000', payer), 404, 'SESSION_NOT_FOUND');
      expect((await read(id)).status).toBe('PENDING');
      expect((await authorize(id, payer, payer.otp, 'iban')).body.status).toBe('COMPLETED');
    });

    it('PROCESSING -> FAILED on insufficient funds: 422 INSUFFICIENT_FUNDS, nothing booked', async () => {
      const payer = await alpha.customer({ balance: 100 });
      const id = await create(payee);
      expectError(await authorize(id, payer), 422, 'INSUFFICIENT_FUNDS');
      expect(await read(id)).toMatchObject({
        status: 'FAILED',
        failure_code: 'INSUFFICIENT_FUNDS',
        debtor_bank: alpha.handle,
      });
      expect(await kinds(id)).toEqual([
        'payment.initiated PENDING',
        'payment.processing PROCESSING',
        'payment.failed FAILED',
      ]);
      expect(await ledger(alpha, id)).toEqual([]);
      expect(await alpha.balance(payer.iban)).toBe(100);
    });

    it('debits once when one session is authorized many times at once', async () => {
      const payer = await alpha.customer({ balance: 1_000_000 });
      const id = await create(payee, { amount: 5_000 });
      alpha.sandbox.resetRequestCounts();
      const answers = await Promise.all(Array.from({ length: 8 }, () => authorize(id, payer)));
      // One claims and pays; the same authorization sent again is told the truth: 200 with the
      // status while the payment runs, the final answer once it is COMPLETED.
      expect(
        answers.filter((answer) => answer.status === 200 && answer.body.status === 'COMPLETED').length,
      ).toBeGreaterThanOrEqual(1);
      for (const answer of answers) {
        if (answer.status === 200)
          expect(answer.body).toMatchObject({
            session_id: id,
            status: expect.stringMatching(/^(PROCESSING|COMPLETED)$/),
            session_token: expect.stringMatching(/^sst_/),
          });
        else expectError(answer, 409, 'SESSION_ALREADY_COMPLETED');
      }
      expect(alpha.sandbox.requestCounts().byOperation.debit).toBe(1);
      expect(await ledger(alpha, id)).toEqual([`CREDIT ${payee.iban} 5000`, `DEBIT ${payer.iban} 5000`]);
      expect(await alpha.balance(payer.iban)).toBe(995_000);
      expect((await kinds(id)).filter((kind) => kind.startsWith('payment.completed'))).toHaveLength(1);
    });
  });

  describe('cross bank', () => {
    it('PROCESSING -> SETTLEMENT_PENDING -> COMPLETED only on the creditor bank’s confirmation, with the obligation recorded', async () => {
      const slow = await startPaymentBank(t, { confirmDelayMs: { min: 1_500, max: 1_500 } });
      try {
        const slowPayee = await slow.customer({ balance: 0 });
        const payer = await alpha.customer({ balance: 50_000 });
        const id = await create(slowPayee, {
          amount: 20_000,
          reference: 'rail-1',
          redirect_url: 'https://shop.example/r',
        });
        const answer = await authorize(id, payer, payer.otp, 'iban');
        expect(answer.body).toMatchObject({ session_id: id, status: 'SETTLEMENT_PENDING', redirect_to: null });
        // The answer lost, the payer retries (by alias this time: the same account): the truth, with a working token.
        const again = await authorize(id, payer);
        expect(again.status).toBe(200);
        expect(again.body).toMatchObject({
          session_id: id,
          status: 'SETTLEMENT_PENDING',
          session_token: expect.stringMatching(/^sst_/),
        });
        expect(again.body.session_token).not.toBe(answer.body.session_token);
        const status = await call(base, 'GET', `/pay/${id}/status`, {
          headers: { 'x-session-token': again.body.session_token },
        });
        expect(status.body).toMatchObject({ session_id: id, status: 'SETTLEMENT_PENDING' });
        // Anyone else, or the payer with another OTP, is refused while it runs: not final, so not "completed".
        const stranger = await alpha.customer({ otp: '909090' });
        expectError(await authorize(id, stranger, '909090'), 409, 'SESSION_IN_PROGRESS');
        expectError(await authorize(id, payer, '000001'), 409, 'SESSION_IN_PROGRESS');
        expect(await alpha.movements(id)).toHaveLength(1);
        // Debited and credited, but not COMPLETED and no payment.completed before the confirmation.
        expect(await read(id)).toMatchObject({
          status: 'SETTLEMENT_PENDING',
          settlement_type: 'rail',
          debtor_bank: alpha.handle,
        });
        expect(await kinds(id)).toEqual([
          'payment.initiated PENDING',
          'payment.processing PROCESSING',
          'payment.processing SETTLEMENT_PENDING',
        ]);
        expect(await alpha.balance(payer.iban)).toBe(30_000);

        const done = await sessionReaches(t, merchant.apiKey, id, 'COMPLETED');
        expect(done).toMatchObject({
          settlement_type: 'rail',
          creditor_bank: slow.handle,
          completed_at: expect.any(String),
        });
        expect(await kinds(id)).toEqual([
          'payment.initiated PENDING',
          'payment.processing PROCESSING',
          'payment.processing SETTLEMENT_PENDING',
          'payment.completed COMPLETED',
        ]);
        expect((await sessionEvents(t, id)).at(-1)!.data).toEqual({
          session_id: id,
          livemode: true,
          status: 'COMPLETED',
          amount: 20_000,
          currency: 'LYD',
          reference: 'rail-1',
          metadata: {},
          merchant_id: merchant.merchantId,
          settlement_type: 'rail',
          creditor_bank: slow.handle,
        });
        expect(await ledger(alpha, id)).toEqual([`DEBIT ${payer.iban} 20000`]);
        // The gateway sends only the spec's fields: the creditor bank tells a rail credit from the reference alone.
        // The sandbox marks its credit CONFIRMED once the gateway has answered its confirmation, which
        // is after the session completed: on a busy machine the test reads it in between.
        const credits = await eventually(async () => {
          const movements = await slow.movements(id);
          return movements[0]?.confirmationStatus === 'CONFIRMED' ? movements : undefined;
        }, 'the creditor bank recorded its confirmation as answered');
        expect(credits).toMatchObject([
          {
            operation: 'CREDIT',
            iban: slowPayee.iban,
            amount: 20_000,
            debtorBank: null,
            confirmationStatus: 'CONFIRMED',
          },
        ]);
        expect(await slow.balance(slowPayee.iban)).toBe(20_000);
        expect(await obligations(id)).toMatchObject([
          {
            debtor_bank: alpha.handle,
            creditor_bank: slow.handle,
            amount: '20000',
            currency: 'LYD',
            settlement_cycle_id: null,
          },
        ]);
        expect(await t.platform.db.knex('payments.credit_confirmations').where({ session_id: id })).toMatchObject([
          { outcome: 'accepted', bank_handle: slow.handle, rrn: credits[0]!.rrn },
        ]);
      } finally {
        await slow.sandbox.stop();
      }
    });

    it('SETTLEMENT_PENDING -> FAILED when the creditor bank refuses the credit: the debit is reversed, no obligation', async () => {
      const payer = await alpha.customer({ balance: 40_000 });
      const missing = lyIban(beta.institutionCode, 777_001); // routable by institution code, but no such account at beta
      const id = await create(missing, { amount: 15_000 });
      const answer = await authorize(id, payer);
      expectError(answer, 502, 'CBS_ERROR');
      expect(await read(id)).toMatchObject({ status: 'FAILED', failure_code: 'CBS_ERROR', settlement_type: 'rail' });
      expect(await kinds(id)).toEqual([
        'payment.initiated PENDING',
        'payment.processing PROCESSING',
        'payment.processing SETTLEMENT_PENDING',
        'payment.failed FAILED',
      ]);
      expect(await ledger(alpha, id)).toEqual([`DEBIT ${payer.iban} 15000`]);
      expect(await ledger(alpha, `${id}:reversal`)).toEqual([`CREDIT ${payer.iban} 15000`]);
      expect(await alpha.balance(payer.iban)).toBe(40_000);
      expect(await obligations(id)).toEqual([]);
    });
  });

  describe('expiry', () => {
    it('PENDING -> EXPIRED after the TTL (default 15 minutes), by the expiry job or on a late authorization: SESSION_EXPIRED', async () => {
      const payer = await alpha.customer();
      const byJob = await create(payee);
      const late = await create(payee);
      const session = await read(byJob);
      expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(900_000);
      await t.platform.db
        .knex('payments.payment_sessions')
        .whereIn('id', [byJob, late])
        .update({ expires_at: new Date(Date.now() - 1_000) });

      expectError(await authorize(late, payer), 422, 'SESSION_EXPIRED');
      const expired = await sessionReaches(t, merchant.apiKey, byJob, 'EXPIRED');
      expect(expired.expired_at).toEqual(expect.any(String));
      for (const id of [byJob, late]) {
        expect(
          await eventually(
            async () => ((await kinds(id)).includes('payment.expired EXPIRED') ? kinds(id) : undefined),
            'payment.expired',
          ),
        ).toEqual(['payment.initiated PENDING', 'payment.expired EXPIRED']);
      }
      expectError(await authorize(byJob, payer), 422, 'SESSION_EXPIRED');
      expect(await ledger(alpha, late)).toEqual([]);
    });
  });

  describe('core failures', () => {
    it('a debit whose answer is lost (timeout): 503 CBS_TIMEOUT, then FAILED with the money returned once the core answers', async () => {
      const payer = await alpha.customer({ balance: 30_000 });
      const id = await create(payee, { amount: 10_000 });
      alpha.sandbox.injectFaults({ hang: true, afterBooking: true, operations: ['debit'] });
      expectError(await authorize(id, payer), 503, 'CBS_TIMEOUT');
      expect(await alpha.balance(payer.iban)).toBe(20_000); // booked, answer lost
      alpha.sandbox.clearFaults();
      const failed = await sessionReaches(t, merchant.apiKey, id, 'FAILED');
      expect(failed.failure_code).toBe('CBS_TIMEOUT');
      expect(await alpha.balance(payer.iban)).toBe(30_000);
      expect(await ledger(alpha, id)).toEqual([`DEBIT ${payer.iban} 10000`]);
      expect(await ledger(alpha, `${id}:reversal`)).toEqual([`CREDIT ${payer.iban} 10000`]);
      expect(await kinds(id)).toEqual([
        'payment.initiated PENDING',
        'payment.processing PROCESSING',
        'payment.failed FAILED',
      ]);
    });

    it('a debit the core keeps failing (5xx): 502 CBS_ERROR, then FAILED and whatever was taken is given back', async () => {
      const payer = await alpha.customer({ balance: 30_000 });
      const id = await create(payee, { amount: 7_000 });
      alpha.sandbox.injectFaults({ errorStatus: 503, operations: ['debit'] });
      expectError(await authorize(id, payer), 502, 'CBS_ERROR');
      expect((await read(id)).status).toBe('PROCESSING');
      alpha.sandbox.clearFaults();
      expect((await sessionReaches(t, merchant.apiKey, id, 'FAILED')).failure_code).toBe('CBS_ERROR');
      expect(await alpha.balance(payer.iban)).toBe(30_000);
      const debits = await ledger(alpha, id);
      const reversals = await ledger(alpha, `${id}:reversal`);
      expect(debits.length).toBe(reversals.length); // every debit booked was reversed
      expect(await ledger(alpha, id)).not.toContain(`CREDIT ${payee.iban} 7000`);
    });

    it('PROCESSING -> FAILED when the credit is refused: a compensating credit returns the money to the payer', async () => {
      const payer = await alpha.customer({ balance: 30_000 });
      const id = await create(lyIban(alpha.institutionCode, 777_002), { amount: 9_000 }); // no such account at alpha
      expectError(await authorize(id, payer), 502, 'CBS_ERROR');
      expect(await read(id)).toMatchObject({
        status: 'FAILED',
        failure_code: 'CBS_ERROR',
        settlement_type: 'internal',
      });
      expect(await ledger(alpha, id)).toEqual([`DEBIT ${payer.iban} 9000`]);
      expect(await ledger(alpha, `${id}:reversal`)).toEqual([`CREDIT ${payer.iban} 9000`]);
      expect(await alpha.balance(payer.iban)).toBe(30_000);
      expect(await kinds(id)).toEqual([
        'payment.initiated PENDING',
        'payment.processing PROCESSING',
        'payment.failed FAILED',
      ]);
    });

    it('a credit whose outcome is unknown is replayed with the same reference, never reversed: COMPLETED with one credit', async () => {
      const payer = await alpha.customer({ balance: 30_000 });
      const id = await create(payee, { amount: 3_000 });
      alpha.sandbox.injectFaults({ errorStatus: 503, afterBooking: true, operations: ['credit'], times: 2 });
      const answer = await authorize(id, payer);
      expect(answer.status).toBe(200);
      expect(['PROCESSING', 'COMPLETED']).toContain(answer.body.status);
      await sessionReaches(t, merchant.apiKey, id, 'COMPLETED');
      expect(await ledger(alpha, id)).toEqual([`CREDIT ${payee.iban} 3000`, `DEBIT ${payer.iban} 3000`]);
      expect(await ledger(alpha, `${id}:reversal`)).toEqual([]);
      expect(await alpha.balance(payer.iban)).toBe(27_000);
    });

    it("a payer's core that does not answer the OTP check: 503 CBS_TIMEOUT, nothing moved, the session stays payable", async () => {
      const payer = await alpha.customer({ balance: 30_000 });
      const id = await create(payee, { amount: 1_000 });
      alpha.sandbox.injectFaults({ hang: true, operations: ['verify'] });
      expectError(await authorize(id, payer), 503, 'CBS_TIMEOUT');
      expect((await read(id)).status).toBe('PENDING');
      alpha.sandbox.clearFaults();
      expect((await authorize(id, payer)).body.status).toBe('COMPLETED');
    });
  });
});
