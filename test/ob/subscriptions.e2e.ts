import { call } from '@gateway/rest-compat/testing';
import { testNamespace } from '@gateway/events/testing';
import { approveConsent, createConsent, rejectOnConsentPage } from '../support/consent-flow';
import { OB_REDIRECT, openBankingSeeds } from '../support/open-banking';
import { bearer, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { subscribe, type SubscriptionRecord } from '../support/subscriptions';

const CONSENT_UPDATES = `subscription Updates($id: ID!) {
  consentUpdated(id: $id) { id status tppId accountIds bank { handle displayName } }
}`;

type Tpp = { tppId: string; tppAccessToken: string };
type Refusal = Array<{ extensions: { code: string } }>;

/** consentUpdated end to end: the router's graphql-ws, open-banking's relay and the bus, the gateway per event. */
describe('GraphQL subscriptions: consentUpdated', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  let alice: Customer;
  let tpp: Tpp;
  let otherTpp: Tpp;
  const open: SubscriptionRecord[] = [];

  const track = (record: SubscriptionRecord) => (open.push(record), record);
  const newConsent = async (owner = tpp) =>
    (
      await createConsent(t, owner.tppAccessToken, {
        bank_handle: bank.handle,
        redirect_uri: OB_REDIRECT,
        scopes: ['accounts:read'],
      })
    ).consentId;
  const follow = (consentId: string, owner = tpp, url = t.platform.graphqlUrl) =>
    track(subscribe(url, { authorization: `Bearer ${owner.tppAccessToken}` }, CONSENT_UPDATES, { id: consentId }));
  const statuses = (record: SubscriptionRecord) =>
    record.messages.map((message) => message.data?.consentUpdated?.status);
  const refusal = (record: SubscriptionRecord) => (record.errors[0] as Refusal)[0]!.extensions.code;

  beforeAll(async () => {
    // Its own bus namespace: on RabbitMQ this file's router sees only its own platform's events.
    t = await startTestPlatform({ busNamespace: testNamespace() });
    const ob = await openBankingSeeds(t);
    bank = await ob.bank();
    alice = await bank.customer();
    tpp = await t.seed.registerTpp({ name: 'Live Budget App', redirect_uris: [OB_REDIRECT] });
    otherTpp = await t.seed.registerTpp({ name: 'Other App', redirect_uris: [OB_REDIRECT] });
  });
  afterEach(async () => {
    for (const record of open.splice(0)) await record.dispose();
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it.each([
    ['the router', () => t.platform.graphqlUrl],
    ["rest-compat's /graphql proxy", () => `${t.platform.restUrl}/graphql`],
  ])(
    'through %s, the owning TPP sees AWAITING_AUTHORISATION, AUTHORISED, REVOKED once each, in order, with the bank from the banks subgraph, then completion',
    async (_via, url) => {
      const consentId = await newConsent();
      const record = follow(consentId, tpp, url());
      await record.waitForMessages(1, 'the current state');
      await approveConsent(t, consentId, alice);
      await record.waitForMessages(2, 'AUTHORISED');
      const deleted = await call(t.platform.restUrl, 'DELETE', `/ob/consents/${consentId}`, {
        headers: bearer(tpp.tppAccessToken),
      });
      expect(deleted.status).toBe(204);
      await record.ended;
      expect(record.errors).toEqual([]);
      expect(record.completed).toBe(true);
      expect(statuses(record)).toEqual(['AWAITING_AUTHORISATION', 'AUTHORISED', 'REVOKED']);
      for (const message of record.messages) {
        expect(message.data.consentUpdated).toMatchObject({
          id: consentId,
          tppId: tpp.tppId,
          bank: { handle: bank.handle, displayName: `Pay Bank ${bank.institutionCode}` },
        });
      }
      // Fields other than the status are read when the message is built: the accounts arrive with the approval.
      expect(record.messages[0]!.data.consentUpdated.accountIds).toEqual([]);
      expect(record.messages[1]!.data.consentUpdated.accountIds).toHaveLength(1);
    },
  );

  it("sees the customer's refusal (no webhook event in the spec) and ends there", async () => {
    const consentId = await newConsent();
    const record = follow(consentId);
    await record.waitForMessages(1, 'the current state');
    const rejected = await rejectOnConsentPage(t.platform.restUrl, consentId);
    expect(rejected.status).toBe(200);
    await record.ended;
    expect(record.errors).toEqual([]);
    expect(record.completed).toBe(true);
    expect(statuses(record)).toEqual(['AWAITING_AUTHORISATION', 'REJECTED']);
  });

  it('a consent already final answers its state once and completes', async () => {
    const consentId = await newConsent();
    expect(
      (await call(t.platform.restUrl, 'DELETE', `/ob/consents/${consentId}`, { headers: bearer(tpp.tppAccessToken) }))
        .status,
    ).toBe(204);
    const record = follow(consentId);
    await record.ended;
    expect(record.completed).toBe(true);
    expect(statuses(record)).toEqual(['REVOKED']);
  });

  it("refuses another TPP's consent, an unknown id and a merchant alike (CONSENT_NOT_FOUND), and a bad token at connection (4403)", async () => {
    const consentId = await newConsent();
    const stranger = follow(consentId, otherTpp);
    const unknown = follow('con_doesnotexist');
    const merchant = await t.seed.createMerchant();
    const asMerchant = track(
      subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${merchant.apiKey}` }, CONSENT_UPDATES, {
        id: consentId,
      }),
    );
    const badToken = track(
      subscribe(t.platform.graphqlUrl, { authorization: 'Bearer tpk_not_a_token' }, CONSENT_UPDATES, { id: consentId }),
    );
    await Promise.all([stranger.ended, unknown.ended, asMerchant.ended, badToken.ended]);
    for (const record of [stranger, unknown, asMerchant]) {
      expect(record.messages).toEqual([]);
      expect(refusal(record)).toBe('CONSENT_NOT_FOUND');
    }
    expect(badToken.closeCode).toBe(4403);
    // The stranger's refusal did not leave it following the consent: the owner's approval reaches no one else.
    const owner = follow(consentId);
    await owner.waitForMessages(1, 'the current state');
    await approveConsent(t, consentId, alice);
    await owner.waitForMessages(2, 'AUTHORISED');
    expect(stranger.messages).toEqual([]);
  });
});
