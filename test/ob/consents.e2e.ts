import { createHash, randomBytes } from 'node:crypto';
import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';
import { bearer, eventually } from '../support/payments';
import { gql } from '../support/graphql';
import { startTestPlatform, type SeededBank, type TestPlatform } from '../support/platform';

const REDIRECT = 'https://tpp.example/callback';
const ALL_SCOPES = ['accounts:read', 'balances:read', 'transactions:read', 'payments:write'];
/** A real S256 challenge: BASE64URL(SHA-256(verifier)). */
const challenge = (): string => createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

/** POST/GET /ob/consents and the GraphQL consent operations end to end: rest-compat -> router -> open-banking -> banks registry. */
describe('Open Banking consents', () => {
  let t: TestPlatform;
  let base: string;
  let bank: SeededBank;
  let narrowBank: SeededBank;
  let offBank: SeededBank;
  let tpp: { tppId: string; tppAccessToken: string };
  let otherTpp: { tppId: string; tppAccessToken: string };

  const consentBody = (patch: Record<string, unknown> = {}) => ({
    bank_handle: bank.handle,
    scopes: ['accounts:read', 'balances:read'],
    redirect_uri: REDIRECT,
    state: 'xyz-state-1',
    code_challenge: challenge(),
    code_challenge_method: 'S256',
    expiry_days: 30,
    ...patch,
  });
  const create = (body: Record<string, unknown>, token = tpp.tppAccessToken) =>
    call(base, 'POST', '/ob/consents', { headers: bearer(token), body });
  const consentCount = async () => Number((await t.platform.db.knex('open_banking.consents').count({ n: '*' }))[0]!.n);
  const expectRefused = async (body: Record<string, unknown>, status: number, code: string, detail?: RegExp) => {
    const before = await consentCount();
    const answer = await create(body);
    expectError(answer, status, code);
    if (detail) expect(answer.body.error.detail).toMatch(detail);
    expect(await consentCount()).toBe(before);
  };

  beforeAll(async () => {
    t = await startTestPlatform({
      env: { PUBLIC_BASE_URL: 'https://gw.example.ly' },
      openBankingJobs: { consentExpiryIntervalMs: 100 },
    });
    base = t.platform.restUrl;
    bank = await t.seed.registerBank({
      ob_enabled: true,
      ob_scopes_supported: ALL_SCOPES,
      max_consent_expiry_days: 90,
    });
    narrowBank = await t.seed.registerBank({
      ob_enabled: true,
      ob_scopes_supported: ['accounts:read'],
      max_consent_expiry_days: 30,
    });
    offBank = await t.seed.registerBank({
      ob_enabled: false,
      ob_scopes_supported: ALL_SCOPES,
      max_consent_expiry_days: 90,
    });
    tpp = await t.seed.registerTpp({ name: 'Budget App', redirect_uris: [REDIRECT, 'https://tpp.example/other'] });
    otherTpp = await t.seed.registerTpp({ name: 'Other App' });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('creates a consent: 201 AWAITING_AUTHORISATION with consent_url on the public base, stored with state and challenge', async () => {
    const body = consentBody({ expiry_days: 90 });
    const before = Date.now();
    const answer = await create(body);
    expect(answer.status).toBe(201);
    expect(responseSchemaOf('POST', '/ob/consents').safeParse(answer.body).error).toBeUndefined();
    const id = answer.body.consent_id as string;
    expect(id).toMatch(/^con_[0-9A-Za-z]{24}$/);
    expect(answer.body).toMatchObject({
      consent_url: `https://gw.example.ly/ob/auth/${id}`,
      status: 'AWAITING_AUTHORISATION',
      tpp_id: tpp.tppId,
      bank_handle: bank.handle,
      scopes: ['accounts:read', 'balances:read'],
      redirect_uri: REDIRECT,
      account_ids: [],
      revoked_by: null,
      authorised_at: null,
      expired_at: null,
    });
    const expiresAt = Date.parse(answer.body.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 90 * 86_400_000 - 1_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 90 * 86_400_000 + 1_000);
    // Neither the state nor the challenge is given back; both are kept for the code flow.
    expect(JSON.stringify(answer.body)).not.toContain(body.code_challenge);
    expect(JSON.stringify(answer.body)).not.toContain(body.state);

    const row = await t.platform.db.knex('open_banking.consents').where({ id }).first();
    expect(row).toMatchObject({
      tpp_id: tpp.tppId,
      bank_handle: bank.handle,
      status: 'AWAITING_AUTHORISATION',
      state: 'xyz-state-1',
      code_challenge: body.code_challenge,
      code_challenge_method: 'S256',
      redirect_uri: REDIRECT,
      expiry_days: 90,
      revoked_by: null,
      account_ids: [],
    });
    expect(new Date(row.created_at).getTime()).toBeGreaterThanOrEqual(before - 1_000);
  });

  it("reads a consent: the TPP's own with the documented shape; another TPP and an unknown id get 404 CONSENT_NOT_FOUND", async () => {
    const created = (await create(consentBody())).body;
    const read = await call(base, 'GET', `/ob/consents/${created.consent_id}`, { headers: bearer(tpp.tppAccessToken) });
    expect(read.status).toBe(200);
    expect(responseSchemaOf('GET', '/ob/consents/{consent_id}').safeParse(read.body).error).toBeUndefined();
    expect(read.body).toEqual(created);

    expectError(
      await call(base, 'GET', `/ob/consents/${created.consent_id}`, { headers: bearer(otherTpp.tppAccessToken) }),
      404,
      'CONSENT_NOT_FOUND',
    );
    expectError(
      await call(base, 'GET', '/ob/consents/con_000000000000000000000000', { headers: bearer(tpp.tppAccessToken) }),
      404,
      'CONSENT_NOT_FOUND',
    );
    expectError(await call(base, 'GET', `/ob/consents/${created.consent_id}`), 401, 'UNAUTHORIZED');
  });

  it('refuses a consent without a TPP token (401) and with a merchant key (403)', async () => {
    expectError(await call(base, 'POST', '/ob/consents', { body: consentBody() }), 401, 'UNAUTHORIZED');
    const merchant = await t.seed.createMerchant();
    expectError(await create(consentBody(), merchant.apiKey), 403, 'FORBIDDEN');
  });

  it('rejects PKCE methods other than S256 with 400 PKCE_METHOD_REJECTED, and malformed challenges with 400 VALIDATION_ERROR', async () => {
    await expectRefused(consentBody({ code_challenge_method: 'plain' }), 400, 'PKCE_METHOD_REJECTED');
    await expectRefused(consentBody({ code_challenge_method: 's256' }), 400, 'PKCE_METHOD_REJECTED');
    await expectRefused(consentBody({ code_challenge: 'short' }), 400, 'VALIDATION_ERROR', /^code_challenge/);
    await expectRefused(consentBody({ code_challenge: `${challenge()}=` }), 400, 'VALIDATION_ERROR', /^code_challenge/);
    await expectRefused(
      consentBody({ code_challenge: `${challenge().slice(0, 42)}+` }),
      400,
      'VALIDATION_ERROR',
      /^code_challenge/,
    );
  });

  it('accepts only a redirect_uri registered for the TPP, character for character', async () => {
    expect((await create(consentBody({ redirect_uri: 'https://tpp.example/other' }))).status).toBe(201);
    for (const redirect_uri of [
      'https://tpp.example/callback/',
      'https://TPP.example/callback',
      'https://tpp.example/callback?x=1',
      'https://evil.example/callback',
    ]) {
      await expectRefused(consentBody({ redirect_uri }), 400, 'VALIDATION_ERROR', /^redirect_uri/);
    }
    // Registered for another TPP only.
    const other = await t.seed.registerTpp({ redirect_uris: ['https://other.example/cb'] });
    await expectRefused(
      consentBody({ redirect_uri: 'https://other.example/cb' }),
      400,
      'VALIDATION_ERROR',
      /^redirect_uri/,
    );
    expect((await create(consentBody({ redirect_uri: 'https://other.example/cb' }), other.tppAccessToken)).status).toBe(
      201,
    );
  });

  it("requires scopes to be a non-empty subset of the spec's four and of the bank's supported ones", async () => {
    await expectRefused(consentBody({ scopes: [] }), 400, 'VALIDATION_ERROR', /^scopes/);
    await expectRefused(consentBody({ scopes: ['accounts:write'] }), 400, 'VALIDATION_ERROR', /^scopes/);
    await expectRefused(
      consentBody({ scopes: ['accounts:read', 'accounts:read'] }),
      400,
      'VALIDATION_ERROR',
      /^scopes/,
    );
    await expectRefused(
      consentBody({ bank_handle: narrowBank.handle, scopes: ['accounts:read', 'balances:read'], expiry_days: 10 }),
      400,
      'VALIDATION_ERROR',
      /^scopes: balances:read/,
    );
    expect(
      (await create(consentBody({ bank_handle: narrowBank.handle, scopes: ['accounts:read'], expiry_days: 10 })))
        .status,
    ).toBe(201);
    expect((await create(consentBody({ scopes: ALL_SCOPES }))).status).toBe(201);
  });

  it("bounds expiry_days between 1 and the bank's max_consent_expiry_days", async () => {
    await expectRefused(consentBody({ expiry_days: 0 }), 400, 'VALIDATION_ERROR', /^expiry_days/);
    await expectRefused(consentBody({ expiry_days: 91 }), 400, 'VALIDATION_ERROR', /^expiry_days: must be at most 90/);
    await expectRefused(consentBody({ expiry_days: 1.5 }), 400, 'VALIDATION_ERROR', /^expiry_days/);
    await expectRefused(
      consentBody({ bank_handle: narrowBank.handle, scopes: ['accounts:read'], expiry_days: 31 }),
      400,
      'VALIDATION_ERROR',
      /^expiry_days: must be at most 30/,
    );
    expect((await create(consentBody({ expiry_days: 1 }))).status).toBe(201);
  });

  it('refuses an unknown bank (404 BANK_NOT_REGISTERED) and one without Open Banking (422 BANK_NOT_PARTICIPATING)', async () => {
    await expectRefused(consentBody({ bank_handle: 'nosuchbank' }), 404, 'BANK_NOT_REGISTERED');
    await expectRefused(consentBody({ bank_handle: offBank.handle }), 422, 'BANK_NOT_PARTICIPATING');
  });

  it('requires a state of at most 512 characters, and refuses unknown or missing fields', async () => {
    expect((await create(consentBody({ state: 's'.repeat(512) }))).status).toBe(201);
    await expectRefused(consentBody({ state: 's'.repeat(513) }), 400, 'VALIDATION_ERROR', /^state/);
    await expectRefused(consentBody({ state: '' }), 400, 'VALIDATION_ERROR', /^state/);
    const { state: _state, ...withoutState } = consentBody();
    await expectRefused(withoutState, 400, 'VALIDATION_ERROR', /state/);
    await expectRefused(consentBody({ client_secret: 'x' }), 400, 'VALIDATION_ERROR', /client_secret/);
  });

  it("lists the TPP's consents newest first in pages, by REST and GraphQL, and nobody else's", async () => {
    const lister = await t.seed.registerTpp({ redirect_uris: [REDIRECT] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await create(consentBody(), lister.tppAccessToken)).body.consent_id);
    await create(consentBody(), otherTpp.tppAccessToken);
    const newestFirst = [...ids].reverse();

    const first = await call(base, 'GET', '/ob/consents?limit=2', { headers: bearer(lister.tppAccessToken) });
    expect(first.status).toBe(200);
    expect(responseSchemaOf('GET', '/ob/consents').safeParse(first.body).error).toBeUndefined();
    expect(first.body.consents.map((c: { consent_id: string }) => c.consent_id)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.pagination).toEqual({ next_cursor: newestFirst[1], has_more: true });
    const rest = await call(base, 'GET', `/ob/consents?limit=3&cursor=${first.body.pagination.next_cursor}`, {
      headers: bearer(lister.tppAccessToken),
    });
    expect(rest.body.consents.map((c: { consent_id: string }) => c.consent_id)).toEqual(newestFirst.slice(2));
    expect(rest.body.pagination).toEqual({ next_cursor: null, has_more: false });
    // Another TPP's consent id is not a cursor of this list.
    const foreign = (await call(base, 'GET', '/ob/consents', { headers: bearer(otherTpp.tppAccessToken) })).body
      .consents[0].consent_id;
    expectError(
      await call(base, 'GET', `/ob/consents?cursor=${foreign}`, { headers: bearer(lister.tppAccessToken) }),
      400,
      'VALIDATION_ERROR',
    );

    const PAGE = gql<
      {
        consents: {
          edges: Array<{ cursor: string; node: { id: string; status: string } }>;
          pageInfo: { hasNextPage: boolean; endCursor: string | null };
        };
      },
      { first?: number; after?: string }
    >(
      `query($first: Int, $after: String) { consents(first: $first, after: $after) { edges { cursor node { id status } } pageInfo { hasNextPage endCursor } } }`,
    );
    const page1 = await t.execute(PAGE, { first: 3 }, bearer(lister.tppAccessToken));
    expect(page1.consents.edges.map((edge) => edge.node.id)).toEqual(newestFirst.slice(0, 3));
    expect(page1.consents.pageInfo).toEqual({ hasNextPage: true, endCursor: newestFirst[2] });
    const page2 = await t.execute(
      PAGE,
      { first: 3, after: page1.consents.pageInfo.endCursor! },
      bearer(lister.tppAccessToken),
    );
    expect(page2.consents.edges.map((edge) => edge.node.id)).toEqual(newestFirst.slice(3));
    expect(page2.consents.pageInfo.hasNextPage).toBe(false);
  });

  it('creates and reads consents through GraphQL with the same rules', async () => {
    const CREATE = gql<
      { createConsent: { id: string; status: string; consentUrl: string; scopes: string[] } },
      { input: Record<string, unknown> }
    >(`mutation($input: CreateConsentInput!) { createConsent(input: $input) { id status consentUrl scopes } }`);
    const READ = gql<{ consent: { id: string; status: string; bankHandle: string } }, { id: string }>(
      `query($id: ID!) { consent(id: $id) { id status bankHandle } }`,
    );
    const input = {
      bankHandle: bank.handle,
      scopes: ['transactions:read'],
      redirectUri: REDIRECT,
      state: 'g',
      codeChallenge: challenge(),
      codeChallengeMethod: 'S256',
      expiryDays: 7,
    };
    const { createConsent } = await t.execute(CREATE, { input }, bearer(tpp.tppAccessToken));
    expect(createConsent).toEqual({
      id: expect.stringMatching(/^con_/),
      status: 'AWAITING_AUTHORISATION',
      consentUrl: `https://gw.example.ly/ob/auth/${createConsent.id}`,
      scopes: ['transactions:read'],
    });
    expect((await t.execute(READ, { id: createConsent.id }, bearer(tpp.tppAccessToken))).consent).toEqual({
      id: createConsent.id,
      status: 'AWAITING_AUTHORISATION',
      bankHandle: bank.handle,
    });

    const plain = await t.executeExpectingErrors(
      CREATE,
      { input: { ...input, codeChallengeMethod: 'plain' } },
      bearer(tpp.tppAccessToken),
    );
    expect(plain.errors[0]?.extensions?.code).toBe('PKCE_METHOD_REJECTED');
    const foreign = await t.executeExpectingErrors(READ, { id: createConsent.id }, bearer(otherTpp.tppAccessToken));
    expect(foreign.errors[0]?.extensions?.code).toBe('CONSENT_NOT_FOUND');
  });

  it('expires a consent past expires_at: the job moves it to EXPIRED and writes consent.expired in the outbox', async () => {
    const expiring = (await create(consentBody())).body.consent_id as string;
    const staying = (await create(consentBody())).body.consent_id as string;
    const past = new Date(Date.now() - 60_000);
    await t.platform.db.knex('open_banking.consents').where({ id: expiring }).update({ expires_at: past });

    const row = await eventually(async () => {
      const found = await t.platform.db.knex('open_banking.consents').where({ id: expiring }).first();
      return found.status === 'EXPIRED' ? found : undefined;
    }, 'the expiry job to expire the consent');
    expect(new Date(row.expired_at).getTime()).toBeGreaterThanOrEqual(past.getTime());
    const events = await t.platform.db
      .knex('open_banking.outbox')
      .where({ aggregate_id: expiring })
      .orderBy('sequence');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'consent.expired', aggregate_type: 'consent', audience: tpp.tppId });
    expect(events[0].data).toMatchObject({
      consent_id: expiring,
      status: 'EXPIRED',
      tpp_id: tpp.tppId,
      bank_handle: bank.handle,
    });
    expect(JSON.stringify(events[0].data)).not.toContain('xyz-state-1');

    const read = await call(base, 'GET', `/ob/consents/${expiring}`, { headers: bearer(tpp.tppAccessToken) });
    expect(read.body).toMatchObject({ status: 'EXPIRED', expired_at: row.expired_at.toISOString() });
    expect((await t.platform.db.knex('open_banking.consents').where({ id: staying }).first()).status).toBe(
      'AWAITING_AUTHORISATION',
    );
    expect(await t.platform.db.knex('open_banking.outbox').where({ aggregate_id: staying })).toEqual([]);
  });
});
