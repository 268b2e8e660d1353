import { createHash, randomBytes } from 'node:crypto';
import { sha256Hex } from '@gateway/kernel';
import { call, expectError, expectRateLimitHeaders, responseSchemaOf, type Answer } from '@gateway/rest-compat/testing';
import { openBankingTestKit, type OpenBankingTestKit } from '@gateway/subgraph-open-banking/testing';
import { openVaultOrm, vault } from '@gateway/vault';
import { bearer } from '../support/payments';
import { gql } from '../support/graphql';
import { startTestPlatform, type SeededBank, type TestPlatform } from '../support/platform';

const BASE_URL = 'https://gw.example.ly';
const REDIRECT = 'https://tpp.example/callback';
const SCOPES = ['accounts:read', 'balances:read'];
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

interface Tpp {
  tppId: string;
  tppAccessToken: string;
}

interface Grant {
  tpp: Tpp;
  consentId: string;
  code: string;
  verifier: string;
}

/**
 * POST /ob/token end to end (rest-compat -> router -> open-banking -> vault), after the tests of
 * the OpenID Foundation's FAPI 2.0 conformance modules: happy flow, code reuse, expired code,
 * verifier required and checked, redirect_uri and consent binding, refresh rotation and reuse.
 * The customer's approval is made directly (the consent page is tested on its own).
 */
