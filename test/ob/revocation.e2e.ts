import { call, expectError, responseSchemaOf, type Answer } from '@gateway/rest-compat/testing';
import type { EntityManager } from '@gateway/db';
import { vault } from '@gateway/vault';
import { openOpenBankingTestOrm } from '@gateway/subgraph-open-banking/testing';
import { gql } from '../support/graphql';
import { openBankingSeeds, type Grant, type OpenBankingSeeds } from '../support/open-banking';
import { bearer, eventually, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

function expectTokenRevoked(answer: Answer): void {
  expectError(answer, 401, 'TOKEN_REVOKED');
  expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
}

/** Revocation by the TPP (DELETE) and by the bank (POST …/revoke): instant, every token of the consent, one transaction. */
describe('Open Banking consent revocation', () => {
  let t: TestPlatform;
  let base: string;
  let ob: OpenBankingSeeds;
  let bank: PaymentBank;
  let otherBank: PaymentBank;
  let alice: Customer;
  let tpp: { tppId: string; tppAccessToken: string };
  let otherTpp: { tppId: string; tppAccessToken: string };

  const grantFor = (scopes?: string[], owner = tpp) =>
    ob.grant(owner.tppAccessToken, bank.handle, [{ iban: alice.iban, bankHandle: bank.handle }], scopes);
  const accounts = (grant: Grant, headers = grant.headers()) => call(base, 'GET', '/ob/accounts', { headers });
  const del = (consentId: string, headers: Record<string, string>) =>
    call(base, 'DELETE', `/ob/consents/${consentId}`, { headers });
  const bankRevoke = (consentId: string, bankKey: string, body?: Record<string, unknown>) =>
    call(base, 'POST', `/ob/consents/${consentId}/revoke`, { headers: { 'x-service-bank-key': bankKey }, body });
  const consentRow = (id: string) => t.platform.db.knex('open_banking.consents').where({ id }).first();
  const credentialsOf = (consentId: string) =>
    t.platform.db.knex('auth.credentials').where({ owner_id: consentId }).select('kind', 'revoked_at');
  const events = (consentId: string) =>
    t.platform.db
      .knex('open_banking.outbox')
      .where({ aggregate_id: consentId })
      .orderBy('sequence')
      .select('kind', 'data', 'audience');

  beforeAll(async () => {
    t = await startTestPlatform();
    base = t.platform.restUrl;
    ob = await openBankingSeeds(t);
    bank = await ob.bank();
    otherBank = await ob.bank();
    alice = await bank.customer();
    tpp = await t.seed.registerTpp({ name: 'Budget App' });
    otherTpp = await t.seed.registerTpp({ name: 'Other App' });
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await otherBank.sandbox.stop();
    await t.stop();
  });

  it("leaves through the bus: open-banking's outbox relay publishes consent.granted and consent.revoked", async () => {
    const seen: Array<{ kind: string; aggregateId: string; audience?: string | null }> = [];
    const subscription = await t.platform.bus.subscribe('consent.*', async (event) => void seen.push(event));
    try {
      const grant = await grantFor();
      expect((await del(grant.consentId, grant.headers())).status).toBe(204);
      await eventually(
        async () => (seen.filter((event) => event.aggregateId === grant.consentId).length >= 2 ? true : undefined),
        'consent events on the bus',
      );
      expect(
        seen.filter((event) => event.aggregateId === grant.consentId).map(({ kind, audience }) => ({ kind, audience })),
      ).toEqual([
        { kind: 'consent.granted', audience: tpp.tppId },
        { kind: 'consent.revoked', audience: tpp.tppId },
      ]);
      // The relay commits its stamp once the bus confirmed: a subscriber can see an event a moment before.
      const unpublished = async () =>
        Number(
          (
            await t.platform.db
              .knex('open_banking.outbox')
              .where({ aggregate_id: grant.consentId })
              .whereNull('published_at')
              .count({ n: '*' })
          )[0]!.n,
        );
      await eventually(
        async () => ((await unpublished()) === 0 ? true : undefined),
        'the outbox rows stamped published',
      );
    } finally {
      await subscription.close();
    }
  });

  it("DELETE with the consent's access token: 204, and the same token is refused on the very next request", async () => {
    const grant = await grantFor();
    // An authorization code not yet exchanged is a credential of the consent too.
    const orm = await openOpenBankingTestOrm(t.platform.db);
    await orm.em.fork().transactional(async (tx: EntityManager) => {
      vault.issue(tx, {
        kind: 'ob_authorization_code',
        ownerId: grant.consentId,
        prefix: 'oac_',
        expiresAt: new Date(Date.now() + 60_000),
      });
    });
    expect((await accounts(grant)).status).toBe(200);

    const revoked = await del(grant.consentId, grant.headers());
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    expectTokenRevoked(await accounts(grant));
    expectTokenRevoked(
      await call(base, 'GET', `/ob/accounts/${grant.accountIds[0]}/balances`, { headers: grant.headers() }),
    );

    const row = await consentRow(grant.consentId);
    expect(row).toMatchObject({ status: 'REVOKED', revoked_by: 'tpp' });
    expect(row.revoked_at).not.toBeNull();
    // Every credential of the consent, in the same step: code, access and refresh token.
    const credentials = await credentialsOf(grant.consentId);
    expect(credentials.map((c: { kind: string }) => c.kind).sort()).toEqual([
      'ob_access_token',
      'ob_authorization_code',
      'ob_refresh_token',
    ]);
    for (const credential of credentials) expect(credential.revoked_at).toEqual(row.revoked_at);
    expect(await events(grant.consentId)).toEqual([
      { kind: 'consent.granted', data: expect.objectContaining({ status: 'AUTHORISED' }), audience: tpp.tppId },
      {
        kind: 'consent.revoked',
        data: expect.objectContaining({ consent_id: grant.consentId, status: 'REVOKED', revoked_by: 'tpp' }),
        audience: tpp.tppId,
      },
    ]);
    const read = await call(base, 'GET', `/ob/consents/${grant.consentId}`, { headers: bearer(tpp.tppAccessToken) });
    expect(read.body).toMatchObject({
      status: 'REVOKED',
      revoked_by: 'tpp',
      revoked_at: new Date(row.revoked_at).toISOString(),
    });

    // Again: the revoked token itself is refused; the TPP token gets an idempotent 204, with no second event.
    expectTokenRevoked(await del(grant.consentId, grant.headers()));
    expect((await del(grant.consentId, bearer(tpp.tppAccessToken))).status).toBe(204);
    expect(await events(grant.consentId)).toHaveLength(2);
  });

  it('DELETE with the TPP token revokes any consent of the TPP; a newer token of the consent is dead too', async () => {
    const grant = await grantFor();
    const refreshed = await ob.issueTokens(grant.consentId, ['accounts:read']);
    const headers = { authorization: `Bearer ${refreshed.accessToken}`, 'x-consent-id': grant.consentId };
    expect((await accounts(grant, headers)).status).toBe(200);
    expect((await del(grant.consentId, bearer(tpp.tppAccessToken))).status).toBe(204);
    expectTokenRevoked(await accounts(grant));
    expectTokenRevoked(await accounts(grant, headers));
    expect(await consentRow(grant.consentId)).toMatchObject({ status: 'REVOKED', revoked_by: 'tpp' });
  });

  it('the bank revokes (customer in the bank app, or the bank itself): 200 with the REVOKED consent, tokens dead at once', async () => {
    const byCustomer = await grantFor();
    expect((await accounts(byCustomer)).status).toBe(200);
    const answer = await bankRevoke(byCustomer.consentId, bank.bankKey, { revoked_by: 'customer' });
    expect(answer.status).toBe(200);
    expect(responseSchemaOf('POST', '/ob/consents/{consent_id}/revoke').safeParse(answer.body).error).toBeUndefined();
    expect(answer.body).toMatchObject({
      consent_id: byCustomer.consentId,
      status: 'REVOKED',
      revoked_by: 'customer',
      revoked_at: expect.any(String),
    });
    expectTokenRevoked(await accounts(byCustomer));
    expect((await events(byCustomer.consentId)).at(-1)).toMatchObject({
      kind: 'consent.revoked',
      data: { revoked_by: 'customer' },
    });

    const byBank = await grantFor();
    const empty = await call(base, 'POST', `/ob/consents/${byBank.consentId}/revoke`, {
      headers: { 'x-service-bank-key': bank.bankKey },
    });
    expect(empty.body).toMatchObject({ status: 'REVOKED', revoked_by: 'bank' });
    expectTokenRevoked(await accounts(byBank));

    // Idempotent: a second revocation answers the consent as it stands, who revoked it unchanged.
    const again = await bankRevoke(byCustomer.consentId, bank.bankKey, { revoked_by: 'bank' });
    expect(again.body).toMatchObject({ status: 'REVOKED', revoked_by: 'customer', revoked_at: answer.body.revoked_at });
    expect(
      (await events(byCustomer.consentId)).filter((e: { kind: string }) => e.kind === 'consent.revoked'),
    ).toHaveLength(1);

    expectError(await bankRevoke(byBank.consentId, bank.bankKey, { revoked_by: 'tpp' }), 400, 'VALIDATION_ERROR');
    expectError(await bankRevoke(byBank.consentId, bank.bankKey, { reason: 'x' }), 400, 'VALIDATION_ERROR');
  });

  it('keeps consents of one TPP (and of one bank) invisible to others: 404 CONSENT_NOT_FOUND, nothing revoked', async () => {
    const grant = await grantFor();
    const foreign = await grantFor(undefined, otherTpp);
    expectError(await del(grant.consentId, bearer(otherTpp.tppAccessToken)), 404, 'CONSENT_NOT_FOUND');
    // The other TPP's access token, pointed at this consent by path (its own X-Consent-Id).
    expectError(await del(grant.consentId, foreign.headers()), 404, 'CONSENT_NOT_FOUND');
    // The same TPP's token of another consent speaks for that consent only.
    const sibling = await grantFor();
    expectError(await del(grant.consentId, sibling.headers()), 404, 'CONSENT_NOT_FOUND');
    expectError(await bankRevoke(grant.consentId, otherBank.bankKey), 404, 'CONSENT_NOT_FOUND');
    expectError(await del('con_000000000000000000000000', bearer(tpp.tppAccessToken)), 404, 'CONSENT_NOT_FOUND');
    expectError(await bankRevoke('con_000000000000000000000000', bank.bankKey), 404, 'CONSENT_NOT_FOUND');

    expect(await consentRow(grant.consentId)).toMatchObject({ status: 'AUTHORISED', revoked_by: null });
    expect((await accounts(grant)).status).toBe(200);
    expect((await credentialsOf(grant.consentId)).every((c: { revoked_at: unknown }) => c.revoked_at === null)).toBe(
      true,
    );

    // Without a credential; with a bad one.
    const anonymous = await del(grant.consentId, {});
    expectError(anonymous, 401, 'UNAUTHORIZED');
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expectError(await del(grant.consentId, bearer('tpk_notatokennotatokennotatoken00')), 401, 'INVALID_API_KEY');
    expectError(await bankRevoke(grant.consentId, 'sbk_nobank_notakeynotakeynotakey'), 401, 'INVALID_BANK_KEY');
    // A bank key is not the TPP's credential, nor a TPP token the bank's.
    expectError(await del(grant.consentId, { 'x-service-bank-key': bank.bankKey }), 403, 'FORBIDDEN');
    expectError(
      await call(base, 'POST', `/ob/consents/${grant.consentId}/revoke`, { headers: bearer(tpp.tppAccessToken) }),
      403,
      'FORBIDDEN',
    );
  });

  it('withdraws a consent still awaiting authorisation (its consent page can no longer approve it); final consents answer 204 unchanged', async () => {
    const pending = await ob.createConsent(tpp.tppAccessToken, bank.handle);
    expect((await del(pending, bearer(tpp.tppAccessToken))).status).toBe(204);
    expect(await consentRow(pending)).toMatchObject({ status: 'REVOKED', revoked_by: 'tpp' });
    await expect(ob.authorise(pending, [{ iban: alice.iban, bankHandle: bank.handle }])).rejects.toMatchObject({
      extensions: { code: 'CONSENT_REVOKED' },
    });

    const expired = await grantFor();
    await t.platform.db
      .knex('open_banking.consents')
      .where({ id: expired.consentId })
      .update({ status: 'EXPIRED', expired_at: new Date(), expires_at: new Date(Date.now() - 1_000) });
    expect((await del(expired.consentId, bearer(tpp.tppAccessToken))).status).toBe(204);
    expect(await consentRow(expired.consentId)).toMatchObject({ status: 'EXPIRED', revoked_by: null });
    expect((await events(expired.consentId)).map((e: { kind: string }) => e.kind)).toEqual(['consent.granted']);
    // Its tokens are revoked all the same: nothing of a final consent stays usable.
    expectTokenRevoked(await accounts(expired));
  });

  it('revokes through GraphQL with the same rules', async () => {
    const grant = await grantFor();
    const REVOKE = gql<{ revokeConsent: { id: string; status: string; revokedBy: string } }, { id: string }>(
      `mutation($id: ID!) { revokeConsent(id: $id) { id status revokedBy } }`,
    );
    const foreign = await t.executeExpectingErrors(REVOKE, { id: grant.consentId }, bearer(otherTpp.tppAccessToken));
    expect(foreign.errors[0]?.extensions?.code).toBe('CONSENT_NOT_FOUND');
    expect((await t.execute(REVOKE, { id: grant.consentId }, grant.headers())).revokeConsent).toEqual({
      id: grant.consentId,
      status: 'REVOKED',
      revokedBy: 'tpp',
    });
    const after = await t.executeExpectingErrors(REVOKE, { id: grant.consentId }, grant.headers());
    expect(after.errors[0]?.extensions?.code).toBe('TOKEN_REVOKED');
  });
});
