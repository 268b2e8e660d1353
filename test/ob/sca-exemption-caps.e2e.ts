import { call } from '@gateway/rest-compat/testing';
import { openBankingSeeds, ALL_OB_SCOPES, type Grant, type OpenBankingSeeds } from '../support/open-banking';
import { eventually, FAST_ENGINE, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Cumulative caps on SCA exemptions (PSD2 RTS art. 16; issue 28: a payments:write consent could
 * send order after order just under sca_exemption_limit): per consent, the count and the amount of
 * exempted orders since the last SCA, the bank's sca_exemption_max_count and
 * sca_exemption_cumulative_limit. Over either, the order waits for SCA like one above the limit.
 */
describe('Open Banking payment orders: cumulative SCA exemption caps', () => {
  let t: TestPlatform;
  let base: string;
  let ob: OpenBankingSeeds;
  let bank: PaymentBank;
  let alice: Customer;
  let bob: Customer;

  const newGrant = async (): Promise<Grant> => {
    // A TPP per test: the creation limit (100 a minute) is the TPP's.
    const tpp = await t.seed.registerTpp({ name: 'Pay App' });
    return ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: alice.iban, bankHandle: bank.handle }], ALL_OB_SCOPES);
  };
  const order = (grant: Grant, amount: number) =>
    call(base, 'POST', '/ob/payment-orders', {
      headers: grant.headers(),
      body: {
        source_account_id: grant.accountIds[0],
        destination: { type: 'iban', value: bob.iban },
        amount,
        currency: 'LYD',
      },
    });
  /** Each answer as status code and order status, e.g. "201 PROCESSING" or "202 PENDING_SCA". */
  const outcomes = async (answers: Array<Promise<{ status: number; body: any }>>) =>
    (await Promise.all(answers)).map((answer) => `${answer.status} ${answer.body.status}`);
  const EXEMPT = '201 PROCESSING';
  const SCA = '202 PENDING_SCA';

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    ob = await openBankingSeeds(t);
    bank = await ob.bank();
    alice = await bank.customer({ balance: 10_000_000 });
    bob = await bank.customer({ balance: 0 });
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it('a bank registers with the defaults: 5 exempted orders and 100000 minor units (the RTS figures in LYD) since the last SCA', async () => {
    const record = await call(base, 'GET', `/banks/${bank.handle}`, {
      headers: { 'x-service-bank-key': bank.bankKey },
    });
    expect(record.body.capabilities).toMatchObject({
      sca_exemption_limit: 100_000,
      sca_exemption_max_count: 5,
      sca_exemption_cumulative_limit: 100_000,
    });
    // With them: five orders of 10000 are exempt, the sixth waits for SCA.
    const grant = await newGrant();
    const answers: string[] = [];
    for (let i = 0; i < 6; i += 1) answers.push(...(await outcomes([order(grant, 10_000)])));
    expect(answers).toEqual([EXEMPT, EXEMPT, EXEMPT, EXEMPT, EXEMPT, SCA]);
  });

  describe('with caps of 3 orders and 10000 minor units', () => {
    beforeAll(async () => {
      const patched = await call(base, 'PATCH', `/banks/${bank.handle}`, {
        headers: { 'x-service-bank-key': bank.bankKey },
        body: { sca_exemption_limit: 5_000, sca_exemption_max_count: 3, sca_exemption_cumulative_limit: 10_000 },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        sca_exemption_limit: 5_000,
        sca_exemption_max_count: 3,
        sca_exemption_cumulative_limit: 10_000,
      });
    });

    it('the count: the fourth order since the approval needs SCA, however small; an order above the limit counts for nothing', async () => {
      const grant = await newGrant();
      const answers: string[] = [];
      for (const amount of [100, 6_000, 100, 100, 100, 100]) answers.push(...(await outcomes([order(grant, amount)])));
      expect(answers).toEqual([EXEMPT, SCA, EXEMPT, EXEMPT, SCA, SCA]);
    });

    it('the amount: an order taking the exempted total since the approval above the cap needs SCA; a smaller one that fits is still exempt', async () => {
      const grant = await newGrant();
      const answers: string[] = [];
      for (const amount of [4_000, 4_000, 2_001, 2_000]) answers.push(...(await outcomes([order(grant, amount)])));
      expect(answers).toEqual([EXEMPT, EXEMPT, SCA, EXEMPT]);
    });

    it('an SCA on the consent starts the count and the amount again', async () => {
      const grant = await newGrant();
      const answers: string[] = [];
      for (const amount of [4_000, 4_000]) answers.push(...(await outcomes([order(grant, amount)])));
      const over = await order(grant, 4_000);
      expect([...answers, `${over.status} ${over.body.status}`]).toEqual([EXEMPT, EXEMPT, SCA]);
      const id = over.body.payment_order_id as string;
      expect((await call(base, 'POST', `/ob/sca/${id}/authorize`, { body: { otp: alice.otp } })).status).toBe(200);
      await eventually(
        async () =>
          (await call(base, 'GET', `/ob/payment-orders/${id}`, { headers: grant.headers() })).body.status !==
            'PENDING_SCA' || undefined,
        'SCA passed',
      );
      const after: string[] = [];
      for (const amount of [4_000, 4_000, 2_001]) after.push(...(await outcomes([order(grant, amount)])));
      expect(after).toEqual([EXEMPT, EXEMPT, SCA]);
    });

    it('orders sent at once are decided one after the other: no more than the cap slip through', async () => {
      const grant = await newGrant();
      const answers = await outcomes(Array.from({ length: 8 }, () => order(grant, 100)));
      expect(answers.filter((answer) => answer === EXEMPT)).toHaveLength(3);
      expect(answers.filter((answer) => answer === SCA)).toHaveLength(5);
      const exempted = await t.platform.db
        .knex('open_banking.payment_orders')
        .where({ consent_id: grant.consentId })
        .whereNull('sca_url')
        .count({ n: '*' });
      expect(Number(exempted[0]!.n)).toBe(3);
    });
  });
});
