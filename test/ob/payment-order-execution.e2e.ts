import { randomUUID } from 'node:crypto';
import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { call } from '@gateway/rest-compat/testing';
import { ALL_OB_SCOPES, openBankingSeeds, type Grant } from '../support/open-banking';
import { eventually, FAST_ENGINE, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Payment orders executed by the payments engine (docs/payment-orders.md): open-banking writes
 * movement.requested with the order, payments executes it as it executes a session and answers
 * movement.completed / movement.failed, open-banking moves the order and tells the TPP
 * (payment_order.* in its outbox, audience the TPP).
 */
describe('Open Banking payment orders executed by the payment engine', () => {
  const secrets = {
    PLATFORM_SECRET: 'orders-platform-secret-0123456789abcdef',
    ADMIN_KEY: 'orders-admin-key-0123456789abcdef',
  };
  // The first process waits on a hung credit far longer than the test runs: as good as dead.
  const STUCK_ENGINE = { ...FAST_ENGINE, coreTimeoutMs: 60_000, coreBudgetMs: 60_000, leaseMs: 2_000 };
  let db: Database;
  let t: TestPlatform;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  let alice: Customer;
  let poor: Customer;
  let bob: Customer;
  let carol: Customer;
  let tpp: { tppId: string; tppAccessToken: string };
  let grant: Grant;

  const pay = async (platform: TestPlatform, source: number, payee: Customer, amount: number) => {
    const answer = await call(platform.platform.restUrl, 'POST', '/ob/payment-orders', {
      headers: grant.headers(),
      body: {
        source_account_id: grant.accountIds[source],
        destination: { type: 'iban', value: payee.iban },
        amount,
        currency: 'LYD',
        description: 'Order',
      },
    });
    expect(answer.status).toBe(201);
    return answer.body.payment_order_id as string;
  };
  const reaches = (platform: TestPlatform, id: string, status: string) =>
    eventually(
      async () => {
        const answer = await call(platform.platform.restUrl, 'GET', `/ob/payment-orders/${id}`, {
          headers: grant.headers(),
        });
        return answer.body?.status === status ? answer.body : undefined;
      },
      `payment order ${id} to reach ${status}`,
      20_000,
    );
  const lines = async (bank: PaymentBank, reference: string) =>
    (await bank.movements(reference)).map((line) => `${line.operation} ${line.iban} ${line.amount}`).sort();
  const orderEvents = async (id: string) =>
    (
      await db
        .knex('open_banking.outbox')
        .where({ aggregate_id: id, aggregate_type: 'payment_order' })
        .orderBy('sequence', 'asc')
        .select('kind', 'audience')
    ).map((row: { kind: string; audience: string }) => `${row.kind} ${row.audience}`);
  const answers = async (id: string, kind: string) =>
    (await db.knex('payments.outbox').where({ aggregate_id: id, kind })).length;

  beforeAll(async () => {
    db = await openTestDatabase();
    t = await startTestPlatform({ db, env: secrets, paymentsEngine: FAST_ENGINE });
    const ob = await openBankingSeeds(t);
    alpha = await ob.bank();
    // Many exempt orders on one consent: the caps on exemptions (tested in sca-exemption-caps) must not send them to SCA.
    const raised = await t.rest('PATCH', `/banks/${alpha.handle}`, {
      headers: { 'x-service-bank-key': alpha.bankKey },
      body: { sca_exemption_max_count: 1000, sca_exemption_cumulative_limit: 1_000_000_000 },
    });
    expect(raised.status).toBe(200);
    beta = await startPaymentBank(t);
    alice = await alpha.customer({ balance: 1_000_000 });
    poor = await alpha.customer({ balance: 1_000 });
    bob = await alpha.customer({ balance: 0 });
    carol = await beta.customer({ balance: 0 });
    tpp = await t.seed.registerTpp({ name: 'Order App' });
    grant = await ob.grant(
      tpp.tppAccessToken,
      alpha.handle,
      [
        { iban: alice.iban, bankHandle: alpha.handle },
        { iban: poor.iban, bankHandle: alpha.handle },
      ],
      ALL_OB_SCOPES,
    );
  });
  afterAll(async () => {
    await alpha.sandbox.stop();
    await beta.sandbox.stop();
    await t.stop();
    await db.close();
  });

  it('same bank: COMPLETED, the money moved once (debit and credit with the order id as reference), the TPP told', async () => {
    const before = { alice: await alpha.balance(alice.iban), bob: await alpha.balance(bob.iban) };
    const id = await pay(t, 0, bob, 10_000);
    const done = await reaches(t, id, 'COMPLETED');
    expect(done).toMatchObject({ settlement_type: 'internal', failure_code: null, completed_at: expect.any(String) });
    expect(await lines(alpha, id)).toEqual([`CREDIT ${bob.iban} 10000`, `DEBIT ${alice.iban} 10000`]);
    expect(await alpha.balance(alice.iban)).toBe(before.alice - 10_000);
    expect(await alpha.balance(bob.iban)).toBe(before.bob + 10_000);
    expect(await orderEvents(id)).toEqual([
      `payment_order.processing ${tpp.tppId}`,
      `payment_order.completed ${tpp.tppId}`,
    ]);
  });

  it('cross bank: over the rail to COMPLETED after the creditor bank confirms, with an interbank obligation', async () => {
    const id = await pay(t, 0, carol, 20_000);
    const done = await reaches(t, id, 'COMPLETED');
    expect(done.settlement_type).toBe('rail');
    expect(await lines(alpha, id)).toEqual([`DEBIT ${alice.iban} 20000`]);
    expect(await lines(beta, id)).toEqual([`CREDIT ${carol.iban} 20000`]);
    expect(await beta.balance(carol.iban)).toBe(20_000);
    expect(await db.knex('payments.interbank_obligations').where({ session_id: id })).toMatchObject([
      { debtor_bank: alpha.handle, creditor_bank: beta.handle, amount: '20000' },
    ]);
    expect(
      await db.knex('payments.credit_confirmations').where({ payment_reference: id, outcome: 'accepted' }),
    ).toHaveLength(1);
  });

  it('insufficient funds: FAILED with INSUFFICIENT_FUNDS, nothing moved', async () => {
    const id = await pay(t, 1, bob, 5_000);
    const failed = await reaches(t, id, 'FAILED');
    expect(failed.failure_code).toBe('INSUFFICIENT_FUNDS');
    expect(await lines(alpha, id)).toEqual([]);
    expect(await alpha.balance(poor.iban)).toBe(1_000);
    expect(await orderEvents(id)).toEqual([
      `payment_order.processing ${tpp.tppId}`,
      `payment_order.failed ${tpp.tppId}`,
    ]);
  });

  it('a bank refusal for another reason than funds: REJECTED with PAYMENT_ORDER_REJECTED', async () => {
    alpha.sandbox.injectFaults({ errorRate: 1, errorStatus: 403, operations: ['debit'], times: 1 });
    const id = await pay(t, 0, bob, 3_000);
    const rejected = await reaches(t, id, 'REJECTED');
    expect(rejected).toMatchObject({ failure_code: 'PAYMENT_ORDER_REJECTED', rejected_at: expect.any(String) });
    expect(await lines(alpha, id)).toEqual([]);
    expect(await orderEvents(id)).toEqual([
      `payment_order.processing ${tpp.tppId}`,
      `payment_order.rejected ${tpp.tppId}`,
    ]);
  });

  it('a duplicate movement.requested executes once; one for a finished movement only answers again', async () => {
    const duplicate = async (id: string) => {
      const original = await db
        .knex('open_banking.outbox')
        .where({ aggregate_id: id, kind: 'movement.requested' })
        .first();
      await db.knex('open_banking.outbox').insert({
        id: `evt_dup${randomUUID().replace(/-/g, '')}`,
        kind: original.kind,
        aggregate_type: original.aggregate_type,
        aggregate_id: original.aggregate_id,
        audience: null,
        data: JSON.stringify(original.data),
        created_at: new Date(),
        published_at: null,
      });
    };
    const id = await pay(t, 0, bob, 4_000);
    await duplicate(id); // while the first request is (probably) still being executed
    await reaches(t, id, 'COMPLETED');
    // The first copy may have reached payments only after the movement finished (then it too was
    // answered again): counted once it has been taken off the bus, so the next copy's answer is told apart.
    await eventually(
      async () =>
        (
          await db
            .knex('open_banking.outbox')
            .where({ aggregate_id: id, kind: 'movement.requested' })
            .whereNull('published_at')
        ).length === 0
          ? true
          : undefined,
      'the first copy published',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const answered = await answers(id, 'movement.completed');
    expect([1, 2]).toContain(answered);
    await duplicate(id); // after the movement finished
    await eventually(
      async () => ((await answers(id, 'movement.completed')) === answered + 1 ? true : undefined),
      'the outcome to be answered again',
    );
    expect(await lines(alpha, id)).toEqual([`CREDIT ${bob.iban} 4000`, `DEBIT ${alice.iban} 4000`]);
    expect(await db.knex('payments.payment_executions').where({ movement_id: id })).toMatchObject([
      { kind: 'payment_order', step: 'done' },
    ]);
    expect((await orderEvents(id)).filter((event) => event.startsWith('payment_order.completed'))).toHaveLength(1);
  });

  it('a crash between debit and credit: the next process finishes the order with the same references', async () => {
    await t.stop();
    const first = await startTestPlatform({ db, env: secrets, paymentsEngine: STUCK_ENGINE });
    for (const bank of [alpha, beta])
      await bank.sandbox.configureGateway({ url: first.platform.restUrl, bankKey: bank.bankKey });
    const before = await alpha.balance(alice.iban);
    alpha.sandbox.injectFaults({ hang: true, operations: ['credit'], times: 1 });
    const id = await pay(first, 0, bob, 7_000);
    // Same bank, the debit is recorded with the credit's outcome: the core has it, the row is still at `debit`.
    await eventually(
      async () => ((await lines(alpha, id)).length === 1 ? true : undefined),
      'the debit to be booked at the core',
    );
    expect(await lines(alpha, id)).toEqual([`DEBIT ${alice.iban} 7000`]);
    expect(await db.knex('payments.payment_executions').where({ movement_id: id }).first()).toMatchObject({
      step: 'debit',
    });

    await first.stop();
    t = await startTestPlatform({ db, env: secrets, paymentsEngine: FAST_ENGINE });
    for (const bank of [alpha, beta])
      await bank.sandbox.configureGateway({ url: t.platform.restUrl, bankKey: bank.bankKey });
    await reaches(t, id, 'COMPLETED');
    expect(await lines(alpha, id)).toEqual([`CREDIT ${bob.iban} 7000`, `DEBIT ${alice.iban} 7000`]);
    expect(await lines(alpha, `${id}:reversal`)).toEqual([]);
    expect(await alpha.balance(alice.iban)).toBe(before - 7_000);
  });
});
