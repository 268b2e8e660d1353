import { testNamespace } from '@gateway/events/testing';
import { openOpenBankingTestOrm } from '@gateway/subgraph-open-banking/testing';
import { vault } from '@gateway/vault';
import { createConsent } from '../support/consent-flow';
import { OB_REDIRECT, openBankingSeeds } from '../support/open-banking';
import { bearer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { subscribe, type SubscriptionRecord } from '../support/subscriptions';

const SESSION_UPDATES = `subscription Updates($id: ID!) { paymentSessionUpdated(id: $id) { id status } }`;
const CONSENT_UPDATES = `subscription Updates($id: ID!) { consentUpdated(id: $id) { id status } }`;
/** API-CONTRACT "Operator controls": open subscriptions closed with 4403 within 5 s. */
const CONTRACT_MS = 5_000;
/** The router's sweep period (2 s) and some: a socket still open after this was not going to be closed. */
const SWEEP_AND_MARGIN_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds from `since` until the record's socket closed, failing past `limitMs`. */
async function closedWithin(record: SubscriptionRecord, since: number, limitMs = CONTRACT_MS): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([record.ended, new Promise((resolve) => (timer = setTimeout(resolve, limitMs + 1_000)))]);
  clearTimeout(timer);
  const elapsed = Date.now() - since;
  expect(record.closeCode).toBeDefined();
  expect(elapsed).toBeLessThan(limitMs);
  return elapsed;
}

/** Open graphql-ws sockets follow their credential: rotated, revoked or expired, the socket goes (4403). */
describe('GraphQL subscriptions follow their credential', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  const open: SubscriptionRecord[] = [];
  const track = (record: SubscriptionRecord) => (open.push(record), record);

  const sessionOf = async (apiKey: string) => {
    const payee = await bank.customer({ balance: 0 });
    const answer = await t.rest('POST', '/payments/sessions', {
      headers: bearer(apiKey),
      body: { amount: 900, currency: 'LYD', destination: { type: 'alias', value: payee.alias }, reference: 'sub-1' },
    });
    expect(answer.status).toBe(201);
    return answer.body.session_id as string;
  };
  const followSession = (apiKey: string, sessionId: string) =>
    track(subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${apiKey}` }, SESSION_UPDATES, { id: sessionId }));

  beforeAll(async () => {
    t = await startTestPlatform({ busNamespace: testNamespace() });
    bank = await (await openBankingSeeds(t)).bank();
  });
  afterEach(async () => {
    for (const record of open.splice(0)) await record.dispose();
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it("a merchant's key rotated through REST: its open socket is closed with 4403 within 5 s, another merchant's stays", async () => {
    const merchant = await t.seed.createMerchant();
    const bystander = await t.seed.createMerchant();
    const watched = followSession(merchant.apiKey, await sessionOf(merchant.apiKey));
    const other = followSession(bystander.apiKey, await sessionOf(bystander.apiKey));
    await Promise.all([watched.waitForMessages(1, 'the current state'), other.waitForMessages(1, 'the current state')]);

    const rotated = await t.rest('POST', `/merchants/${merchant.merchantId}/rotate-key`, {
      headers: { 'x-service-admin-key': t.adminKey },
    });
    expect(rotated.status).toBe(200);
    const rotatedAt = Date.now();
    // The old key is refused over HTTP at once: what the socket must now follow.
    expect(
      (await t.rest('GET', '/merchants/' + merchant.merchantId, { headers: bearer(merchant.apiKey) })).status,
    ).toBe(401);

    await closedWithin(watched, rotatedAt);
    expect(watched.closeCode).toBe(4403);
    expect(watched.closeReason).toBe('credential revoked, rotated or expired (INVALID_API_KEY)');
    expect(watched.completed).toBe(false);

    await sleep(SWEEP_AND_MARGIN_MS);
    expect(other.closeCode).toBeUndefined();
    // The new key subscribes as before.
    const renewed = followSession(rotated.body.api_key, await sessionOf(rotated.body.api_key));
    await renewed.waitForMessages(1, 'the current state with the new key');
    expect(renewed.messages[0]!.data.paymentSessionUpdated.status).toBe('PENDING');
  });

  it("a TPP's token revoked (what rotate-token and suspension do to tpk_): its consentUpdated socket is closed with 4403 within 5 s", async () => {
    const tpp = await t.seed.registerTpp({ name: 'Socket App', redirect_uris: [OB_REDIRECT] });
    const otherTpp = await t.seed.registerTpp({ name: 'Other Socket App', redirect_uris: [OB_REDIRECT] });
    const consentOf = async (token: string) =>
      (
        await createConsent(t, token, {
          bank_handle: bank.handle,
          redirect_uri: OB_REDIRECT,
          scopes: ['accounts:read'],
        })
      ).consentId;
    const follow = (token: string, consentId: string) =>
      track(subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${token}` }, CONSENT_UPDATES, { id: consentId }));
    const watchedConsent = await consentOf(tpp.tppAccessToken);
    const watched = follow(tpp.tppAccessToken, watchedConsent);
    const other = follow(otherTpp.tppAccessToken, await consentOf(otherTpp.tppAccessToken));
    await Promise.all([watched.waitForMessages(1, 'the current state'), other.waitForMessages(1, 'the current state')]);
    expect(watched.messages[0]!.data.consentUpdated.status).toBe('AWAITING_AUTHORISATION');

    // POST /ob/tpps/{id}/rotate-token and TPP suspension (contract "Operator controls") land on
    // their own; either ends the tpk_ in the vault, which is this.
    const orm = await openOpenBankingTestOrm(t.platform.db);
    expect(await vault.revokeAll(orm.em.fork(), 'tpp_key', tpp.tppId)).toBe(1);
    const revokedAt = Date.now();
    const read = await t.rest('GET', `/ob/consents/${watchedConsent}`, { headers: bearer(tpp.tppAccessToken) });
    expect(read.status).toBe(401);

    await closedWithin(watched, revokedAt);
    expect(watched.closeCode).toBe(4403);
    expect(watched.closeReason).toBe('credential revoked, rotated or expired (INVALID_API_KEY)');
    await sleep(SWEEP_AND_MARGIN_MS);
    expect(other.closeCode).toBeUndefined();
  });
});

