import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { parseInput } from '@gateway/kernel';
import { assertKeysImport, publicJwksRule, type PublicJwks } from './jwks';

/** The JWK Set a fapi2 TPP registers: public signing keys of the FAPI 2.0 families, each named by a unique kid. */
describe('publicJwksRule', () => {
  const jwk: Record<string, JWK> = {};
  const detail = (jwks: unknown) => {
    try {
      parseInput(publicJwksRule, jwks);
    } catch (error) {
      return (error as { detail: string }).detail;
    }
    throw new Error('accepted');
  };

  beforeAll(async () => {
    for (const [name, alg] of [
      ['ec', 'ES256'],
      ['rsa', 'PS256'],
      ['ed', 'EdDSA'],
    ] as const) {
      const pair = await generateKeyPair(alg, { extractable: true });
      jwk[name] = { ...(await exportJWK(pair.privateKey)), kid: `${name}-1` };
    }
  });
  const publicOf = (key: JWK): JWK =>
    Object.fromEntries(Object.entries(key).filter(([member]) => !['d', 'p', 'q', 'dp', 'dq', 'qi'].includes(member)));

  it('keeps the public members of EC P-256, RSA and Ed25519 keys, dropping the rest', () => {
    const keys = [publicOf(jwk.ec!), publicOf(jwk.rsa!), { ...publicOf(jwk.ed!), use: 'sig', key_ops: ['verify'] }];
    const parsed = publicJwksRule.parse({ keys });
    expect(parsed.keys.map((key) => [key.kty, key.kid])).toEqual([
      ['EC', 'ec-1'],
      ['RSA', 'rsa-1'],
      ['OKP', 'ed-1'],
    ]);
    expect(parsed.keys[2]).toEqual({ kty: 'OKP', kid: 'ed-1', crv: 'Ed25519', x: jwk.ed!.x, use: 'sig' });
  });

  it('refuses private keys, symmetric keys, a missing or repeated kid, and keys outside the FAPI families', () => {
    expect(detail({ keys: [jwk.ec] })).toBe('keys[0].d: private key material: publish public keys only');
    expect(detail({ keys: [publicOf(jwk.rsa!), jwk.rsa] })).toMatch(/^keys\[1\]\.d: private key material/);
    expect(detail({ keys: [{ kty: 'oct', kid: 'h', k: 'c2VjcmV0' }] })).toMatch(/^keys\[0\]\.k: private key material/);
    expect(detail({ keys: [{ kty: 'oct', kid: 'h' }] })).toMatch(/^keys\[0\]\.kty: must be EC, RSA or OKP/);
    const { kid, ...noKid } = publicOf(jwk.ec!);
    void kid;
    expect(detail({ keys: [noKid] })).toMatch(/^keys\[0\]\.kid:/);
    expect(detail({ keys: [publicOf(jwk.ec!), { ...publicOf(jwk.ed!), kid: 'ec-1' }] })).toBe(
      'keys: every kid must be unique',
    );
    expect(detail({ keys: [{ ...publicOf(jwk.ec!), alg: 'ES384' }] })).toMatch(/^keys\[0\]\.alg: must be one of/);
    expect(detail({ keys: [{ ...publicOf(jwk.ec!), alg: 'PS256' }] })).toBe('keys[0].alg: a EC key signs with ES256');
    expect(detail({ keys: [{ ...publicOf(jwk.ec!), crv: 'P-384' }] })).toBe('keys[0].crv: must be P-256');
    expect(detail({ keys: [{ ...publicOf(jwk.ec!), use: 'enc' }] })).toMatch(/^keys\[0\]\.use: must be sig/);
    expect(detail({ keys: [{ kty: 'RSA', kid: 'short', n: 'AQAB'.repeat(40), e: 'AQAB' }] })).toBe(
      'keys[0].n: RSA keys must have at least 2048 bits',
    );
    expect(detail({ keys: [] })).toBe('keys: must hold at least one key');
    expect(detail({ keys: [publicOf(jwk.ec!)], extra: 1 })).toMatch(/^body: /);
  });

  it('refuses, on import, a key of the right shape that is no public key (a point off the curve)', async () => {
    const valid = publicJwksRule.parse({ keys: [publicOf(jwk.ec!)] });
    await expect(assertKeysImport(valid, 'jwks', 'INVALID_CLIENT_METADATA')).resolves.toBeUndefined();
    const offCurve: PublicJwks = { keys: [{ ...valid.keys[0]!, y: valid.keys[0]!.x! }] };
    await expect(assertKeysImport(offCurve, 'jwks', 'INVALID_CLIENT_METADATA')).rejects.toMatchObject({
      extensions: { code: 'INVALID_CLIENT_METADATA', detail: 'jwks.keys[0]: not a valid EC public key' },
    });
  });
});
