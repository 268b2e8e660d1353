import { createLogger } from '@gateway/kernel';
import { call } from '@gateway/rest-compat/testing';
import { startTestBanks, TEST_OTP, type TestBanks } from '@gateway/bank-sandbox';
import { approveConsent, createConsent } from '../support/consent-flow';
import { ALL_OB_SCOPES, OB_REDIRECT, openBankingSeeds } from '../support/open-banking';
import { bearer, eventually, FAST_ENGINE, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * A test TPP lives in the test world (API-CONTRACT "Test mode"): its consent is approved with the
 * test bank's OTP, its account reads come from the test bank, and its payment orders move money
 * there, never at the bank's live core (here a sandbox bank, whose ledger is the evidence).
 */
describe('test mode: Open Banking with a test TPP', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  let alice: Customer;
  let bob: Customer;
  let ledger: TestBanks;

  /** Consent requested by the TPP, approved on the consent page's JSON endpoint, tokens from the code grant. */
  const granted = async (tppToken: string, customer: Pick<Customer, 'alias' | 'otp'>) => {
    const consent = await createConsent(t, tppToken, {
      bank_handle: bank.handle,
      redirect_uri: OB_REDIRECT,
      scopes: ALL_OB_SCOPES,
    });
    const redirect = await approveConsent(t, consent.consentId, customer);
    const token = await call(t.platform.restUrl, 'POST', '/ob/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: redirect.get('code')!,
        redirect_uri: OB_REDIRECT,
        consent_id: consent.consentId,
        code_verifier: consent.codeVerifier,
      }).toString(),
    });
    expect(token.status).toBe(200);
    return {
      consentId: consent.consentId,
      headers: { authorization: `Bearer ${token.body.access_token}`, 'x-consent-id': consent.consentId },
    };
  };

  const balanceOf = async (headers: Record<string, string>, accountId: string) =>
    (await t.rest('GET', `/ob/accounts/${accountId}/balances`, { headers })).body.balances[0].amount as number;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    const ob = await openBankingSeeds(t);
    bank = await ob.bank();
    alice = await bank.customer({ balance: 50_000 });
    bob = await bank.customer({ balance: 0 });
    ledger = await startTestBanks({ db: t.platform.db, logger: createLogger('test', 'silent') });
    ledger.core(bank);
  });
  afterAll(async () => {
    await ledger?.stop();
    await bank?.sandbox.stop();
    await t?.stop();
  });

  it("approves with the test bank's OTP, reads the test bank's balance and pays there; the live core never moves", async () => {
    const tpp = await t.seed.registerTpp({ name: 'Test Budgeting', mode: 'test' });
    // The customer's own OTP is for the live world; the test bank knows 123456.
    await expect(granted(tpp.tppAccessToken, alice)).rejects.toThrow();
    const grant = await granted(tpp.tppAccessToken, { alias: alice.alias, otp: TEST_OTP });
    expect(
      (await t.rest('GET', `/ob/consents/${grant.consentId}`, { headers: bearer(tpp.tppAccessToken) })).body.livemode,
    ).toBe(false);

    const accounts = (await t.rest('GET', '/ob/accounts', { headers: grant.headers })).body.accounts as Array<{
      account_id: string;
    }>;
    expect(await balanceOf(grant.headers, accounts[0]!.account_id)).toBe(100_000_000);

    const order = await t.rest('POST', '/ob/payment-orders', {
      headers: grant.headers,
      body: {
        source_account_id: accounts[0]!.account_id,
        destination: { type: 'iban', value: bob.iban },
        amount: 2_500,
        currency: 'LYD',
        description: 'Test order',
      },
    });
    expect([order.status, order.body.livemode]).toEqual([expect.any(Number), false]);
    const id = order.body.payment_order_id as string;
    await eventually(
      async () =>
        (await t.rest('GET', `/ob/payment-orders/${id}`, { headers: grant.headers })).body.status === 'COMPLETED'
          ? true
          : undefined,
      'the test order to complete',
    );
    expect([await bank.balance(alice.iban), await bank.balance(bob.iban)]).toEqual([50_000, 0]);
    expect(await bank.movements(id)).toEqual([]);
    expect([await ledger.balance(bank.handle, alice.iban), await ledger.balance(bank.handle, bob.iban)]).toEqual([
      100_000_000 - 2_500,
      100_000_000 + 2_500,
    ]);
  });

  it("a live TPP reads the customer's real balance with the customer's own OTP", async () => {
    const tpp = await t.seed.registerTpp({ name: 'Live Budgeting', mode: 'live' });
    const grant = await granted(tpp.tppAccessToken, alice);
    const accounts = (await t.rest('GET', '/ob/accounts', { headers: grant.headers })).body.accounts as Array<{
      account_id: string;
    }>;
    expect(await balanceOf(grant.headers, accounts[0]!.account_id)).toBe(50_000);
  });
});
