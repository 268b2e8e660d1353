/**
 * `npm run demo:open-banking -- --fapi2`: the Open Banking walkthrough at FAPI 2.0, with the
 * seeded fapi2 demo TPP (operator-registered, live, its ES256 signing key in `.data/demo.json`)
 * and oauth4webapi as the TPP's client library, so no OAuth is written by hand on the TPP's side:
 * discovery, a DPoP-bound client_credentials token (private_key_jwt), a consent, a pushed
 * authorization request, the customer's approval in Chromium, the code exchanged with DPoP,
 * accounts and balances read with DPoP proofs, a refresh, the access token refused as a bearer
 * token, and revocation. A nonce the server asks for (use_dpop_nonce) is retried once, as a TPP's
 * code does. Each request is printed as curl would send it (JWTs shortened; no private key is
 * ever printed) with what came back.
 */
import { generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { expectStatus, launchChromium, restClient, type Answer } from './support/walkthrough';

export interface Fapi2WalkthroughDemo {
  base_url: string;
  fapi2_tpp?: { tpp_id: string; kid: string; private_jwk: Record<string, string> };
  customers: Array<{ alias: string; bank_handle: string; otp: string; iban: string }>;
}

export interface Fapi2WalkthroughOptions {
  demo: Fapi2WalkthroughDemo;
  /** Where the REST API answers; default the demo file's base_url. */
  baseUrl?: string;
  /** The TPP's registered redirect URI (the demo registered `{base_url}/demo/callback`). */
  redirectUri?: string;
  chromiumPath?: string;
  log?: (line: string) => void;
}

/** What the walkthrough saw, for its test. */
export interface Fapi2WalkthroughResult {
  tppId: string;
  consentId: string;
  /** token_type of the client_credentials, code and refresh answers (oauth4webapi lower-cases it). */
  tokenTypes: { clientCredentials: string; code: string; refresh: string };
  accounts: Array<Record<string, unknown>>;
  balances: Record<string, unknown>;
  /** The refreshed access token reads again. */
  readAfterRefresh: number;
  /** Refusals: the access token sent as a Bearer token, the rotated-out one, and the pair after revocation. */
  refusals: Record<string, { status: number; code: string }>;
}

/** The demo file predates the fapi2 TPP (or was hand-edited): what to do about it. */
export class NoFapi2TppError extends Error {
  constructor(file: string) {
    super(
      `${file} has no fapi2 demo TPP (it was seeded by an earlier release). Stop and start \`npm start\` again: ` +
        'the seed adds the fapi2 TPP to the same data. Then run `npm run demo:open-banking -- --fapi2` again.',
    );
    this.name = 'NoFapi2TppError';
  }
}

const SCOPES = 'accounts:read balances:read transactions:read';
/** JWTs (client assertions, DPoP proofs) shortened in what is printed: they are long and one-use. */
const shorten = (text: string) => text.replace(/eyJ[\w-]{8}[\w-]*\.[\w-]+\.[\w-]+/g, (jwt) => `${jwt.slice(0, 16)}…`);

/** oauth4webapi's requests, printed as the walkthrough prints its own (curl, then the answer). */
function loggingFetch(log: (line: string) => void) {
  return async (url: string, init: oauth.CustomFetchOptions<string, unknown>): Promise<Response> => {
    const shown = Object.entries(init.headers).map(([name, value]) => ` -H '${name}: ${value}'`);
    const body =
      init.body instanceof URLSearchParams ? init.body.toString() : typeof init.body === 'string' ? init.body : '';
    log(shorten(`\n$ curl -s -X ${init.method} ${url}${shown.join('')}${body ? ` -d '${body}'` : ''}`));
    const response = await fetch(url, init as RequestInit);
    const text = await response.clone().text();
    let shownBody = text;
    try {
      shownBody = text ? JSON.stringify(JSON.parse(text), null, 2) : '';
    } catch {
      // Not JSON: shown as it came.
    }
    const nonce = response.headers.get('dpop-nonce');
    log(`${response.status} ${nonce ? `(DPoP-Nonce: ${nonce}) ` : ''}${shownBody}`);
    return response;
  };
}

/** Runs a request once more when the server asks for a DPoP nonce: the handle kept it from the refusal. */
async function withNonce<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return request();
  }
}

