import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { DpopRefusal } from '@gateway/kernel';
import { Credential } from '../credential.entity';
import { migrateVault } from '../schema';
import { DpopNonces } from './dpop-nonce';
import { accessTokenHash, verifyDpopProof, type DpopRequest } from './dpop-proof';
import { recordDpopProof } from './seen-proofs';

const URL_CALLED = 'https://gateway.example/ob/accounts';
const TOKEN = 'at_0123456789abcdefghijklmnopqrstuv';

interface Holder {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

const holder = async (alg: 'ES256' | 'PS256' | 'EdDSA' = 'ES256'): Promise<Holder> => {
  const pair = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  return { privateKey: pair.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
};

/** A proof as a conforming client makes it, with `change` applied to its claims or header. */
const proofOf = (
  key: Holder,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
  alg = 'ES256',
): Promise<string> =>
  new SignJWT({
    htm: 'GET',
    htu: URL_CALLED,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    ath: accessTokenHash(TOKEN),
    ...claims,
  })
    .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk: key.jwk, ...header })
    .sign(key.privateKey);

const request: DpopRequest = { method: 'GET', url: URL_CALLED, accessToken: TOKEN };

const refusalOf = async (promise: Promise<unknown>): Promise<DpopRefusal> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DpopRefusal) return error;
    throw error;
  }
  throw new Error('the proof was accepted');
};

describe('DPoP proofs (RFC 9449 4.3)', () => {
  let key: Holder;
  beforeAll(async () => {
    key = await holder();
  });

  it('accepts a conforming proof and answers its key thumbprint, jti and how long to keep the jti', async () => {
    const jti = randomUUID();
    const verified = await verifyDpopProof(await proofOf(key, { jti }), request);
    expect(verified).toMatchObject({ jkt: key.jkt, jti });
    expect(verified.expiresAt.getTime()).toBeGreaterThan(Date.now() + 9_000);
    expect(verified.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 12_000);
  });

  it('accepts PS256 and EdDSA keys, the query and a default port in the URL ignored', async () => {
    for (const alg of ['PS256', 'EdDSA'] as const) {
      const other = await holder(alg);
      const proof = await proofOf(other, { htu: 'https://GATEWAY.example:443/ob/accounts' }, {}, alg);
      expect((await verifyDpopProof(proof, { ...request, url: `${URL_CALLED}?page=2` })).jkt).toBe(other.jkt);
    }
  });

  it.each([
    ['no proof', undefined, /a DPoP proof is required/],
    ['two proofs', ['a.b.c', 'd.e.f'], /exactly one DPoP header/],
    ['two proofs joined by Node', 'a.b.c, d.e.f', /exactly one DPoP header/],
    ['not a JWS', 'not-a-jwt', /not a signed JWT/],
  ])('refuses %s', async (_case, header, detail) => {
    const refusal = await refusalOf(verifyDpopProof(header as never, request));
    expect(refusal).toMatchObject({ code: 'invalid_dpop_proof', detail: expect.stringMatching(detail) });
  });

  /**
   * Seconds before the instant the case runs at (a table's values are made when the file loads),
   * the proof verified at that same whole second: an iat of the second's start taken against a
   * clock already 0.99 s into it was 10.01 s ahead, and accepted, on a busy CI machine.
   */
  const ago = (seconds: number) => (at: number) => at - seconds;
  it.each<[string, Record<string, unknown | ((at: number) => number)>, Record<string, unknown>, RegExp]>([
    ['a wrong typ', {}, { typ: 'JWT' }, /typ must be dpop\+jwt/],
    ['another method', { htm: 'POST' }, {}, /htm must be the request's method, GET/],
    ['another URL', { htu: 'https://gateway.example/ob/payment-orders' }, {}, /htu must be the URL called/],
    ['another host', { htu: 'https://evil.example/ob/accounts' }, {}, /htu must be the URL called/],
    ['an iat 11 s in the past', { iat: ago(11) }, {}, /iat is -1\d s from the server/],
    ['an iat 11 s ahead', { iat: ago(-11) }, {}, /iat is 1\d s from the server/],
    ['an exp in the past', { exp: ago(60) }, {}, /exp is in the past/],
    ['an nbf in the future', { nbf: ago(-60) }, {}, /nbf is in the future/],
    ['no jti', { jti: undefined }, {}, /jti claim is required/],
    ['an ath of another token', { ath: accessTokenHash('at_other') }, {}, /ath must be/],
    ['no ath', { ath: undefined }, {}, /ath must be/],
  ])('refuses a proof with %s', async (_case, claims, header, detail) => {
    const at = Math.floor(Date.now() / 1000);
    const now = Object.fromEntries(
      Object.entries(claims).map(([name, value]) => [name, typeof value === 'function' ? value(at) : value]),
    );
    const refusal = await refusalOf(verifyDpopProof(await proofOf(key, now, header), request, new Date(at * 1000)));
    expect(refusal).toMatchObject({ code: 'invalid_dpop_proof', detail: expect.stringMatching(detail) });
  });

  it('refuses a private key in the header, an HMAC or none alg, and a signature by another key', async () => {
    const withPrivate = await proofOf(key, {}, { jwk: await exportJWK(key.privateKey) });
    expect((await refusalOf(verifyDpopProof(withPrivate, request))).detail).toMatch(/public key, never a private one/);
    const hmac = await new SignJWT({ htm: 'GET', htu: URL_CALLED, iat: Math.floor(Date.now() / 1000), jti: 'x' })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: key.jwk })
      .sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long!'));
    expect((await refusalOf(verifyDpopProof(hmac, request))).detail).toMatch(/alg "HS256" is not accepted/);
    const other = await holder();
    const forged = await proofOf(other, {}, { jwk: key.jwk });
    expect((await refusalOf(verifyDpopProof(forged, request))).detail).toMatch(/signature does not verify/);
  });
});