/** SUBSCRIPTION_MAX_LIFETIME_SECONDS: no socket lives forever on the credential it was opened with. */
describe('GraphQL subscriptions: maximum socket lifetime', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  const open: SubscriptionRecord[] = [];

  beforeAll(async () => {
    t = await startTestPlatform({ busNamespace: testNamespace(), env: { SUBSCRIPTION_MAX_LIFETIME_SECONDS: '1' } });
    bank = await (await openBankingSeeds(t)).bank();
  });
  afterEach(async () => {
    for (const record of open.splice(0)) await record.dispose();
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await t.stop();
  });

  it('closes the socket with 1000 "maximum connection lifetime reached"; a graphql-ws client reconnects and gets the current state again', async () => {
    const merchant = await t.seed.createMerchant();
    const payee = await bank.customer({ balance: 0 });
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 900, currency: 'LYD', destination: { type: 'alias', value: payee.alias }, reference: 'life' },
    });
    expect(created.status).toBe(201);
    const openedAt = Date.now();
    const record = subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${merchant.apiKey}` }, SESSION_UPDATES, {
      id: created.body.session_id,
    });
    open.push(record);
    await record.waitForMessages(1, 'the current state');
    // Lifetime 1 s, seen by a sweep every 2 s: closed between 1 and 3 s after it opened (and some load).
    await closedWithin(record, openedAt, 1_000 + 2_000 + 1_500);
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(1_000);
    expect(record.closeCode).toBe(1000);
    expect(record.closeReason).toBe('maximum connection lifetime reached');
    // Normal Closure with a subscription open: the client connects again on its own and subscribes anew.
    await record.waitForMessages(2, 'the current state after reconnecting');
    expect(record.messages.map((message) => message.data.paymentSessionUpdated.status)).toEqual(['PENDING', 'PENDING']);
  });
});
