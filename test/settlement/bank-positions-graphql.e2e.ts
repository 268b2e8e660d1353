import { gql } from '../support/graphql';
import { FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { admin, pay } from './support';

interface Position {
  currency: string;
  livemode: boolean;
  netDebitCap: number | null;
  position: number;
  reserved: number;
  headroom: number | null;
}
const BANK_WITH_POSITIONS = gql<
  { bank: { handle: string; displayName: string; positions: Position[] | null } },
  { handle: string }
>(`query BankWithPositions($handle: String!) {
  bank(handle: $handle) { handle displayName positions { currency livemode netDebitCap position reserved headroom } }
}`);
const BANK_POSITIONS = gql<{ bankPositions: Position[] }, { handle: string }>(`query BankPositions($handle: String!) {
  bankPositions(handle: $handle) { currency livemode netDebitCap position reserved headroom }
}`);

/**
 * `Bank.positions` (API-CONTRACT "Net debit caps and positions", issue 48): the banks subgraph
 * answers the bank, payments adds its positions through the router, for the operator and for the
 * bank itself; another bank gets the bank's public fields and FORBIDDEN for its positions.
 */
describe('Bank.positions over GraphQL', () => {
  let t: TestPlatform;
  let a: PaymentBank;
  let b: PaymentBank;

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE, env: { SETTLEMENT_INTERVAL_SECONDS: '0' } });
    [a, b] = [await startPaymentBank(t), await startPaymentBank(t)];
    const merchant = await t.seed.createMerchant({ name: 'Positions Shop' });
    const cap = await t.rest('PUT', `/banks/${a.handle}/net-debit-caps/LYD`, {
      headers: admin(t),
      body: { net_debit_cap: 10_000 },
    });
    expect(cap.status).toBe(200);
    await pay(t, merchant.apiKey, await a.customer(), await b.customer(), 1_500);
  }, 120_000);
  afterAll(async () => {
    await a?.sandbox.stop();
    await b?.sandbox.stop();
    await t?.stop();
  });

  const live = { currency: 'LYD', livemode: true };

  it("answers a bank's positions beside its own fields, to the operator and to the bank itself, as bankPositions does", async () => {
    const expected = { ...live, netDebitCap: 10_000, position: 1_500, reserved: 0, headroom: 8_500 };
    for (const headers of [admin(t), { 'x-service-bank-key': a.bankKey }]) {
      const { bank } = await t.execute(BANK_WITH_POSITIONS, { handle: a.handle }, headers);
      expect(bank).toEqual({ handle: a.handle, displayName: expect.any(String), positions: [expected] });
      expect((await t.execute(BANK_POSITIONS, { handle: a.handle }, headers)).bankPositions).toEqual([expected]);
    }
    // The creditor's side: owed to it, no cap.
    const { bank } = await t.execute(BANK_WITH_POSITIONS, { handle: b.handle }, admin(t));
    expect(bank.positions).toEqual([{ ...live, netDebitCap: null, position: -1_500, reserved: 0, headroom: null }]);
  });

  it("gives another bank the bank's public fields and FORBIDDEN for its positions", async () => {
    const answer = await t.executeExpectingErrors(
      BANK_WITH_POSITIONS,
      { handle: a.handle },
      { 'x-service-bank-key': b.bankKey },
    );
    expect(answer.data).toEqual({ bank: { handle: a.handle, displayName: expect.any(String), positions: null } });
    expect(answer.errors.map((error) => [error.path, error.extensions?.code])).toEqual([
      [['bank', 'positions'], 'FORBIDDEN'],
    ]);
  });
});