describe('DPoP nonces (RFC 9449 8)', () => {
  const secret = 'a-platform-secret-of-at-least-32-chars';

  it('are accepted by every instance with the same secret, in their window and the next, and by no other', () => {
    const one = new DpopNonces(secret, true);
    const another = new DpopNonces(secret, true);
    const now = new Date('2026-11-29T10:00:00Z');
    const nonce = one.current(now);
    expect(another.accepts(nonce, now)).toBe(true);
    expect(another.accepts(nonce, new Date(now.getTime() + 300_000))).toBe(true);
    expect(another.accepts(nonce, new Date(now.getTime() + 600_000))).toBe(false);
    expect(new DpopNonces('another-secret-of-at-least-32-chars!', true).accepts(nonce, now)).toBe(false);
    expect(one.accepts(`${nonce}x`, now)).toBe(false);
    expect(one.accepts(undefined, now)).toBe(false);
  });

  it('are required when configured: use_dpop_nonce with the nonce to use, then accepted', async () => {
    const key = await holder();
    const nonces = new DpopNonces(secret, true);
    const missing = await refusalOf(verifyDpopProof(await proofOf(key), { ...request, nonces }));
    expect(missing).toMatchObject({ code: 'use_dpop_nonce', dpopNonce: nonces.current() });
    const stale = await refusalOf(verifyDpopProof(await proofOf(key, { nonce: 'zz.stale' }), { ...request, nonces }));
    expect(stale.code).toBe('use_dpop_nonce');
    const accepted = await verifyDpopProof(await proofOf(key, { nonce: missing.dpopNonce }), { ...request, nonces });
    expect(accepted.jkt).toBe(key.jkt);
  });

  it('are checked when sent though not required, and every refusal hands one out', async () => {
    const key = await holder();
    const nonces = new DpopNonces(secret, false);
    expect((await verifyDpopProof(await proofOf(key), { ...request, nonces })).jkt).toBe(key.jkt);
    const wrong = await refusalOf(verifyDpopProof(await proofOf(key, { nonce: 'zz.wrong' }), { ...request, nonces }));
    expect(wrong).toMatchObject({ code: 'use_dpop_nonce', dpopNonce: nonces.current() });
    const skewed = await refusalOf(
      verifyDpopProof(await proofOf(key, { iat: Math.floor(Date.now() / 1000) - 30 }), { ...request, nonces }),
    );
    expect(skewed).toMatchObject({ code: 'invalid_dpop_proof', dpopNonce: nonces.current() });
  });
});

describe('seen DPoP proofs', () => {
  let db: Database;
  let orm: ServiceOrm;
  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, { schema: 'auth', entities: [Credential], migrations: [] });
  });
  afterAll(() => db.close());

  it('admits a jti once per key, across connections, and forgets a key’s expired proofs when it records the next', async () => {
    const live = new Date(Date.now() + 10_000);
    const proof = { jkt: 'key-a', jti: randomUUID(), expiresAt: live };
    const [first, second] = await Promise.all([recordDpopProof(orm.em, proof), recordDpopProof(orm.em, proof)]);
    expect([first, second].sort()).toEqual([false, true]);
    expect(await recordDpopProof(orm.em, { ...proof, jkt: 'key-b' })).toBe(true);

    await db.knex('auth.seen_dpop_proofs').insert([
      { jkt: 'key-a', jti: 'old-a', expires_at: new Date(Date.now() - 1000) },
      { jkt: 'key-b', jti: 'old-b', expires_at: new Date(Date.now() - 1000) },
    ]);
    expect(await recordDpopProof(orm.em, { jkt: 'key-a', jti: randomUUID(), expiresAt: live })).toBe(true);
    expect(await db.knex('auth.seen_dpop_proofs').where({ jti: 'old-a' })).toEqual([]);
    expect(await db.knex('auth.seen_dpop_proofs').where({ jti: 'old-b' })).toHaveLength(1);
  });
});
