import { importJWK } from 'jose';
import { GatewayError, z, type ErrorCode } from '@gateway/kernel';

/**
 * The JWS algorithms a fapi2 TPP's client assertions, and a directory's software statements, may
 * be signed with: FAPI 2.0 Security Profile 5.4.1 (PS256, ES256, EdDSA with Ed25519). Never
 * `none`, never an HMAC: a shared secret is not a key the TPP alone holds.
 */
export const SIGNING_ALGS = ['ES256', 'PS256', 'EdDSA'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

/** A public JWK as stored: only the members that name and make the public key. */
export interface PublicJwk {
  kty: 'EC' | 'RSA' | 'OKP';
  kid: string;
  use?: 'sig';
  alg?: SigningAlg;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
}

export interface PublicJwks {
  keys: PublicJwk[];
}

/** Members that only a private (or a symmetric) key has: their presence means a secret was sent. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** An unpadded base64url string of exactly `length` characters (a 32-byte coordinate: 43). */
const b64u = (length?: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url without padding')
    .refine((value) => length === undefined || value.length === length, `must be ${length} base64url characters`);

/** The key type each algorithm family needs, and its curve where it has one. */
const FAMILY: Record<PublicJwk['kty'], { alg: SigningAlg; crv?: string }> = {
  EC: { alg: 'ES256', crv: 'P-256' },
  RSA: { alg: 'PS256' },
  OKP: { alg: 'EdDSA', crv: 'Ed25519' },
};

/** 2048 bits of modulus in unpadded base64url (FAPI 2.0 5.4.1: RSA keys of at least 2048 bits). */
const RSA_MIN_MODULUS_CHARS = 342;

const jwkRule = z
  .record(z.string(), z.unknown())
  .superRefine((jwk, ctx) => {
    for (const member of PRIVATE_MEMBERS)
      if (member in jwk)
        ctx.addIssue({ code: 'custom', path: [member], message: 'private key material: publish public keys only' });
  })
  .pipe(
    z.object({
      kty: z.enum(['EC', 'RSA', 'OKP'], { error: 'must be EC, RSA or OKP (no symmetric keys)' }),
      kid: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
      use: z.literal('sig', { error: 'must be sig' }).optional(),
      alg: z.enum(SIGNING_ALGS, { error: `must be one of ${SIGNING_ALGS.join(', ')}` }).optional(),
      crv: z.string().optional(),
      x: b64u().optional(),
      y: b64u().optional(),
      n: b64u().optional(),
      e: b64u().optional(),
    }),
  )
  .superRefine((jwk, ctx) => {
    const family = FAMILY[jwk.kty];
    if (jwk.alg !== undefined && jwk.alg !== family.alg)
      ctx.addIssue({ code: 'custom', path: ['alg'], message: `a ${jwk.kty} key signs with ${family.alg}` });
    if (family.crv !== undefined && jwk.crv !== family.crv)
      ctx.addIssue({ code: 'custom', path: ['crv'], message: `must be ${family.crv}` });
    const need: Array<keyof PublicJwk> = jwk.kty === 'RSA' ? ['n', 'e'] : jwk.kty === 'EC' ? ['x', 'y'] : ['x'];
    for (const member of need)
      if (jwk[member] === undefined) ctx.addIssue({ code: 'custom', path: [member], message: 'required' });
    if (jwk.kty === 'RSA' && jwk.n !== undefined && jwk.n.length < RSA_MIN_MODULUS_CHARS)
      ctx.addIssue({ code: 'custom', path: ['n'], message: 'RSA keys must have at least 2048 bits' });
    if (jwk.kty !== 'RSA' && jwk.x !== undefined && jwk.x.length !== 43)
      ctx.addIssue({ code: 'custom', path: ['x'], message: 'must be 43 base64url characters' });
    if (jwk.kty === 'EC' && jwk.y !== undefined && jwk.y.length !== 43)
      ctx.addIssue({ code: 'custom', path: ['y'], message: 'must be 43 base64url characters' });
  })
  // Stored and shown as the members above only: whatever else came (x5c, key_ops, ...) was dropped.
  .transform(
    (jwk): PublicJwk =>
      Object.fromEntries(Object.entries(jwk).filter(([, value]) => value !== undefined)) as unknown as PublicJwk,
  );

/**
 * A JWK Set of public signing keys (RFC 7517 5): 1-10 keys, each with a kid unique in the set (the
 * assertion's header names its key by kid), of the FAPI 2.0 families only, no private members.
 */
export const publicJwksRule = z
  .object({
    keys: z
      .array(jwkRule)
      .min(1, 'must hold at least one key')
      .max(10, 'must hold at most 10 keys')
      .refine((keys) => new Set(keys.map((key) => key.kid)).size === keys.length, 'every kid must be unique'),
  })
  .strict();

/**
 * Whether each key is a usable public key (a point on its curve, a well-formed modulus): the
 * shape rule above cannot tell. Refused with `code` naming the key.
 */
export async function assertKeysImport(jwks: PublicJwks, field: string, code: ErrorCode): Promise<void> {
  for (const [index, jwk] of jwks.keys.entries()) {
    try {
      await importJWK({ ...jwk }, jwk.alg ?? FAMILY[jwk.kty].alg);
    } catch {
      throw new GatewayError(code, `${field}.keys[${index}]: not a valid ${jwk.kty} public key`);
    }
  }
}