describe('Open Banking token endpoint', () => {
  let t: TestPlatform;
  let base: string;
  let bank: SeededBank;
  let kit: OpenBankingTestKit;
  let vaultOrm: Awaited<ReturnType<typeof openVaultOrm>>;

  const token = (fields: Record<string, string>, headers: Record<string, string> = FORM): Promise<Answer> =>
    call(base, 'POST', '/ob/token', { body: new URLSearchParams(fields).toString(), headers });
  const exchangeForm = (grant: Grant, patch: Record<string, string> = {}) => ({
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: REDIRECT,
    consent_id: grant.consentId,
    code_verifier: grant.verifier,
    ...patch,
  });
  const refreshForm = (grant: Grant, refreshToken: string) => ({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    consent_id: grant.consentId,
  });
  /** A TPP (a new one unless given, so each test has its own 30/min budget), an approved consent and its code. */
  const newGrant = async (tpp?: Tpp): Promise<Grant> => {
    const owner = tpp ?? (await t.seed.registerTpp({ redirect_uris: [REDIRECT] }));
    const verifier = randomBytes(48).toString('base64url');
    const created = await call(base, 'POST', '/ob/consents', {
      headers: bearer(owner.tppAccessToken),
      body: {
        bank_handle: bank.handle,
        scopes: SCOPES,
        redirect_uri: REDIRECT,
        state: 'st',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        expiry_days: 30,
      },
    });
    expect(created.status).toBe(201);
    const consentId = created.body.consent_id as string;
    return { tpp: owner, consentId, code: await kit.approve(consentId), verifier };
  };
  const verified = (kind: 'ob_access_token' | 'ob_refresh_token', raw: string) =>
    vault.verify(vaultOrm.em.fork(), kind, raw);
  const consentStatus = async (id: string) =>
    (await t.platform.db.knex('open_banking.consents').where({ id }).first()).status;
  const expectNoStore = (answer: Answer) => {
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('pragma')).toBe('no-cache');
  };
  const expectTokenError = (answer: Answer, status: number, code: string, detail?: RegExp) => {
    expectError(answer, status, code);
    expectNoStore(answer);
    if (detail) expect(answer.body.error.detail).toMatch(detail);
  };

  beforeAll(async () => {
    t = await startTestPlatform({ env: { PUBLIC_BASE_URL: BASE_URL } });
    base = t.platform.restUrl;
    bank = await t.seed.registerBank({ ob_enabled: true, ob_scopes_supported: SCOPES, max_consent_expiry_days: 90 });
    kit = await openBankingTestKit(t.platform.db);
    vaultOrm = await openVaultOrm(t.platform.db);
  });
  afterAll(async () => {
    await t.stop();
  });

  it('exchanges a code for the spec token response: no-store, opaque tokens stored as SHA-256 only, consent unchanged', async () => {
    const grant = await newGrant();
    const answer = await token(exchangeForm(grant));
    expect(answer.status).toBe(200);
    expect(responseSchemaOf('POST', '/ob/token').safeParse(answer.body).error).toBeUndefined();
    expect(answer.body).toEqual({
      access_token: expect.stringMatching(/^at_[0-9A-Za-z]{32}$/),
      refresh_token: expect.stringMatching(/^rt_[0-9A-Za-z]{32}$/),
      token_type: 'Bearer',
      expires_in: 900,
      scope: 'accounts:read balances:read',
    });
    expectNoStore(answer);
    expectRateLimitHeaders(answer);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('30');
    expect((await verified('ob_access_token', answer.body.access_token)).ok).toBe(true);

    const rows = await t.platform.db.knex('auth.credentials').where({ owner_id: grant.consentId });
    expect(rows.map((row) => row.kind).sort()).toEqual([
      'ob_access_token',
      'ob_authorization_code',
      'ob_refresh_token',
    ]);
    const hashes = rows.map((row) => row.hash);
    for (const raw of [grant.code, answer.body.access_token, answer.body.refresh_token])
      expect(hashes).toContain(sha256Hex(raw));
    const everything = JSON.stringify(await t.platform.db.knex('auth.credentials'));
    for (const raw of [grant.code, grant.verifier, answer.body.access_token, answer.body.refresh_token])
      expect(everything).not.toContain(raw);
    for (const row of rows) expect(row).toMatchObject({ client_id: grant.tpp.tppId, family: rows[0].family });
    expect(await consentStatus(grant.consentId)).toBe('AUTHORISED');
  });

  it('refuses a code used a second time (after a second) with INVALID_GRANT and revokes the tokens issued from it', async () => {
    const grant = await newGrant();
    const first = await token(exchangeForm(grant));
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expectTokenError(await token(exchangeForm(grant)), 400, 'INVALID_GRANT', /already been used/);
    expect(await verified('ob_access_token', first.body.access_token)).toMatchObject({ ok: false, reason: 'revoked' });
    expectTokenError(await token(refreshForm(grant, first.body.refresh_token)), 401, 'TOKEN_REVOKED');
  });

  it('refuses an expired code (60 s) with INVALID_GRANT; the consent stays AUTHORISED', async () => {
    const grant = await newGrant();
    await t.platform.db
      .knex('auth.credentials')
      .where({ hash: sha256Hex(grant.code) })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expectTokenError(await token(exchangeForm(grant)), 400, 'INVALID_GRANT', /expired/);
    expect(await consentStatus(grant.consentId)).toBe('AUTHORISED');
  });

  it('requires the code_verifier, checks its form (RFC 7636 4.1) and its S256 match; none of these spends the code', async () => {
    const grant = await newGrant();
    const { code_verifier: _omitted, ...withoutVerifier } = exchangeForm(grant);
    expectTokenError(await token(withoutVerifier), 400, 'VALIDATION_ERROR', /^code_verifier: required/);
    expectTokenError(
      await token(exchangeForm(grant, { code_verifier: '' })),
      400,
      'VALIDATION_ERROR',
      /^code_verifier: required/,
    );
    for (const code_verifier of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(43)}+`, `${'a'.repeat(43)} `]) {
      expectTokenError(
        await token(exchangeForm(grant, { code_verifier })),
        400,
        'VALIDATION_ERROR',
        /^code_verifier: must be 43-128 characters/,
      );
    }
    expectTokenError(
      await token(exchangeForm(grant, { code_verifier: randomBytes(48).toString('base64url') })),
      400,
      'PKCE_INVALID',
    );
    // plain PKCE: the challenge itself as the verifier never matches (plain is refused at consent creation anyway).
    const challenge = createHash('sha256').update(grant.verifier).digest('base64url');
    expectTokenError(await token(exchangeForm(grant, { code_verifier: challenge })), 400, 'PKCE_INVALID');
    expect((await token(exchangeForm(grant))).status).toBe(200);
  });

  it('binds the code to its redirect_uri and its consent: another gives INVALID_GRANT', async () => {
    const a = await newGrant();
    const b = await newGrant(a.tpp);
    for (const redirect_uri of [`${REDIRECT}/`, 'https://tpp.example/other', REDIRECT.toUpperCase()]) {
      expectTokenError(await token(exchangeForm(a, { redirect_uri })), 400, 'INVALID_GRANT', /redirect_uri/);
    }
    expectTokenError(await token(exchangeForm(a, { consent_id: b.consentId })), 400, 'INVALID_GRANT', /consent_id/);
    expectTokenError(
      await token(exchangeForm(a, { client_id: 'tpp_000000000000000000000000' })),
      400,
      'INVALID_GRANT',
      /client_id/,
    );
    expectTokenError(
      await token(exchangeForm(a, { code: 'oac_000000000000000000000000000000' })),
      400,
      'INVALID_GRANT',
    );
    expect((await token(exchangeForm(a, { client_id: a.tpp.tppId }))).status).toBe(200);
  });

  it('rotates on refresh: a new pair in the same grant, the old pair dead at once; the old refresh token again gives TOKEN_REVOKED and kills the grant', async () => {
    const grant = await newGrant();
    const first = (await token(exchangeForm(grant))).body;
    const refreshed = await token(refreshForm(grant, first.refresh_token));
    expect(refreshed.status).toBe(200);
    expect(responseSchemaOf('POST', '/ob/token').safeParse(refreshed.body).error).toBeUndefined();
    expectNoStore(refreshed);
    const second = refreshed.body;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe('accounts:read balances:read');
    expect(await verified('ob_access_token', first.access_token)).toMatchObject({ ok: false, reason: 'revoked' });
    expect((await verified('ob_access_token', second.access_token)).ok).toBe(true);

    // Said as what happened (issue 31): a reused refresh token, the grant revoked, the consent untouched.
    const reused = await token(refreshForm(grant, first.refresh_token));
    expectTokenError(
      reused,
      401,
      'TOKEN_REVOKED',
      /already used \(rotated\).*every access and refresh token of this grant/,
    );
    expect(reused.body.error.message).toBe('Refresh token reused: this grant is revoked');
    expect(reused.body.error.detail).toContain('the consent stays AUTHORISED');
    expect(await verified('ob_access_token', second.access_token)).toMatchObject({ ok: false, reason: 'revoked' });
    const afterReuse = await token(refreshForm(grant, second.refresh_token));
    expectTokenError(afterReuse, 401, 'TOKEN_REVOKED', /revoked with its grant/);
    expect(afterReuse.body.error.message).toBe('Token revoked: its grant was revoked after a reuse');
    for (const answer of [reused, afterReuse]) expect(answer.body.error.message).not.toContain('consent deleted');
    expectTokenError(await token(refreshForm(grant, 'rt_000000000000000000000000000000')), 400, 'INVALID_GRANT');
    expect(await consentStatus(grant.consentId)).toBe('AUTHORISED');
  });

  it('serves exactly one of two concurrent refreshes with one token; the other is a replay', async () => {
    const grant = await newGrant();
    const first = (await token(exchangeForm(grant))).body;
    const answers = await Promise.all([1, 2].map(() => token(refreshForm(grant, first.refresh_token))));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    expectTokenError(
      answers.find((answer) => answer.status === 401)!,
      401,
      'TOKEN_REVOKED',
    );
  });

  it('answers CONSENT_REVOKED for a revoked consent and CONSENT_EXPIRED for an expired one', async () => {
    const revoked = await newGrant();
    const pair = (await token(exchangeForm(revoked))).body;
    await kit.revoke(revoked.consentId);
    expectTokenError(await token(refreshForm(revoked, pair.refresh_token)), 401, 'CONSENT_REVOKED');
    const unredeemed = await newGrant();
    await kit.revoke(unredeemed.consentId);
    expectTokenError(await token(exchangeForm(unredeemed)), 401, 'CONSENT_REVOKED');

    const expired = await newGrant();
    const expiredPair = (await token(exchangeForm(expired))).body;
    await t.platform.db
      .knex('open_banking.consents')
      .where({ id: expired.consentId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expectTokenError(await token(refreshForm(expired, expiredPair.refresh_token)), 401, 'CONSENT_EXPIRED');
  });

  it('takes form bodies only, with the spec fields of each grant, and answers no-store on every refusal', async () => {
    const grant = await newGrant();
    const json = await call(base, 'POST', '/ob/token', { body: exchangeForm(grant) });
    expectTokenError(json, 400, 'VALIDATION_ERROR', /^content-type/);
    expectTokenError(
      await token({ ...exchangeForm(grant), grant_type: 'password' }),
      400,
      'VALIDATION_ERROR',
      /^grant_type: unsupported/,
    );
    const { grant_type: _g, ...noGrantType } = exchangeForm(grant);
    expectTokenError(await token(noGrantType), 400, 'VALIDATION_ERROR', /^grant_type: required/);
    for (const name of ['code', 'redirect_uri', 'consent_id'] as const) {
      const { [name]: _dropped, ...form } = exchangeForm(grant);
      expectTokenError(await token(form), 400, 'VALIDATION_ERROR', new RegExp(`^${name}: required`));
    }
    expectTokenError(
      await token({ grant_type: 'refresh_token', consent_id: grant.consentId }),
      400,
      'VALIDATION_ERROR',
      /^refresh_token: required/,
    );
    const twice = await call(base, 'POST', '/ob/token', {
      body: `${new URLSearchParams(exchangeForm(grant))}&code_verifier=${grant.verifier}`,
      headers: FORM,
    });
    expectTokenError(twice, 400, 'VALIDATION_ERROR', /^code_verifier: sent more than once/);
    // None of these reached the grant: the code still works.
    expect((await token(exchangeForm(grant))).status).toBe(200);
  });

  it('is also GraphQL: exchangeAuthorizationCode and refreshAccessToken, public', async () => {
    const grant = await newGrant();
    const EXCHANGE = gql<
      {
        exchangeAuthorizationCode: {
          accessToken: string;
          refreshToken: string;
          tokenType: string;
          expiresIn: number;
          scope: string;
        };
      },
      { code: string; redirectUri: string; consentId: string; codeVerifier: string }
    >(`mutation($code: String!, $redirectUri: String!, $consentId: String!, $codeVerifier: String!) {
      exchangeAuthorizationCode(code: $code, redirectUri: $redirectUri, consentId: $consentId, codeVerifier: $codeVerifier) { accessToken refreshToken tokenType expiresIn scope }
    }`);
    const REFRESH = gql<{ refreshAccessToken: { accessToken: string } }, { refreshToken: string; consentId: string }>(
      `mutation($refreshToken: String!, $consentId: String!) { refreshAccessToken(refreshToken: $refreshToken, consentId: $consentId) { accessToken } }`,
    );
    const { exchangeAuthorizationCode } = await t.execute(EXCHANGE, {
      code: grant.code,
      redirectUri: REDIRECT,
      consentId: grant.consentId,
      codeVerifier: grant.verifier,
    });
    expect(exchangeAuthorizationCode).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 900,
      scope: 'accounts:read balances:read',
    });
    const { refreshAccessToken } = await t.execute(REFRESH, {
      refreshToken: exchangeAuthorizationCode.refreshToken,
      consentId: grant.consentId,
    });
    expect(refreshAccessToken.accessToken).toMatch(/^at_/);
    const replay = await t.executeExpectingErrors(REFRESH, {
      refreshToken: exchangeAuthorizationCode.refreshToken,
      consentId: grant.consentId,
    });
    expect(replay.errors[0]?.extensions?.code).toBe('TOKEN_REVOKED');

    // One grant per operation: aliases must not run many redemptions on one point of the rate limit.
    const BATCH = gql<Record<string, unknown>, Record<string, never>>(
      `mutation { a: refreshAccessToken(refreshToken: "rt_x", consentId: "con_x") { scope } b: refreshAccessToken(refreshToken: "rt_y", consentId: "con_x") { scope } }`,
    );
    const batch = await t.executeExpectingErrors(BATCH, {});
    expect(batch.errors[0]?.extensions?.code).toBe('VALIDATION_ERROR');
  });

  it('limits token requests to 30 a minute per TPP (the consent’s), whatever the IP: the 31st is 429, another TPP is unaffected', async () => {
    const busy = await newGrant();
    const calm = await newGrant();
    expect((await token(exchangeForm(busy))).status).toBe(200);
    // A spent code still names its TPP: the 29 replays are charged to it.
    for (let i = 2; i <= 30; i += 1) expect((await token(exchangeForm(busy))).status).toBe(400);
    const limited = await token(exchangeForm(busy));
    expectTokenError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another consent of the same TPP shares its budget; another TPP from the same address does not.
    expectTokenError(await token(exchangeForm(await newGrant(busy.tpp))), 429, 'RATE_LIMITED');
    const other = await token(exchangeForm(calm));
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('29');
  });

  it('publishes RFC 8414 metadata whose issuer is the iss of authorization responses (the public base URL)', async () => {
    const answer = await call(base, 'GET', '/.well-known/oauth-authorization-server');
    expect(answer.status).toBe(200);
    expect(
      responseSchemaOf('GET', '/.well-known/oauth-authorization-server').safeParse(answer.body).error,
    ).toBeUndefined();
    expect(answer.body).toEqual({
      issuer: BASE_URL,
      authorization_endpoint: `${BASE_URL}/ob/auth`,
      token_endpoint: `${BASE_URL}/ob/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      // Issue 49: spec TPPs stay public clients (none); fapi2 TPPs sign assertions. No OB_DIRECTORY_JWKS
      // here, so no registration_endpoint (test/ob/fapi2-clients.e2e.ts has one).
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['ES256', 'PS256', 'EdDSA'],
      // FAPI 2.0 (issue 49): PAR for fapi2 TPPs (spec TPPs push with POST /ob/consents), DPoP-bound tokens.
      revocation_endpoint: `${BASE_URL}/ob/revoke`,
      revocation_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      pushed_authorization_request_endpoint: `${BASE_URL}/ob/par`,
      require_pushed_authorization_requests: false,
      dpop_signing_alg_values_supported: ['ES256', 'PS256', 'EdDSA'],
      authorization_response_iss_parameter_supported: true,
      scopes_supported: ['accounts:read', 'balances:read', 'transactions:read', 'payments:write'],
      service_documentation: `${BASE_URL}/docs`,
    });
    // consent_url is the authorization endpoint followed by the consent id.
    const grant = await call(base, 'POST', '/ob/consents', {
      headers: bearer((await t.seed.registerTpp({ redirect_uris: [REDIRECT] })).tppAccessToken),
      body: {
        bank_handle: bank.handle,
        scopes: SCOPES,
        redirect_uri: REDIRECT,
        state: 's',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        expiry_days: 1,
      },
    });
    expect(grant.body.consent_url).toBe(`${answer.body.authorization_endpoint}/${grant.body.consent_id}`);
  });
});