export async function runFapi2Walkthrough(
  options: Fapi2WalkthroughOptions & { file?: string },
): Promise<Fapi2WalkthroughResult> {
  const { demo } = options;
  const registered = demo.fapi2_tpp;
  if (!registered?.tpp_id) throw new NoFapi2TppError(options.file ?? 'The demo file');
  const base = (options.baseUrl ?? demo.base_url).replace(/\/+$/, '');
  const redirectUri = options.redirectUri ?? `${demo.base_url.replace(/\/+$/, '')}/demo/callback`;
  const log = options.log ?? ((line: string) => console.log(line));
  const send = restClient(base, log);
  // Plain HTTP to a local platform; in production the issuer is https.
  const http = { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: loggingFetch(log) } as const;
  const customer = demo.customers[0]!;

  // A TPP is configured with the issuer it trusts; here it is the one the platform at `base` names
  // (it may name itself by another host, e.g. localhost for 127.0.0.1), then checked by oauth4webapi.
  const metadata = await fetch(`${base}/.well-known/oauth-authorization-server`);
  const issuer = new URL(
    expectStatus({ status: metadata.status, body: await metadata.json() }, 200, 'discovery').issuer,
  );
  log(`The fapi2 demo TPP ${registered.tpp_id} (live) reads the metadata of the issuer ${issuer.origin} (RFC 8414).`);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...http }),
  );
  const client: oauth.Client = { client_id: registered.tpp_id };
  const signingKey = (await importJWK(registered.private_jwk as JWK, 'ES256')) as CryptoKey;
  const clientAuth = () => oauth.PrivateKeyJwt({ key: signingKey, kid: registered.kid });
  log(
    `\nIts client authentication: private_key_jwt, assertions signed with its key ${registered.kid}. ` +
      'Its tokens are bound (DPoP) to a fresh ES256 key pair made now, which never leaves it.',
  );
  const dpop = oauth.DPoP(client, (await generateKeyPair('ES256')) as CryptoKeyPair);
  const thumbprint = await dpop.calculateThumbprint();
  log(`DPoP key thumbprint (jkt): ${thumbprint}`);

  /** A call with a DPoP-bound token (Authorization: DPoP and a proof per request); a refusal is returned, not thrown. */
  const dpopCall = async (
    token: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    json?: unknown,
  ) => {
    const all = new Headers(headers);
    if (json !== undefined) all.set('content-type', 'application/json');
    const body = json === undefined ? null : JSON.stringify(json);
    let response: Response;
    try {
      response = await withNonce(() =>
        oauth.protectedResourceRequest(token, method, new URL(`${base}${path}`), all, body, { ...http, DPoP: dpop }),
      );
    } catch (error) {
      if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error;
      response = error.response;
    }
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined } as Answer;
  };

  log('\nA client_credentials token (cat_…) to create the consent with: private_key_jwt, bound to the DPoP key.');
  const clientToken = await withNonce(async () =>
    oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, clientAuth(), new URLSearchParams({ scope: 'accounts' }), {
        ...http,
        DPoP: dpop,
      }),
    ),
  );

  log(`\nThe TPP creates a consent to ${SCOPES} at ${customer.bank_handle} with that token.`);
  const consent = expectStatus(
    await dpopCall(
      clientToken.access_token,
      'POST',
      '/ob/consents',
      {},
      {
        bank_handle: customer.bank_handle,
        scopes: SCOPES.split(' '),
        redirect_uri: redirectUri,
        // The authorization request itself (state, PKCE) is pushed next; the consent's own fields are the spec's.
        state: 'set-at-par',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: 'S256',
        expiry_days: 30,
      },
    ),
    201,
    'creating the consent',
  );
  const consentId = consent.consent_id as string;

  log('\nIt pushes the authorization request (RFC 9126): PKCE S256, the consent id, the code bound to its DPoP key.');
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const pushed = await withNonce(async () =>
    oauth.processPushedAuthorizationResponse(
      as,
      client,
      await oauth.pushedAuthorizationRequest(
        as,
        client,
        clientAuth(),
        new URLSearchParams({
          response_type: 'code',
          redirect_uri: redirectUri,
          scope: SCOPES,
          state,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          consent_id: consentId,
        }),
        { ...http, DPoP: dpop },
      ),
    ),
  );

  const authorization = new URL(as.authorization_endpoint!);
  authorization.searchParams.set('client_id', client.client_id);
  authorization.searchParams.set('request_uri', pushed.request_uri);
  // The same path and query on the address this walkthrough reaches the platform at.
  const opened = `${base}${authorization.pathname}${authorization.search}`;
  log(`\n${customer.alias} opens ${opened} and approves with OTP ${customer.otp}, in Chromium.`);
  const browser = await launchChromium(options.chromiumPath);
  let landed: URL;
  try {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    // The TPP's side of the redirect: answered here, so the walkthrough needs no TPP server.
    await page.route(`${redirectUri}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Back at the Demo Budgeting App</h1>' }),
    );
    await page.goto(opened);
    await page.fill('#customer-value', customer.alias);
    await page.fill('#otp', customer.otp);
    await page.click('#approve-button');
    await page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 30_000 });
    landed = new URL(page.url());
    await context.close();
  } finally {
    await browser.close();
  }
  log(`landed on ${landed.origin}${landed.pathname} with code, state, iss ${landed.searchParams.get('iss')}`);

  log(
    '\nThe TPP checks the response (state, iss: RFC 9207) and exchanges the code: private_key_jwt, PKCE verifier, DPoP.',
  );
  const tokens = await withNonce(async () =>
    oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth(),
        oauth.validateAuthResponse(as, client, landed, state),
        redirectUri,
        verifier,
        { ...http, DPoP: dpop, additionalParameters: { consent_id: consentId } },
      ),
    ),
  );

  log('\nAccount information: Authorization: DPoP <token> and a fresh proof per request.');
  const data = { 'x-consent-id': consentId };
  const accounts = expectStatus(
    await dpopCall(tokens.access_token, 'GET', '/ob/accounts', data),
    200,
    'listing accounts',
  ).accounts as Array<Record<string, unknown>>;
  const accountId = accounts[0]!.account_id as string;
  const balances = expectStatus(
    await dpopCall(tokens.access_token, 'GET', `/ob/accounts/${accountId}/balances`, data),
    200,
    'reading balances',
  );

  const refusals: Fapi2WalkthroughResult['refusals'] = {};
  const refused = (name: string, answer: Answer) =>
    void (refusals[name] = { status: answer.status, code: answer.body?.error?.code });
  log('\nThe same access token copied and sent as a Bearer token, without a proof: refused.');
  refused(
    'access token as Bearer',
    await send('GET', '/ob/accounts', { headers: { authorization: `Bearer ${tokens.access_token}`, ...data } }),
  );

  log('\nA refresh (private_key_jwt, a proof of the same DPoP key) rotates the pair.');
  const refreshed = await withNonce(async () =>
    oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth(), tokens.refresh_token!, {
        ...http,
        DPoP: dpop,
        additionalParameters: { consent_id: consentId },
      }),
    ),
  );
  refused('rotated access token', await dpopCall(tokens.access_token, 'GET', '/ob/accounts', data));
  const again = await dpopCall(refreshed.access_token, 'GET', `/ob/accounts/${accountId}/balances`, data);
  expectStatus(again, 200, 'reading with the new token');

  log('\nThe TPP revokes the refresh token (RFC 7009, private_key_jwt): its grant ends, the access token with it.');
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, client, clientAuth(), refreshed.refresh_token!, http),
  );
  refused('access token after revocation', await dpopCall(refreshed.access_token, 'GET', '/ob/accounts', data));

  return {
    tppId: registered.tpp_id,
    consentId,
    tokenTypes: { clientCredentials: clientToken.token_type, code: tokens.token_type, refresh: refreshed.token_type },
    accounts,
    balances,
    readAfterRefresh: again.status,
    refusals,
  };
}
