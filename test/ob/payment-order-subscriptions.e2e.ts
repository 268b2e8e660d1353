import { call } from '@gateway/rest-compat/testing';
import { testNamespace } from '@gateway/events/testing';
import { ALL_OB_SCOPES, openBankingSeeds, type Grant } from '../support/open-banking';
import { FAST_ENGINE, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { subscribe, type SubscriptionRecord } from '../support/subscriptions';

const ORDER_UPDATES = `subscription Updates($id: ID!) { paymentOrderUpdated(id: $id) { id status amount currency } }`;
const ORDER = ['PENDING_SCA', 'PROCESSING', 'COMPLETED'];

type Tpp = { tppId: string; tppAccessToken: string };

/** paymentOrderUpdated end to end: an order above the SCA limit followed from PENDING_SCA to COMPLETED by the TPP that made it. */
describe('GraphQL subscriptions: paymentOrderUpdated', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  let alice: Customer;
  let bob: Customer;
  let tpp: Tpp;
  let otherTpp: Tpp;
  let grant: Grant;
  const open: SubscriptionRecord[] = [];

  const follow = (orderId: string, owner: Tpp) => {
    const record = subscribe(
      t.platform.graphqlUrl,
      { authorization: `Bearer ${owner.tppAccessToken}` },
      ORDER_UPDATES,
      { id: orderId },
    );
    open.push(record);
    return record;
  };
  const createAboveLimit = async () => {
    const answer = await call(t.platform.restUrl, 'POST', '/ob/payment-orders', {
      headers: grant.headers(),
      body: {
        source_account_id: grant.accountIds[0],
        destination: { type: 'iban', value: bob.iban },
        amount: 150_000,
        currency: 'LYD',
        description: 'Sofa',
      },
    });
    expect(answer.status).toBe(202);
    return answer.body.payment_order_id as string;
  };

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE, busNamespace: testNamespace() });
    const ob = await openBankingSeeds(t);
    bank = await ob.bank();
    alice = await bank.customer({ balance: 1_000_000 });
    bob = await bank.customer({ balance: 0 });
    tpp = await t.seed.registerTpp({ name: 'Sofa Shop App' });
    otherTpp = await t.seed.registerTpp({ name: 'Other App' });
    grant = await ob.grant(
      tpp.tppAccessToken,
      bank.handle,
      [{ iban: alice.iban, bankHandle: bank.handle }],
      ALL_OB_SCOPES,
    );
  });
  afterEach(async () => {
    for (const record of open.splice(0)) await record.dispose();
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it('the owning TPP sees PENDING_SCA first, then each later status once and in order, ending with COMPLETED and completion', async () => {
    const orderId = await createAboveLimit();
    const record = follow(orderId, tpp);
    await record.waitForMessages(1, 'the current state');
    expect(record.messages[0]!.data?.paymentOrderUpdated).toEqual({
      id: orderId,
      status: 'PENDING_SCA',
      amount: 150_000,
      currency: 'LYD',
    });

    expect(
      (await call(t.platform.restUrl, 'POST', `/ob/sca/${orderId}/authorize`, { body: { otp: alice.otp } })).status,
    ).toBe(200);
    await record.waitForMessages(ORDER.length, 'COMPLETED');
    const seen = record.messages.map((message) => message.data?.paymentOrderUpdated?.status as string);
    // PROCESSING may be passed over when the order completes before its event is read; never repeated or reordered.
    expect(seen[0]).toBe('PENDING_SCA');
    expect(seen.at(-1)).toBe('COMPLETED');
    expect(seen.map((status) => ORDER.indexOf(status))).toEqual(
      [...new Set(seen.map((status) => ORDER.indexOf(status)))].sort(),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(record.completed).toBe(true);
  });

  it('another TPP is refused as for an unknown id: PAYMENT_ORDER_NOT_FOUND', async () => {
    const orderId = await createAboveLimit();
    for (const id of [orderId, 'po_unknown000000000000000000']) {
      const record = follow(id, otherTpp);
      await record.waitForMessages(1, 'the refusal');
      expect((record.errors[0] as Array<{ extensions: { code: string } }>)[0]!.extensions.code).toBe(
        'PAYMENT_ORDER_NOT_FOUND',
      );
    }
  });
});
