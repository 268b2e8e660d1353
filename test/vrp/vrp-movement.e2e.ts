import { randomUUID } from 'node:crypto';
import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import type { PlatformEvent, Subscription } from '@gateway/events';
import { newId } from '@gateway/kernel';
import { eventually, FAST_ENGINE, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Variable recurring payments as the payments engine's fifth movement kind (issue 51, item 4):
 * open-banking asks for each VRP payment as it asks for a payment order, movement.requested on the
 * bus (aggregate 'movement', no audience) with the payment's vrp_ id, and hears the same answers
 * back (movement.completed / movement.failed). Here the request is published on the platform's
 * own bus as open-banking would publish it, so the engine's side is tested alone.
 */
describe('VRP payments executed by the payment engine (movement.requested with a vrp_ id)', () => {
  let db: Database;
  let t: TestPlatform;
  let alpha: PaymentBank;
  let beta: PaymentBank;
  let alice: Customer;
  let poor: Customer;
  let bob: Customer;
  let carol: Customer;
  let listening: Subscription;
  const heard: PlatformEvent[] = [];
  const TPP = 'tpp_vrpmovementtest';

  const vrpId = () => `vrp_${randomUUID().replaceAll('-', '')}`;
  /** What open-banking publishes for a VRP payment: the payment order's request data, with a vrp_ id. */
  const requestData = (id: string, payer: Customer, payee: Customer, amount: number) => ({
    movement_id: id,
    tpp_id: TPP,
    livemode: true,
    debtor_bank: payer.bank.handle,
    debtor_iban: payer.iban,
    creditor_bank: payee.bank.handle,
    creditor_iban: payee.iban,
    amount: String(amount),
    currency: 'LYD',
    description: 'VRP sweep',
    request_id: newId('request'),
  });
  const request = (data: Record<string, unknown>) =>
    t.platform.bus.publish({
      id: newId('event'),
      kind: 'movement.requested',
      aggregateType: 'movement',
      aggregateId: String(data.movement_id),
      audience: null,
      createdAt: new Date().toISOString(),
      data,
    });
  const answersFor = (id: string, kind?: string) =>
    heard.filter((event) => event.aggregateId === id && (kind === undefined || event.kind === kind));
  const answer = (id: string, kind: string, count = 1) =>
    eventually(
      async () => (answersFor(id, kind).length >= count ? answersFor(id, kind)[count - 1] : undefined),
      `${kind} #${count} for ${id}`,
      20_000,
    );
  const lines = async (bank: PaymentBank, reference: string) =>
    (await bank.movements(reference)).map((line) => `${line.operation} ${line.iban} ${line.amount}`).sort();
  const vrpRow = (id: string) => db.knex('payments.vrp_movements').where({ id }).first();

  beforeAll(async () => {
    db = await openTestDatabase();
    t = await startTestPlatform({ db, paymentsEngine: FAST_ENGINE });
    alpha = await startPaymentBank(t);
    beta = await startPaymentBank(t);
    alice = await alpha.customer({ balance: 1_000_000 });
    poor = await alpha.customer({ balance: 1_000 });
    bob = await alpha.customer({ balance: 0 });
    carol = await beta.customer({ balance: 0 });
    listening = await t.platform.bus.subscribe('movement.*', async (event) => {
      if (event.kind !== 'movement.requested') heard.push(event);
    });
  }, 120_000);
  afterAll(async () => {
    await listening?.close();
    await alpha?.sandbox.stop();
    await beta?.sandbox.stop();
    await t?.stop();
    await db?.close();
  });

  it('same bank: movement.completed comes back, the money moved once at the core with the vrp_ id as reference', async () => {
    const before = { alice: await alpha.balance(alice.iban), bob: await alpha.balance(bob.iban) };
    const id = vrpId();
    await request(requestData(id, alice, bob, 10_000));
    const completed = await answer(id, 'movement.completed');
    expect(completed).toMatchObject({ aggregateType: 'movement', aggregateId: id, audience: null });
    expect(completed.data).toEqual({
      movement_id: id,
      status: 'COMPLETED',
      settlement_type: 'internal',
      creditor_bank: alpha.handle,
    });
    expect(await lines(alpha, id)).toEqual([`CREDIT ${bob.iban} 10000`, `DEBIT ${alice.iban} 10000`]);
    expect(await alpha.balance(alice.iban)).toBe(before.alice - 10_000);
    expect(await alpha.balance(bob.iban)).toBe(before.bob + 10_000);
    expect(await vrpRow(id)).toMatchObject({ status: 'COMPLETED', tpp_id: TPP, livemode: true, amount: '10000' });
    expect(await db.knex('payments.payment_executions').where({ movement_id: id })).toMatchObject([
      { kind: 'vrp_payment', step: 'done' },
    ]);
    // Its own table: nothing of it is a payment order's.
    expect(await db.knex('payments.order_movements').where({ id })).toEqual([]);
  });

  it('cross bank: over the rail to movement.completed after the creditor bank confirms, with an interbank obligation', async () => {
    const id = vrpId();
    await request(requestData(id, alice, carol, 20_000));
    const completed = await answer(id, 'movement.completed');
    expect(completed.data).toMatchObject({ status: 'COMPLETED', settlement_type: 'rail', creditor_bank: beta.handle });
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

  it('insufficient funds: movement.failed with INSUFFICIENT_FUNDS and refusal funds, nothing moved', async () => {
    const id = vrpId();
    await request(requestData(id, poor, bob, 5_000));
    const failed = await answer(id, 'movement.failed');
    expect(failed.data).toEqual({
      movement_id: id,
      status: 'FAILED',
      settlement_type: 'internal',
      creditor_bank: alpha.handle,
      failure_code: 'INSUFFICIENT_FUNDS',
      failure_detail: expect.any(String),
      refusal: 'funds',
    });
    expect(await lines(alpha, id)).toEqual([]);
    expect(await alpha.balance(poor.iban)).toBe(1_000);
  });

  it('the same vrp_ id requested again moves nothing: the first outcome is answered again', async () => {
    const id = vrpId();
    const data = requestData(id, alice, bob, 4_000);
    await request(data);
    await answer(id, 'movement.completed');
    const before = { alice: await alpha.balance(alice.iban), bob: await alpha.balance(bob.iban) };
    await request(data);
    const again = await answer(id, 'movement.completed', 2);
    expect(again.data).toEqual({
      movement_id: id,
      status: 'COMPLETED',
      settlement_type: 'internal',
      creditor_bank: alpha.handle,
    });
    expect(await lines(alpha, id)).toEqual([`CREDIT ${bob.iban} 4000`, `DEBIT ${alice.iban} 4000`]);
    expect(await alpha.balance(alice.iban)).toBe(before.alice);
    expect(await alpha.balance(bob.iban)).toBe(before.bob);
    expect(await db.knex('payments.payment_executions').where({ movement_id: id })).toHaveLength(1);
    expect(answersFor(id).map((event) => event.kind)).toEqual(['movement.completed', 'movement.completed']);
  });

  it("over the debtor bank's net debit cap: movement.failed with NET_DEBIT_CAP_EXCEEDED, nothing debited", async () => {
    const admin = { 'x-service-admin-key': t.adminKey };
    const capped = await t.rest('PUT', `/banks/${alpha.handle}/net-debit-caps/LYD`, {
      headers: admin,
      body: { net_debit_cap: 0 },
    });
    expect(capped.status).toBe(200);
    try {
      const id = vrpId();
      const before = await alpha.balance(alice.iban);
      await request(requestData(id, alice, carol, 3_000));
      const failed = await answer(id, 'movement.failed');
      expect(failed.data).toMatchObject({
        movement_id: id,
        status: 'FAILED',
        settlement_type: 'rail',
        failure_code: 'NET_DEBIT_CAP_EXCEEDED',
        refusal: 'declined',
      });
      expect(await vrpRow(id)).toMatchObject({ status: 'FAILED', failure_code: 'NET_DEBIT_CAP_EXCEEDED' });
      expect(await db.knex('payments.payment_executions').where({ movement_id: id })).toEqual([]);
      expect(await lines(alpha, id)).toEqual([]);
      expect(await alpha.balance(alice.iban)).toBe(before);
    } finally {
      await t.rest('DELETE', `/banks/${alpha.handle}/net-debit-caps/LYD`, { headers: admin });
    }
  });
});
