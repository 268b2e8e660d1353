import { randomBytes } from 'node:crypto';

/** Every id prefix the platform issues (spec "Identifier prefixes" plus the contract's). */
export const ID_PREFIX = {
  consent: 'con',
  accessToken: 'at',
  refreshToken: 'rt',
  account: 'acc',
  paymentOrder: 'po',
  paymentSession: 'ops',
  request: 'req',
  merchant: 'mer',
  tpp: 'tpp',
  event: 'evt',
  delivery: 'whd',
  mandate: 'mdt',
  charge: 'chg',
  settlementCycle: 'stl',
  alias: 'ali',
  credential: 'cred',
  transaction: 'txn',
  obligation: 'obl',
  grant: 'grt',
  otpAttempt: 'otp',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string; rejection sampling keeps the distribution uniform. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** A prefixed id: `ops_` + 24 base62 characters (~143 bits). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomToken(24)}`;
}
