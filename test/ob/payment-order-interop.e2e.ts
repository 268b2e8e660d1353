import type { EngineSettings } from '@gateway/subgraph-payments';
import { call } from '@gateway/rest-compat/testing';
import { ALL_OB_SCOPES, openBankingSeeds, type Grant } from '../support/open-banking';
import { startMinimalBank, type MinimalBank, type MinimalCustomer } from '../support/minimal-bank';
import { eventually, FAST_ENGINE } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/** Short rail confirmation timings, so "completes on the evidence" fits in a test. */
const ENGINE: Partial<EngineSettings> = { ...FAST_ENGINE, confirmResendAfterMs: 400, confirmGiveUpAfterMs: 2_000 };

/**
 * Open Banking payment orders through bank cores written from the spec alone: the po_ reference
 * is what the cores see, refusals come in the core's own shape, and no creditor core confirms by
 * itself. Every order ends, and no money is kept or lost.
 */
describe('payment orders with bank cores written from the spec alone', () => {
  let t: TestPlatform;
  let alpha: MinimalBank;
  let beta: MinimalBank;
  let payer: MinimalCustomer;
  let poor: MinimalCustomer;
  let grant: Grant;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: ENGINE });
    const ob = await openBankingSeeds(t);
    alpha = await startMinimalBank(t);
    beta = await startMinimalBank(t);
    await ob.enableOpenBanking(alpha.handle, alpha.bankKey);
    payer = await alpha.customer({ balance: 100_000 });
    poor = await alpha.customer({ balance: 500 });
    const tpp = await t.seed.registerTpp({ name: 'Spec Orders' });
    grant = await ob.grant(
      tpp.tppAccessToken,
      alpha.handle,
      [
        { iban: payer.iban, bankHandle: alpha.handle },
        { iban: poor.iban, bankHandle: alpha.handle },
      ],
      ALL_OB_SCOPES,
    );
  });
  afterAll(async () => {
    await alpha.core.stop();
    await beta.core.stop();
    await t.stop();
  });

  const order = async (source: number, payee: { iban: string }, amount: number): Promise<string> => {
    const answer = await call(t.platform.restUrl, 'POST', '/ob/payment-orders', {
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
  const reaches = (id: string, status: string) =>
    eventually(async () => {
      const answer = await call(t.platform.restUrl, 'GET', `/ob/payment-orders/${id}`, { headers: grant.headers() });
      return answer.body?.status === status ? answer.body : undefined;
    }, `payment order ${id} ${status}`);
  const coreCalls = (bank: MinimalBank, path: string, reference: string) =>
    bank.core.calls.filter((c) => c.path === path && c.body?.reference === reference);

  it('same bank: debited and credited once with the spec fields only, COMPLETED', async () => {
    const payee = await alpha.customer({ balance: 0 });
    const before = alpha.core.balance(payer.iban);
    const id = await order(0, payee, 7_000);
    await reaches(id, 'COMPLETED');
    const debits = coreCalls(alpha, '/accounts/debit', id);
    expect(debits).toHaveLength(1);
    expect(Object.keys(debits[0]!.body!).sort()).toEqual(['amount', 'currency', 'description', 'iban', 'reference']);
    expect(coreCalls(alpha, '/accounts/credit', id)).toHaveLength(1);
    expect([alpha.core.balance(payer.iban), alpha.core.balance(payee.iban)]).toEqual([before - 7_000, 7_000]);
  });

  it('cross bank with a creditor core that never confirms: the credit is sent again with its po_ reference, then COMPLETED on the evidence', async () => {
    const payee = await beta.customer({ balance: 0 });
    const before = alpha.core.balance(payer.iban);
    const id = await order(0, payee, 12_000);
    const done = await reaches(id, 'COMPLETED');
    expect(done.settlement_type).toBe('rail');
    expect(coreCalls(beta, '/accounts/credit', id).length).toBeGreaterThanOrEqual(2);
    expect(coreCalls(alpha, '/accounts/debit', id)).toHaveLength(1);
    expect([alpha.core.balance(payer.iban), beta.core.balance(payee.iban)]).toEqual([before - 12_000, 12_000]);
  });

  it('a 422 {"error":"INSUFFICIENT_FUNDS"} from the core: FAILED with INSUFFICIENT_FUNDS, nothing moves', async () => {
    const payee = await beta.customer({ balance: 0 });
    const id = await order(1, payee, 4_000);
    const failed = await reaches(id, 'FAILED');
    expect(failed.failure_code).toBe('INSUFFICIENT_FUNDS');
    expect([alpha.core.balance(poor.iban), beta.core.balance(payee.iban)]).toEqual([500, 0]);
  });

  it('a debit the core refuses for another reason, in its own words (403 {"error":"ACCOUNT_BLOCKED"}): REJECTED, nothing moves', async () => {
    const payee = await alpha.customer({ balance: 0 });
    const before = alpha.core.balance(payer.iban);
    alpha.core.fail({ kind: 'status', path: '/accounts/debit', status: 403, body: '{"error": "ACCOUNT_BLOCKED"}' });
    const id = await order(0, payee, 3_000);
    const rejected = await reaches(id, 'REJECTED');
    expect(rejected.status).toBe('REJECTED');
    expect([alpha.core.balance(payer.iban), alpha.core.balance(payee.iban)]).toEqual([before, 0]);
  });
});
