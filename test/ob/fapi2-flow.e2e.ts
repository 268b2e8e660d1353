import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair } from 'jose';
import * as oauth from 'oauth4webapi';
import { chromium, type Browser, type Page } from 'playwright-core';
import { call, expectError, type Answer } from '@gateway/rest-compat/testing';
import { enableOpenBanking } from '../support/consent-flow';
import {
  clientToken,
  dpopCall,
  INSECURE,
  newDirectory,
  privateKeyJwt,
  registerFapiTpp,
  withNonce,
  type Directory,
  type FapiTpp,
} from '../support/fapi2';
import { bearer, eventually, startPaymentBank, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCOPES = ['accounts:read', 'balances:read', 'payments:write'];

/** What a TPP's app keeps between pushing the request and the customer's return: oauth4webapi's own values. */
interface Pushed {
  consentId: string;
  requestUri: string;
  verifier: string;
  state: string;
}

/**
 * The whole FAPI 2.0 flow (issue 49) with oauth4webapi as the TPP's client library and no
 * hand-written OAuth on its side: dynamic registration, a DPoP-bound client_credentials token, a
 * consent, a pushed authorization request with private_key_jwt and DPoP, the customer's approval
 * in Chromium, the code exchanged with DPoP, data and payment calls, a refresh. Server nonces are
 * required here, as in production, so every first proof meets use_dpop_nonce. Then each rule,
 * broken once.
 */
describe('Open Banking at FAPI 2.0: PAR, DPoP-bound tokens, the consent page in Chromium', () => {
  let t: TestPlatform;
  let base: string;
  let bank: PaymentBank;
  let customer: Customer;
  let directory: Directory;
  let as: oauth.AuthorizationServer;
  let tppServer: Server;
  let callback: string;
  let browser: Browser;

  // Live: its consents read the sandbox bank's accounts, where the customer's OTP is.
  const registered = (): Promise<FapiTpp> => registerFapiTpp(base, directory, [callback], { mode: 'live' });
  /** The TPP's consent, created with its own DPoP-bound token (the spec's fields: PAR replaces redirect, state and challenge). */
  const newConsent = async (tpp: FapiTpp): Promise<string> => {
    const created = await dpopCall(base, tpp.dpop, (await clientToken(as, tpp)).access_token, 'POST', '/ob/consents', {
      body: {
        bank_handle: bank.handle,
        scopes: SCOPES,
        redirect_uri: callback,
        state: 'set-at-par',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: 'S256',
        expiry_days: 30,
      },
    });
    expect(created.status).toBe(201);
    return created.body.consent_id;
  };
  const parRequest = (tpp: FapiTpp, params: URLSearchParams, options: { dpop?: oauth.DPoPHandle } = {}) =>
    oauth.pushedAuthorizationRequest(as, tpp.client, privateKeyJwt(tpp), params, {
      ...INSECURE,
      ...(options.dpop ? { DPoP: options.dpop } : {}),
    });
  /** Pushes the authorization request of a consent as oauth4webapi does (RFC 9126), the code bound to the TPP's DPoP key. */
  const push = async (tpp: FapiTpp, consentId: string, extra: Record<string, string> = {}): Promise<Pushed> => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const params = new URLSearchParams({
      response_type: 'code',
      redirect_uri: callback,
      scope: SCOPES.join(' '),
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      consent_id: consentId,
      ...extra,
    });
    const answer = await withNonce(async () =>
      oauth.processPushedAuthorizationResponse(as, tpp.client, await parRequest(tpp, params, { dpop: tpp.dpop })),
    );
    expect(answer.expires_in).toBe(60);
    return { consentId, requestUri: answer.request_uri, verifier, state };
  };
  const authorizationUrl = (tpp: FapiTpp, requestUri: string) => {
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set('client_id', tpp.clientId);
    url.searchParams.set('request_uri', requestUri);
    return url.href;
  };
  /** The customer in Chromium: the authorization endpoint, the consent page, alias and OTP, back at the TPP. */
  const approveInBrowser = async (tpp: FapiTpp, pushed: Pushed): Promise<URL> => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page: Page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(authorizationUrl(tpp, pushed.requestUri));
      expect(new URL(page.url()).pathname).toBe(`/ob/auth/${pushed.consentId}`);
      await page.fill('#customer-value', customer.alias);
      await page.fill('#otp', customer.otp);
      await page.click('#approve-button');
      await page.waitForURL((url) => url.href.startsWith(callback), { timeout: 30_000 });
      expect(errors).toEqual([]);
      return new URL(page.url());
    } finally {
      await context.close();
    }
  };
  const exchange = (tpp: FapiTpp, pushed: Pushed, returned: URL, dpop = tpp.dpop) =>
    withNonce(async () =>
      oauth.processAuthorizationCodeResponse(
        as,
        tpp.client,
        await oauth.authorizationCodeGrantRequest(
          as,
          tpp.client,
          privateKeyJwt(tpp),
          oauth.validateAuthResponse(as, tpp.client, returned, pushed.state),
          callback,
          pushed.verifier,
          { ...INSECURE, DPoP: dpop, additionalParameters: { consent_id: pushed.consentId } },
        ),
      ),
    );
  const refresh = (tpp: FapiTpp, consentId: string, refreshToken: string, dpop = tpp.dpop) =>
    withNonce(async () =>
      oauth.processRefreshTokenResponse(
        as,
        tpp.client,
        await oauth.refreshTokenGrantRequest(as, tpp.client, privateKeyJwt(tpp), refreshToken, {
          ...INSECURE,
          DPoP: dpop,
          additionalParameters: { consent_id: consentId },
        }),
      ),
    );
  /** An OAuth error response as oauth4webapi reports it: the challenge's error, or the body's. */
  const oauthErrorOf = async (pending: Promise<unknown>) => {
    try {
      await pending;
    } catch (error) {
      if (error instanceof oauth.WWWAuthenticateChallengeError)
        return {
          status: error.response.status,
          challenge: error.cause[0]!.parameters.error,
          nonce: error.response.headers.get('dpop-nonce'),
          code: (await error.response.json()).error.code,
        };
      if (error instanceof oauth.ResponseBodyError) return { status: error.status };
      throw error;
    }
    throw new Error('the request was answered');
  };
  /** A second DPoP key, as a thief holding a copied token but not the TPP's key would have. */
  const otherDpop = async (tpp: FapiTpp, options?: oauth.ModifyAssertionOptions) =>
    oauth.DPoP(tpp.client, (await generateKeyPair('ES256')) as CryptoKeyPair, options);
  /** A complete grant: pushed, approved in the browser, exchanged. */
  const granted = async (tpp: FapiTpp) => {
    const pushed = await push(tpp, await newConsent(tpp));
    const tokens = await exchange(tpp, pushed, await approveInBrowser(tpp, pushed));
    return { pushed, tokens, consentId: pushed.consentId };
  };
  const accounts = (tpp: FapiTpp, token: string, consentId: string, dpop = tpp.dpop): Promise<Answer> =>
    dpopCall(base, dpop, token, 'GET', '/ob/accounts', { headers: { 'x-consent-id': consentId } });

  beforeAll(async () => {
    tppServer = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Back at the app</h1>'),
    );
    await new Promise<void>((resolve) => tppServer.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(tppServer.address() as AddressInfo).port}/callback`;
    directory = await newDirectory([callback]);
    t = await startTestPlatform({
      env: { ...directory.env, DPOP_NONCE_REQUIRED: 'true' },
      rateLimits: { read: { points: 100_000 }, write: { points: 100_000 }, ob_token: { points: 1_000 } },
    });
    base = t.platform.restUrl;
    bank = await startPaymentBank(t);
    await enableOpenBanking(t, bank);
    customer = await bank.customer({ balance: 500_000 });
    const { issuer } = (await call(base, 'GET', '/.well-known/oauth-authorization-server')).body;
    as = await oauth.processDiscoveryResponse(
      new URL(issuer),
      await oauth.discoveryRequest(new URL(issuer), { algorithm: 'oauth2', ...INSECURE }),
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => tppServer?.close(resolve));
    await bank?.sandbox.stop();
    await t?.stop();
  });

  it('publishes PAR, DPoP and registration in the metadata (RFC 8414)', () => {
    expect(as).toMatchObject({
      authorization_endpoint: `${as.issuer}/ob/auth`,
      pushed_authorization_request_endpoint: `${as.issuer}/ob/par`,
      revocation_endpoint: `${as.issuer}/ob/revoke`,
      require_pushed_authorization_requests: false,
      dpop_signing_alg_values_supported: ['ES256', 'PS256', 'EdDSA'],
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      registration_endpoint: `${as.issuer}/ob/register`,
    });
  });

  it('runs the whole flow: PAR, approval in Chromium, DPoP-bound tokens, data, a payment order, a refresh', async () => {
    const tpp = await registered();
    const pushed = await push(tpp, await newConsent(tpp));
    expect(pushed.requestUri).toMatch(/^urn:ietf:params:oauth:request_uri:[0-9A-Za-z]{32}$/);
    const returned = await approveInBrowser(tpp, pushed);
    expect(Object.fromEntries(returned.searchParams)).toMatchObject({
      state: pushed.state,
      iss: as.issuer,
      consent_id: pushed.consentId,
    });

    const tokens = await exchange(tpp, pushed, returned);
    expect(tokens).toMatchObject({ token_type: 'dpop', expires_in: 900 });
    const thumbprint = await tpp.dpop.calculateThumbprint();
    const stored = await t.platform.db
      .knex('auth.credentials')
      .where({ owner_id: pushed.consentId })
      .whereIn('kind', ['ob_access_token', 'ob_refresh_token']);
    expect(stored.map((row) => row.key_thumbprint)).toEqual([thumbprint, thumbprint]);

    const read = await accounts(tpp, tokens.access_token, pushed.consentId);
    expect(read.status).toBe(200);
    expect(read.headers.get('dpop-nonce')).toMatch(/^[0-9a-z]+\.[\w-]{22}$/);
    const accountId = read.body.accounts[0].account_id as string;

    const payee = await bank.customer({ balance: 0 });
    const order = await dpopCall(base, tpp.dpop, tokens.access_token, 'POST', '/ob/payment-orders', {
      headers: { 'x-consent-id': pushed.consentId, 'idempotency-key': `fapi-${pushed.consentId}` },
      body: {
        source_account_id: accountId,
        destination: { type: 'iban', value: payee.iban },
        amount: 2_500,
        currency: 'LYD',
        description: 'FAPI order',
      },
    });
    expect(order.status).toBe(201);
    await eventually(async () => ((await bank.balance(payee.iban)) === 2_500 ? true : undefined), 'payee credited');

    const refreshed = await refresh(tpp, pushed.consentId, tokens.refresh_token!);
    expect(refreshed.token_type).toBe('dpop');
    expect((await accounts(tpp, refreshed.access_token, pushed.consentId)).status).toBe(200);
  });

  it('makes a copied access or refresh token useless without the private key', async () => {
    const tpp = await registered();
    const { tokens, consentId } = await granted(tpp);

    // As a bearer token: refused, with a DPoP challenge naming the rule.
    const asBearer = await call(base, 'GET', '/ob/accounts', {
      headers: { ...bearer(tokens.access_token), 'x-consent-id': consentId },
    });
    expectError(asBearer, 401, 'invalid_dpop_proof');
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_dpop_proof"/);
    // With a proof of another key: refused.
    const thief = await otherDpop(tpp);
    const stolen = await accounts(tpp, tokens.access_token, consentId, thief);
    expectError(stolen, 401, 'invalid_dpop_proof');
    expect(stolen.body.error.detail).toMatch(/not signed by the key this access token is bound to/);

    // The refresh token with the TPP's own client authentication but another DPoP key: refused, and not spent.
    expect(await oauthErrorOf(refresh(tpp, consentId, tokens.refresh_token!, thief))).toMatchObject({
      status: 400,
      challenge: 'invalid_dpop_proof',
      code: 'invalid_dpop_proof',
    });
    expect((await refresh(tpp, consentId, tokens.refresh_token!)).access_token).toMatch(/^at_/);
  });

  it('refuses a replayed proof, a proof for another URL, a skewed clock (with a nonce to retry) and a missing nonce', async () => {
    const tpp = await registered();
    const { tokens, consentId } = await granted(tpp);
    let proof: string | undefined;
    const capture = async (url: string, init: oauth.CustomFetchOptions<string, oauth.ProtectedResourceRequestBody>) => {
      proof = new Headers(init.headers).get('dpop') ?? undefined;
      return fetch(url, init as RequestInit);
    };
    const first = await withNonce(() =>
      oauth.protectedResourceRequest(
        tokens.access_token,
        'GET',
        new URL('/ob/accounts', base),
        new Headers({ 'x-consent-id': consentId }),
        null,
        { ...INSECURE, DPoP: tpp.dpop, [oauth.customFetch]: capture },
      ),
    );
    expect(first.status).toBe(200);
    const replayed = await call(base, 'GET', '/ob/accounts', {
      headers: { authorization: `DPoP ${tokens.access_token}`, dpop: proof!, 'x-consent-id': consentId },
    });
    expectError(replayed, 401, 'invalid_dpop_proof');
    expect(replayed.body.error.detail).toMatch(/used before/);

    const elsewhere = await otherDpopOfSameKey(tpp, (_header, payload) => {
      payload.htu = `${base}/ob/payment-orders`;
    });
    const misdirected = await accounts(tpp, tokens.access_token, consentId, elsewhere);
    expectError(misdirected, 401, 'invalid_dpop_proof');
    expect(misdirected.body.error.detail).toMatch(/htu must be the URL called/);

    const skewed = await otherDpopOfSameKey(tpp, (_header, payload) => {
      payload.iat = (payload.iat as number) + 30;
    });
    const ahead = await accounts(tpp, tokens.access_token, consentId, skewed);
    expectError(ahead, 401, 'invalid_dpop_proof');
    expect(ahead.body.error.detail).toMatch(/iat is (29|30|31) s from the server's clock/);
    expect(ahead.headers.get('dpop-nonce')).toBeTruthy();

    // A fresh handle has no nonce yet: the server asks for one (use_dpop_nonce) and says which.
    const fresh = await otherDpopOfSameKey(tpp);
    const noNonce = await call(base, 'GET', '/ob/accounts', {
      headers: await proofHeaders(fresh, tokens.access_token, consentId),
    });
    expectError(noNonce, 401, 'use_dpop_nonce');
    expect(noNonce.headers.get('www-authenticate')).toMatch(/^DPoP error="use_dpop_nonce"/);
    expect(noNonce.headers.get('dpop-nonce')).toMatch(/^[0-9a-z]+\.[\w-]{22}$/);
  });

  it('redeems a request_uri once, by its own client, before it expires; a fapi2 consent page opens only through PAR', async () => {
    const tpp = await registered();
    const consentId = await newConsent(tpp);
    const viewJson = (path: string) => call(base, 'GET', path, { headers: { accept: 'application/json' } });

    expectError(await viewJson(`/ob/auth/${consentId}`), 400, 'PAR_REQUIRED');
    expectError(
      await call(base, 'POST', `/ob/auth/${consentId}/approve`, {
        body: { customer: { type: 'alias', value: customer.alias }, otp: customer.otp },
      }),
      400,
      'PAR_REQUIRED',
    );

    const pushed = await push(tpp, consentId);
    const other = await registered();
    const redeem = (clientId: string, requestUri: string) =>
      viewJson(`/ob/auth?${new URLSearchParams({ client_id: clientId, request_uri: requestUri })}`);
    const foreign = await redeem(other.clientId, pushed.requestUri);
    expectError(foreign, 400, 'INVALID_REQUEST_URI');
    expect(foreign.body.error.detail).toMatch(/another client/);
    const redeemed = await redeem(tpp.clientId, pushed.requestUri);
    expect(redeemed.body).toEqual({ consent_id: consentId, location: `/ob/auth/${consentId}` });
    expectError(await redeem(tpp.clientId, pushed.requestUri), 400, 'INVALID_REQUEST_URI');
    expect((await viewJson(`/ob/auth/${consentId}`)).status).toBe(200);

    const late = await push(tpp, await newConsent(tpp));
    await t.platform.db
      .knex('open_banking.pushed_authorization_requests')
      .where({ request_uri: late.requestUri })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const expired = await redeem(tpp.clientId, late.requestUri);
    expectError(expired, 400, 'INVALID_REQUEST_URI');
    expect(expired.body.error.detail).toMatch(/expired/);
    // A browser gets a page saying so, not JSON.
    const page = await fetch(authorizationUrl(tpp, late.requestUri), { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('This link has expired');
  });

  it('binds the code to the DPoP key of PAR (dpop_jkt) and refuses PAR without client authentication', async () => {
    const tpp = await registered();
    const pushed = await push(tpp, await newConsent(tpp));
    const returned = await approveInBrowser(tpp, pushed);
    expect(await oauthErrorOf(exchange(tpp, pushed, returned, await otherDpop(tpp)))).toMatchObject({
      status: 400,
      code: 'invalid_dpop_proof',
    });
    // Refused without spending the code: the TPP's own key redeems it.
    expect((await exchange(tpp, pushed, returned)).token_type).toBe('dpop');

    const consentId = await newConsent(tpp);
    const unauthenticated = await call(base, 'POST', '/ob/par', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        response_type: 'code',
        client_id: tpp.clientId,
        redirect_uri: callback,
        state: 's',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: 'S256',
        consent_id: consentId,
      }).toString(),
    });
    expectError(unauthenticated, 401, 'INVALID_CLIENT');
    // A token request of a fapi2 client without a DPoP proof: its tokens would be bearer, so none are issued.
    const bare = await oauth.clientCredentialsGrantRequest(
      as,
      tpp.client,
      privateKeyJwt(tpp),
      new URLSearchParams({ scope: 'accounts' }),
      INSECURE,
    );
    expect(bare.status).toBe(400);
    expect(bare.headers.get('www-authenticate')).toMatch(
      /^DPoP error="invalid_dpop_proof", error_description="a fapi2/,
    );
    expect((await bare.json()).error.code).toBe('invalid_dpop_proof');
  });

  it('revokes with client authentication (RFC 7009): a refresh token takes its grant, another client is refused', async () => {
    const tpp = await registered();
    const { tokens, consentId } = await granted(tpp);
    const revoke = (client: FapiTpp, token: string) =>
      oauth.revocationRequest(as, client.client, privateKeyJwt(client), token, INSECURE);

    const other = await registered();
    const foreign = await revoke(other, tokens.refresh_token!);
    expect(foreign.status).toBe(401);
    expect((await foreign.json()).error.code).toBe('INVALID_CLIENT');
    const unauthenticated = await call(base, 'POST', '/ob/revoke', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token! }).toString(),
    });
    expectError(unauthenticated, 401, 'INVALID_CLIENT');
    expect((await accounts(tpp, tokens.access_token, consentId)).status).toBe(200);

    await oauth.processRevocationResponse(await revoke(tpp, tokens.refresh_token!));
    expectError(await accounts(tpp, tokens.access_token, consentId), 401, 'TOKEN_REVOKED');
    // Unknown or already revoked: answered as revoked (RFC 7009 2.2).
    await oauth.processRevocationResponse(await revoke(tpp, tokens.refresh_token!));
    await oauth.processRevocationResponse(await revoke(tpp, 'at_unknown0000000000000000000000000'));
    const revokedRows = await t.platform.db
      .knex('auth.credentials')
      .where({ owner_id: consentId })
      .whereNull('revoked_at');
    expect(revokedRows).toEqual([]);
  });

  /** A DPoP handle on the TPP's own key whose proofs `modify` changes (or a fresh one, without the server's nonce). */
  async function otherDpopOfSameKey(
    tpp: FapiTpp,
    modify?: (header: Record<string, unknown>, payload: Record<string, unknown>) => void,
  ): Promise<oauth.DPoPHandle> {
    const handle = oauth.DPoP(tpp.client, tpp.dpopKeys, modify ? { [oauth.modifyAssertion]: modify } : undefined);
    // Primed with the server's current nonce (from an answer), so only `modify` is wrong.
    if (modify)
      await withNonce(() =>
        oauth.protectedResourceRequest('x', 'GET', new URL('/ob/accounts', base), new Headers(), null, {
          ...INSECURE,
          DPoP: handle,
        }),
      ).catch(() => undefined);
    return handle;
  }

  /** The headers oauth4webapi sends with a resource request, without sending it. */
  async function proofHeaders(handle: oauth.DPoPHandle, token: string, consentId: string) {
    let sent: Record<string, string> = {};
    const keep = async (_url: string, init: oauth.CustomFetchOptions<string, oauth.ProtectedResourceRequestBody>) => {
      sent = Object.fromEntries(new Headers(init.headers).entries());
      return new Response(null, { status: 204 });
    };
    await oauth.protectedResourceRequest(
      token,
      'GET',
      new URL('/ob/accounts', base),
      new Headers({ 'x-consent-id': consentId }),
      null,
      {
        ...INSECURE,
        DPoP: handle,
        [oauth.customFetch]: keep,
      },
    );
    return sent;
  }
});
