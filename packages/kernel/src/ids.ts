import { randomFillSync } from 'node:crypto';

/** Every id prefix the platform issues (spec "Identifier prefixes" plus the contract's). */
export const ID_PREFIX = {
  consent: 'con',
  /** A confirmation-of-funds answer (issue 51, CBPII); not stored. */
  fundsConfirmation: 'fcf',
  accessToken: 'at',
  refreshToken: 'rt',
  /** A fapi2 TPP's own access token from the client_credentials grant (issue 49). */
  clientToken: 'cat',
  /** RFC 7592's registration access token of a dynamically registered TPP. */
  registrationToken: 'rat',
  account: 'acc',
  paymentOrder: 'po',
  /** A variable recurring payment (issue 51): a TPP's payment under a VRP consent's control parameters. */
  vrpPayment: 'vrp',
  paymentSession: 'ops',
  request: 'req',
  merchant: 'mer',
  tpp: 'tpp',
  event: 'evt',
  delivery: 'whd',
  mandate: 'mdt',
  charge: 'chg',
  refund: 'rfd',
  settlementCycle: 'stl',
  alias: 'ali',
  credential: 'cred',
  transaction: 'txn',
  obligation: 'obl',
  grant: 'grt',
  otpAttempt: 'otp',
  auditEntry: 'aud',
  adminKey: 'adk',
  webhookEndpoint: 'we',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Bytes from the CSPRNG, drawn 4 KiB at a time: ids are minted on every request (request ids, event
 * ids, …), and one call into the generator per ~80 ids costs far less than one per id. Each byte
 * is handed out once.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let pooled = POOL_SIZE;

function randomByte(): number {
  if (pooled === POOL_SIZE) {
    randomFillSync(pool);
    pooled = 0;
  }
  return pool[pooled++]!;
}

/** Random base62 string; rejection sampling keeps the distribution uniform. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/** A prefixed id: `ops_` + 24 base62 characters (~143 bits). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomToken(24)}`;
}
