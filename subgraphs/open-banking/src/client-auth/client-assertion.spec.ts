import { createHmac, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { CLOCK_SKEW_SECONDS, verifyClientAssertion } from './client-assertion';
import { publicJwksRule, type PublicJwks } from '../signing-keys/jwks';

const CLIENT = 'tpp_assertionclient00000001';
const AUDIENCE = { issuer: 'https://gw.example.ly', tokenEndpoint: 'https://gw.example.ly/ob/token' };
const NOW = new Date('2026-12-24T10:00:00Z');
const now = Math.floor(NOW.getTime() / 1000);

type Alg = 'ES256' | 'PS256' | 'EdDSA';
interface Key {
  kid: string;
  alg: Alg;
  privateKey: CryptoKey;
}

const b64u = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * The checks of a private_key_jwt assertion, one rule each (the OpenID FAPI 2.0 conformance
 * suite's negative client-authentication modules): each case changes one thing of a valid
 * assertion and must be refused INVALID_CLIENT with the rule named.
 */
describe('verifyClientAssertion', () => {
  const keys: Record<string, Key> = {};
  let jwks: PublicJwks;
  /** A key of the right type whose public half is not registered. */
  let stranger: Key;

  const claims = (patch: JWTPayload = {}): JWTPayload => ({
    iss: CLIENT,
    sub: CLIENT,
    aud: AUDIENCE.issuer,
    iat: now,
    exp: now + 60,
    jti: randomUUID(),
    ...patch,
  });
  const sign = (payload: JWTPayload, key: Key = keys.es!, header: Record<string, unknown> = {}) =>
    new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
  const verify = (assertion: string) => verifyClientAssertion(assertion, CLIENT, jwks, AUDIENCE, NOW);
  const refusal = async (assertion: Promise<string> | string) => {
    try {
      await verify(await assertion);
    } catch (error) {
      return (error as { extensions: { code: string; detail: string } }).extensions;
    }
    throw new Error('the assertion was accepted');
  };
  const expectRefused = async (assertion: Promise<string> | string, detail: RegExp) => {
    const answer = await refusal(assertion);
    expect(answer.code).toBe('INVALID_CLIENT');
    expect(answer.detail).toMatch(detail);
  };

  beforeAll(async () => {
    const make = async (kid: string, alg: Alg): Promise<Key> => {
      const pair = await generateKeyPair(alg, { extractable: true });
      return { kid, alg, privateKey: pair.privateKey };
    };
    keys.es = await make('es-1', 'ES256');
    keys.ps = await make('ps-1', 'PS256');
    keys.ed = await make('ed-1', 'EdDSA');
    stranger = await make('es-1', 'ES256');
    const publicOf = async (key: Key) => {
      const { d, p, q, dp, dq, qi, ...publicPart } = await exportJWK(key.privateKey);
      void [d, p, q, dp, dq, qi];
      return { ...publicPart, kid: key.kid, alg: key.alg, use: 'sig' };
    };
    jwks = publicJwksRule.parse({ keys: await Promise.all(Object.values(keys).map(publicOf)) });
  });

  it('accepts a valid assertion signed with each allowed family, and hands back its jti until exp (+ skew)', async () => {
    for (const key of Object.values(keys)) {
      const payload = claims();
      expect(await verify(await sign(payload, key))).toEqual({
        jti: payload.jti,
        expiresAt: new Date((now + 60 + CLOCK_SKEW_SECONDS) * 1000),
      });
    }
  });

  it('accepts aud naming the token endpoint, or a list holding the issuer', async () => {
    await expect(verify(await sign(claims({ aud: AUDIENCE.tokenEndpoint })))).resolves.toBeDefined();
    await expect(
      verify(await sign(claims({ aud: ['https://other.example', AUDIENCE.issuer] }))),
    ).resolves.toBeDefined();
  });

  it('refuses a wrong aud', async () => {
    await expectRefused(sign(claims({ aud: 'https://other.example' })), /aud must be the issuer/);
    await expectRefused(sign(claims({ aud: `${AUDIENCE.issuer}/` })), /aud must be the issuer/);
    await expectRefused(sign(claims({ aud: undefined })), /aud claim is required/);
  });

  it('refuses an exp in the past, beyond the clock skew', async () => {
    await expectRefused(sign(claims({ iat: now - 120, exp: now - CLOCK_SKEW_SECONDS - 1 })), /exp is in the past/);
  });

  it('refuses an exp more than 60 seconds ahead, and an assertion without exp', async () => {
    await expectRefused(sign(claims({ exp: now + 60 + CLOCK_SKEW_SECONDS + 1 })), /at most 60 seconds ahead/);
    await expectRefused(sign(claims({ exp: now + 3600 })), /at most 60 seconds ahead/);
    await expectRefused(sign(claims({ exp: undefined })), /exp claim is required/);
  });

  it('refuses an nbf or iat in the future', async () => {
    await expectRefused(sign(claims({ nbf: now + 30 })), /nbf is in the future/);
    await expectRefused(sign(claims({ iat: now + 30 })), /iat is in the future/);
  });

  it('refuses an assertion without sub, and one whose sub or iss is not the client (iss ≠ sub)', async () => {
    await expectRefused(sign(claims({ sub: undefined })), /sub claim is required/);
    await expectRefused(sign(claims({ sub: 'tpp_someoneelse000000000001' })), /sub must be the client_id/);
    await expectRefused(sign(claims({ iss: 'tpp_someoneelse000000000001' })), /iss must be the client_id/);
  });

  it('refuses an assertion without jti', async () => {
    await expectRefused(sign(claims({ jti: undefined })), /jti claim is required/);
  });

  it('refuses an unknown kid and a header without kid', async () => {
    await expectRefused(sign(claims(), keys.es, { kid: 'nobody' }), /no key with kid "nobody"/);
    await expectRefused(sign(claims(), keys.es, { kid: undefined }), /must name the signing key \(kid\)/);
  });

  it('refuses a signature by a key that is not the one registered under that kid', async () => {
    await expectRefused(sign(claims(), stranger), /signature does not verify/);
    // The kid of a key of another family than the algorithm used.
    await expectRefused(sign(claims(), keys.es, { kid: 'ps-1' }), /does not sign with ES256/);
  });

  it('refuses alg none, and an HMAC keyed with anything public (HS256 with the registered key as secret)', async () => {
    const unsigned = `${b64u({ alg: 'none', kid: 'es-1' })}.${b64u(claims())}.`;
    await expectRefused(unsigned, /alg "none" is not accepted/);
    const input = `${b64u({ alg: 'HS256', kid: 'es-1' })}.${b64u(claims())}`;
    const secret = JSON.stringify(jwks.keys[0]);
    const hmac = `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    await expectRefused(hmac, /alg "HS256" is not accepted/);
  });

  it('refuses what is not a JWS at all', async () => {
    await expectRefused('not-a-jwt', /not a signed JWT/);
    const [header, payload] = (await sign(claims())).split('.');
    await expectRefused(`${header}.${payload}`, /not a signed JWT/);
    await expectRefused(`${header}.${payload}.AAAA`, /signature does not verify/);
  });
});
