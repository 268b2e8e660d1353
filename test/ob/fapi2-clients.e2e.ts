import { createHash, randomBytes } from 'node:crypto';
import { generateKeyPair, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { sha256Hex } from '@gateway/kernel';
import { call, expectError, responseSchemaOf, type Answer } from '@gateway/rest-compat/testing';
import { openBankingTestKit, type OpenBankingTestKit } from '@gateway/subgraph-open-banking/testing';
import { openVaultOrm, vault } from '@gateway/vault';
import {
  clientToken as clientTokenOf,
  dpopCall,
  INSECURE,
  newDirectory,
  newKey,
  privateKeyJwt,
  registerFapiTpp,
  type Directory,
  type FapiTpp,
} from '../support/fapi2';
import { bearer } from '../support/payments';
import { startTestPlatform, type SeededBank, type TestPlatform } from '../support/platform';

const REDIRECT = 'https://tpp.example/callback';
const SCOPES = ['accounts:read', 'balances:read', 'payments:write'];
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

type Registered = FapiTpp;

/**
 * FAPI 2.0 clients (issue 49): a TPP registers itself with a directory-signed software statement
 * (RFC 7591), authenticates at the token endpoint with private_key_jwt (RFC 7523) through
 * oauth4webapi as the TPP's client library, gets its own DPoP-bound client_credentials token and
 * creates a consent with it; a replayed assertion is refused; a spec TPP's flow is the spec's.
 */
describe('Open Banking fapi2 clients: dynamic registration, private_key_jwt, client_credentials', () => {
  let t: TestPlatform;
  let base: string;
  let bank: SeededBank;
  let kit: OpenBankingTestKit;
  let directory: Directory;
  let as: oauth.AuthorizationServer;

  const statement = (claims: Record<string, unknown> = {}, key?: Parameters<Directory['statement']>[1]) =>
    directory.statement(claims, key);
  const register = async (body: Record<string, unknown> = {}) =>
    call(base, 'POST', '/ob/register', {
      body: {
        software_statement: await statement(),
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'private_key_jwt',
        ...body,
      },
    });
  const registered = (): Promise<Registered> => registerFapiTpp(base, directory, [REDIRECT]);
  const clientCredentials = (tpp: Registered, scope = 'accounts payments', auth = privateKeyJwt(tpp)) =>
    oauth.clientCredentialsGrantRequest(as, tpp.client, auth, new URLSearchParams({ scope }), {
      ...INSECURE,
      DPoP: tpp.dpop,
    });
  const clientToken = async (tpp: Registered, scope?: string) => (await clientTokenOf(as, tpp, scope)).access_token;
  const consentBody = (scopes: string[], verifier: string) => ({
    bank_handle: bank.handle,
    scopes,
    redirect_uri: REDIRECT,
    state: 'st',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    expiry_days: 30,
  });
  /** A consent created with a bearer credential (a spec TPP's tpk_, or anything refused). */
  const createConsent = (credential: string, scopes = SCOPES, verifier = randomBytes(48).toString('base64url')) =>
    call(base, 'POST', '/ob/consents', { headers: bearer(credential), body: consentBody(scopes, verifier) });
  /** A consent created by a fapi2 TPP with its DPoP-bound cat_ token. */
  const createConsentAs = (
    tpp: Registered,
    token: string,
    scopes = SCOPES,
    verifier = randomBytes(48).toString('base64url'),
  ) => dpopCall(base, tpp.dpop, token, 'POST', '/ob/consents', { body: consentBody(scopes, verifier) });
  const form = (fields: Record<string, string>): Promise<Answer> =>
    call(base, 'POST', '/ob/token', { body: new URLSearchParams(fields).toString(), headers: FORM });
  const errorOf = async (response: Response) => ({ status: response.status, ...(await response.json()).error });

  beforeAll(async () => {
    directory = await newDirectory([REDIRECT]);
    t = await startTestPlatform({
      env: directory.env,
      // Token requests of the client_credentials grant are counted by address: every test here shares one.
      rateLimits: { read: { points: 100_000 }, write: { points: 100_000 }, ob_token: { points: 1_000 } },
    });
    base = t.platform.restUrl;
    bank = await t.seed.registerBank({ ob_enabled: true, ob_scopes_supported: SCOPES, max_consent_expiry_days: 90 });
    kit = await openBankingTestKit(t.platform.db);
    // Discovery as the TPP's library does it (RFC 8414), against the issuer the metadata names.
    const { issuer } = (await call(base, 'GET', '/.well-known/oauth-authorization-server')).body;
    as = await oauth.processDiscoveryResponse(
      new URL(issuer),
      await oauth.discoveryRequest(new URL(issuer), { algorithm: 'oauth2', ...INSECURE }),
    );
  });
  afterAll(async () => {
    await t.stop();
  });

  it('publishes registration and private_key_jwt in the metadata', () => {
    expect(as).toMatchObject({
      registration_endpoint: `${as.issuer}/ob/register`,
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['ES256', 'PS256', 'EdDSA'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    });
  });

  it('registers a TPP dynamically: fapi2, its public keys, a registration access token stored hashed, no tpk_', async () => {
    const key = await newKey('k-1');
    const answer = await register({ jwks: { keys: [key.publicJwk] }, webhook_url: 'http://127.0.0.1:9/hooks' });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(responseSchemaOf('POST', '/ob/register').safeParse(answer.body).error).toBeUndefined();
    const { client_id: clientId, registration_access_token: token } = answer.body;
    expect(answer.body).toMatchObject({
      client_id: expect.stringMatching(/^tpp_/),
      client_name: 'Fapi Budget',
      redirect_uris: [REDIRECT],
      jwks: { keys: [{ kty: 'EC', kid: 'k-1', crv: 'P-256', x: key.publicJwk.x, y: key.publicJwk.y }] },
      token_endpoint_auth_method: 'private_key_jwt',
      security_profile: 'fapi2',
      registration_client_uri: `${as.issuer}/ob/register/${clientId}`,
      registration_access_token: expect.stringMatching(/^rat_[0-9A-Za-z]{32}$/),
      webhook_secret: expect.stringMatching(/^whsec_/),
      webhook_url: 'http://127.0.0.1:9/hooks',
    });
    const credentials = await t.platform.db.knex('auth.credentials').where({ owner_id: clientId });
    expect(credentials.map((row) => [row.kind, row.hash])).toEqual([['ob_registration_token', sha256Hex(token)]]);
    expect(JSON.stringify(credentials)).not.toContain(token);

    // RFC 7592: read with the registration access token, not with another client's.
    const read = await call(base, 'GET', `/ob/register/${clientId}`, { headers: bearer(token) });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ client_id: clientId, jwks: answer.body.jwks });
    expect(read.body.registration_access_token).toBeUndefined();
    const other = await registered();
    expectError(
      await call(base, 'GET', `/ob/register/${clientId}`, { headers: bearer(other.registrationAccessToken) }),
      401,
      'UNAUTHORIZED',
    );
    // The registration token is for the registration only: not a TPP credential.
    expectError(await createConsent(token), 403, 'FORBIDDEN');
  });

  it('refuses statements the directory did not sign, bad metadata and foreign redirect URIs with RFC 7591 codes', async () => {
    const key = await newKey('k-1');
    const jwks = { keys: [key.publicJwk] };
    const stranger = (await generateKeyPair('PS256')).privateKey;
    expectError(
      await register({ jwks, software_statement: await statement({}, stranger) }),
      400,
      'UNAPPROVED_SOFTWARE_STATEMENT',
    );
    expectError(await register({ jwks, software_statement: 'not.a.jwt' }), 400, 'INVALID_SOFTWARE_STATEMENT');
    expectError(
      await register({ jwks, software_statement: await statement({ software_client_name: undefined }) }),
      400,
      'INVALID_SOFTWARE_STATEMENT',
    );
    expectError(
      await register({ jwks, token_endpoint_auth_method: 'client_secret_basic' }),
      400,
      'INVALID_CLIENT_METADATA',
    );
    const withPrivate = await register({ jwks: { keys: [{ ...key.publicJwk, d: 'c2VjcmV0' }] } });
    expectError(withPrivate, 400, 'INVALID_CLIENT_METADATA');
    expect(withPrivate.body.error.detail).toMatch(/^jwks\.keys\[0\]\.d: private key material/);
    const foreign = await register({ jwks, redirect_uris: ['https://elsewhere.example/cb'] });
    expectError(foreign, 400, 'INVALID_REDIRECT_URI');
    expect(foreign.body.error.detail).toMatch(/software_redirect_uris/);
  });

  it('gets a client_credentials token with private_key_jwt (oauth4webapi) and creates a consent with it', async () => {
    const tpp = await registered();
    const response = await clientCredentials(tpp);
    const token = await oauth.processClientCredentialsResponse(as, tpp.client, response);
    expect(token).toMatchObject({ token_type: 'dpop', expires_in: 900, scope: 'accounts payments' });
    expect(token.access_token).toMatch(/^cat_[0-9A-Za-z]{32}$/);
    expect(token.refresh_token).toBeUndefined();
    // Bound to the DPoP key of the request (RFC 9449 6): cnf.jkt kept beside the token's hash.
    const stored = await t.platform.db
      .knex('auth.credentials')
      .where({ hash: sha256Hex(token.access_token) })
      .first();
    expect(stored.key_thumbprint).toBe(await tpp.dpop.calculateThumbprint());

    const consent = await createConsentAs(tpp, token.access_token);
    expect(consent.status).toBe(201);
    expect(consent.body).toMatchObject({ tpp_id: tpp.clientId, status: 'AWAITING_AUTHORISATION', scopes: SCOPES });
    const read = await dpopCall(base, tpp.dpop, token.access_token, 'GET', `/ob/consents/${consent.body.consent_id}`);
    expect(read.body.consent_id).toBe(consent.body.consent_id);
    const record = await dpopCall(base, tpp.dpop, token.access_token, 'GET', `/ob/tpps/${tpp.clientId}`);
    expect(record.body).toMatchObject({ security_profile: 'fapi2', jwks: { keys: [{ kid: tpp.key.kid }] } });

    // The scope asked for is what the token may do: accounts only cannot ask for payments:write.
    const accountsOnly = await clientToken(tpp, 'accounts');
    expectError(await createConsentAs(tpp, accountsOnly), 403, 'FORBIDDEN');
    expect((await createConsentAs(tpp, accountsOnly, ['accounts:read'])).status).toBe(201);
  });

  it('refuses a replayed assertion (its jti is spent), a fapi2 TPP without one, and a wrong aud', async () => {
    const tpp = await registered();
    let sent: string | undefined;
    const capture: typeof fetch = async (url, init) => {
      sent = String(init?.body);
      return fetch(url, init);
    };
    const first = await oauth.clientCredentialsGrantRequest(
      as,
      tpp.client,
      privateKeyJwt(tpp),
      new URLSearchParams({ scope: 'accounts' }),
      { ...INSECURE, DPoP: tpp.dpop, [oauth.customFetch]: capture },
    );
    expect(first.status).toBe(200);
    // The same assertion with a fresh DPoP proof: only the assertion is replayed.
    const replay: typeof fetch = (url, init) => fetch(url, { ...init, body: sent! });
    const replayedResponse = await oauth.clientCredentialsGrantRequest(
      as,
      tpp.client,
      privateKeyJwt(tpp),
      new URLSearchParams({ scope: 'accounts' }),
      { ...INSECURE, DPoP: tpp.dpop, [oauth.customFetch]: replay },
    );
    const replayed: Answer = {
      status: replayedResponse.status,
      headers: replayedResponse.headers,
      text: '',
      body: await replayedResponse.json(),
    };
    expectError(replayed, 401, 'INVALID_CLIENT');
    expect(replayed.body.error.detail).toMatch(/jti was used before/);
    expect(replayed.headers.get('cache-control')).toBe('no-store');

    const bare = await form({ grant_type: 'client_credentials', client_id: tpp.clientId });
    expectError(bare, 401, 'INVALID_CLIENT');
    expect(bare.body.error.detail).toMatch(/client authentication required/);
    const wrongAud = privateKeyJwt(tpp, (_header, payload) => void (payload.aud = 'https://other.example'));
    expect(await errorOf(await clientCredentials(tpp, 'accounts', wrongAud))).toMatchObject({
      status: 401,
      code: 'INVALID_CLIENT',
      detail: expect.stringMatching(/aud must be the issuer/),
    });
    const tooLong = privateKeyJwt(tpp, (_header, payload) => void (payload.exp = (payload.iat as number) + 600));
    expect(await errorOf(await clientCredentials(tpp, 'accounts', tooLong))).toMatchObject({ code: 'INVALID_CLIENT' });
  });

  it('requires the assertion on the authorization_code and refresh_token grants of a fapi2 TPP', async () => {
    const tpp = await registered();
    const verifier = randomBytes(48).toString('base64url');
    const consent = await createConsentAs(tpp, await clientToken(tpp), SCOPES, verifier);
    const consentId = consent.body.consent_id as string;
    const code = await kit.approve(consentId);
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, consent_id: consentId };

    // Without its assertion the code is refused and not spent: whoever stole it gets nothing.
    const stolen = await form({ ...exchange, code_verifier: verifier });
    expectError(stolen, 401, 'INVALID_CLIENT');
    const callback = oauth.validateAuthResponse(
      as,
      tpp.client,
      new URL(`${REDIRECT}?code=${code}&consent_id=${consentId}&state=st&iss=${encodeURIComponent(as.issuer)}`),
      'st',
    );
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      tpp.client,
      await oauth.authorizationCodeGrantRequest(as, tpp.client, privateKeyJwt(tpp), callback, REDIRECT, verifier, {
        ...INSECURE,
        DPoP: tpp.dpop,
        additionalParameters: { consent_id: consentId },
      }),
    );
    expect(tokens.access_token).toMatch(/^at_/);
    expect(tokens.token_type).toBe('dpop');

    expectError(
      await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, consent_id: consentId }),
      401,
      'INVALID_CLIENT',
    );
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      tpp.client,
      await oauth.refreshTokenGrantRequest(as, tpp.client, privateKeyJwt(tpp), tokens.refresh_token!, {
        ...INSECURE,
        DPoP: tpp.dpop,
        additionalParameters: { consent_id: consentId },
      }),
    );
    expect(refreshed.refresh_token).toMatch(/^rt_/);
    // Another fapi2 client presenting this grant's refresh token with its own valid assertion: not its grant.
    const other = await registered();
    const foreign = await oauth.refreshTokenGrantRequest(
      as,
      other.client,
      privateKeyJwt(other),
      refreshed.refresh_token!,
      {
        ...INSECURE,
        DPoP: other.dpop,
        additionalParameters: { consent_id: consentId },
      },
    );
    expect(await errorOf(foreign)).toMatchObject({ status: 400, code: 'INVALID_GRANT' });
  });

  it("refuses a fapi2 TPP's tpk_ for consents, should one exist", async () => {
    const tpp = await registered();
    // A fapi2 TPP is issued none and rotation refuses to make one; one written into the vault by
    // hand (a TPP moved from spec later, say) is still refused for consent calls.
    const orm = await openVaultOrm(t.platform.db);
    const raw = await orm.em
      .fork()
      .transactional(async (tx) => vault.issue(tx, { kind: 'tpp_key', ownerId: tpp.clientId, prefix: 'tpk_' }).raw);
    const refused = await createConsent(raw);
    expectError(refused, 403, 'FORBIDDEN');
    expect(refused.body.error.detail).toMatch(/client_credentials/);
    expectError(
      await call(base, 'POST', `/ob/tpps/${tpp.clientId}/rotate-token`, {
        headers: { 'x-service-admin-key': t.adminKey },
      }),
      403,
      'FORBIDDEN',
    );
  });

  it('replaces keys (PUT) and deletes the registration (DELETE): old keys and every token stop working at once', async () => {
    const tpp = await registered();
    const cat = await clientToken(tpp);
    const next = await newKey('k-next');
    const put = await call(base, 'PUT', `/ob/register/${tpp.clientId}`, {
      headers: bearer(tpp.registrationAccessToken),
      body: {
        client_id: tpp.clientId,
        jwks: { keys: [next.publicJwk] },
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'private_key_jwt',
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.jwks.keys.map((key: JWK) => key.kid)).toEqual(['k-next']);
    expect(await errorOf(await clientCredentials(tpp))).toMatchObject({ status: 401, code: 'INVALID_CLIENT' });
    const rotated = { ...tpp, key: next };
    const fresh = await clientToken(rotated);

    const deleted = await call(base, 'DELETE', `/ob/register/${tpp.clientId}`, {
      headers: bearer(tpp.registrationAccessToken),
    });
    expect(deleted.status).toBe(204);
    for (const token of [cat, fresh]) expectError(await createConsentAs(tpp, token), 401, 'UNAUTHORIZED');
    expect(await errorOf(await clientCredentials(rotated))).toMatchObject({ status: 401, code: 'INVALID_CLIENT' });
    expectError(
      await call(base, 'GET', `/ob/register/${tpp.clientId}`, { headers: bearer(tpp.registrationAccessToken) }),
      401,
      'INVALID_API_KEY',
    );
    expect((await t.platform.db.knex('open_banking.tpps').where({ id: tpp.clientId }).first()).status).toBe('DISABLED');
  });

  it("leaves a spec TPP's flow as it was, and refuses it an assertion or the client_credentials grant", async () => {
    const spec = await t.seed.registerTpp({ redirect_uris: [REDIRECT] });
    const verifier = randomBytes(48).toString('base64url');
    const consent = await createConsent(spec.tppAccessToken, SCOPES, verifier);
    expect(consent.status).toBe(201);
    const consentId = consent.body.consent_id as string;
    const code = await kit.approve(consentId);
    const exchanged = await form({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      consent_id: consentId,
      code_verifier: verifier,
    });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.token_type).toBe('Bearer');

    // An assertion from a public client proves nothing: refused rather than ignored.
    const key = await newKey('spec-key');
    const dpopKeys = (await generateKeyPair('ES256')) as CryptoKeyPair;
    const asSpec: Registered = {
      dpopKeys,
      dpop: oauth.DPoP({ client_id: spec.tppId } as oauth.Client, dpopKeys),
      clientId: spec.tppId,
      registrationAccessToken: '',
      key,
      client: { client_id: spec.tppId },
    };
    const refused = await errorOf(await clientCredentials(asSpec));
    expect(refused).toMatchObject({
      status: 401,
      code: 'INVALID_CLIENT',
      detail: expect.stringMatching(/public client/),
    });
    expectError(await form({ grant_type: 'client_credentials', client_id: spec.tppId }), 401, 'INVALID_CLIENT');
  });
});
