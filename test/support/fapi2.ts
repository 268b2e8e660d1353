import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { call, type Answer } from '@gateway/rest-compat/testing';

/** oauth4webapi against a test platform on plain HTTP. */
export const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

export interface TppKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** A fapi2 TPP as its own software holds it: its client id, signing key, DPoP key and oauth4webapi handles. */
export interface FapiTpp {
  clientId: string;
  registrationAccessToken: string;
  key: TppKey;
  client: oauth.Client;
  dpopKeys: CryptoKeyPair;
  /** oauth4webapi's DPoP handle: signs a proof per request and keeps the server's last nonce. */
  dpop: oauth.DPoPHandle;
}

export const newKey = async (kid: string, alg: 'ES256' | 'PS256' | 'EdDSA' = 'ES256'): Promise<TppKey> => {
  const pair = await generateKeyPair(alg, { extractable: true });
  return { kid, privateKey: pair.privateKey, publicJwk: { ...(await exportJWK(pair.publicKey)), kid } };
};

/** A directory of software statements (OB_DIRECTORY_JWKS) and the platform's environment that trusts it. */
export interface Directory {
  env: { OB_DIRECTORY_JWKS: string };
  statement(claims?: Record<string, unknown>, key?: CryptoKey): Promise<string>;
}

export async function newDirectory(redirectUris: string[]): Promise<Directory> {
  const pair = await generateKeyPair('PS256', { extractable: true });
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'directory-1', alg: 'PS256' }] };
  return {
    env: { OB_DIRECTORY_JWKS: JSON.stringify(jwks) },
    statement: (claims = {}, key = pair.privateKey) =>
      new SignJWT({
        software_id: `sw-${randomBytes(4).toString('hex')}`,
        software_client_name: 'Fapi Budget',
        software_redirect_uris: redirectUris,
        ...claims,
      })
        .setProtectedHeader({ alg: 'PS256', kid: 'directory-1' })
        .setIssuer('https://directory.example')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(key),
  };
}

/** Registers a fapi2 TPP dynamically (RFC 7591) with a fresh signing key, and makes its DPoP key. */
export async function registerFapiTpp(
  base: string,
  directory: Directory,
  redirectUris: string[],
  metadata: { mode?: 'test' | 'live' } = {},
): Promise<FapiTpp> {
  const key = await newKey(`tpp-key-${randomBytes(3).toString('hex')}`);
  const answer = await call(base, 'POST', '/ob/register', {
    body: {
      software_statement: await directory.statement(),
      redirect_uris: redirectUris,
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.publicJwk] },
      ...metadata,
    },
  });
  if (answer.status !== 201) throw new Error(`registration failed: ${answer.text}`);
  const client: oauth.Client = { client_id: answer.body.client_id };
  const dpopKeys = (await generateKeyPair('ES256', { extractable: true })) as CryptoKeyPair;
  return {
    clientId: answer.body.client_id,
    registrationAccessToken: answer.body.registration_access_token,
    key,
    client,
    dpopKeys,
    dpop: oauth.DPoP(client, dpopKeys),
  };
}

/** The TPP's client authentication as oauth4webapi makes it: a fresh assertion per request. */
export const privateKeyJwt = (
  tpp: Pick<FapiTpp, 'key'>,
  modify?: (header: object, payload: Record<string, unknown>) => void,
): oauth.ClientAuth =>
  oauth.PrivateKeyJwt(
    { key: tpp.key.privateKey, kid: tpp.key.kid },
    modify ? { [oauth.modifyAssertion]: modify as never } : undefined,
  );

/**
 * Runs a request once more when the server asks for its DPoP nonce (RFC 9449 8): the handle has
 * kept the nonce from the refusal, so the second proof carries it. What a TPP's code does.
 */
export async function withNonce<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return request();
  }
}

/** The client_credentials token (cat_…) of a fapi2 TPP, DPoP-bound to its DPoP key. */
export async function clientToken(as: oauth.AuthorizationServer, tpp: FapiTpp, scope = 'accounts payments') {
  return withNonce(async () =>
    oauth.processClientCredentialsResponse(
      as,
      tpp.client,
      await oauth.clientCredentialsGrantRequest(as, tpp.client, privateKeyJwt(tpp), new URLSearchParams({ scope }), {
        ...INSECURE,
        DPoP: tpp.dpop,
      }),
    ),
  );
}

/**
 * A call with a DPoP-bound token, made by oauth4webapi (Authorization: DPoP and a proof per
 * request), answered as the REST helpers answer: a refusal with a challenge is returned, not thrown.
 */
export async function dpopCall(
  base: string,
  dpop: oauth.DPoPHandle,
  token: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers = new Headers(options.headers);
  if (options.body !== undefined) headers.set('content-type', 'application/json');
  const body = options.body === undefined ? null : JSON.stringify(options.body);
  const send = () =>
    oauth.protectedResourceRequest(token, method, new URL(path, base), headers, body, { ...INSECURE, DPoP: dpop });
  let response: Response;
  try {
    response = await withNonce(send);
  } catch (error) {
    if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error;
    response = error.response;
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}
