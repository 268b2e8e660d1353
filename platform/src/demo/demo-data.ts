/** The demo's fixed cast: two banks with distinct institution codes, two funded customers at each. */
export const DEMO_BANKS = [
  { handle: 'oasis', displayName: 'Oasis Bank', institutionCode: '011' },
  { handle: 'atlas', displayName: 'Atlas Bank', institutionCode: '012' },
] as const;

export const DEMO_CUSTOMERS = [
  {
    alias: 'amina',
    bank: 'oasis',
    name: 'Amina Salem',
    customerRef: 'oasis-cust-001',
    otp: '111111',
    balance: 5_000_000,
  },
  { alias: 'omar', bank: 'oasis', name: 'Omar Haddad', customerRef: 'oasis-cust-002', otp: '222222', balance: 250_000 },
  {
    alias: 'layla',
    bank: 'atlas',
    name: 'Layla Mansour',
    customerRef: 'atlas-cust-001',
    otp: '333333',
    balance: 3_000_000,
  },
  {
    alias: 'yusuf',
    bank: 'atlas',
    name: 'Yusuf Karim',
    customerRef: 'atlas-cust-002',
    otp: '444444',
    balance: 1_000_000,
  },
] as const;

export const DEMO_CURRENCY = 'LYD';

/** An ES256 (P-256) private JWK as node:crypto exports it, with its kid. */
// A type, not an interface: a script reading demo.json takes it as a plain Record<string, string>.
export type DemoPrivateJwk = {
  kty: string;
  crv: string;
  x: string;
  y: string;
  d: string;
  kid: string;
  alg: string;
};

/**
 * What `.data/demo.json` holds (issue: snake_case keys as a REST user sees them). It is also the
 * seed's progress: rewritten (atomically) after each step, with each generated or shown-once
 * secret saved as soon as it exists, so a start stopped halfway resumes where it stopped.
 * Empty strings: not done yet.
 */
export interface DemoFile {
  /** Every step done; a file without it (an older one, or a seed stopped halfway) is resumed. */
  seed_complete?: boolean;
  admin_key: string;
  base_url: string;
  graphql_url: string;
  /** The test-mode demo merchant (mk_test_…): its payments move money at the built-in test bank only. */
  merchant: { merchant_id: string; api_key: string; webhook_secret: string };
  /** The live demo merchant (mk_live_…): its payments move the sandbox banks' money (the demo's "real" money). Absent in a file from an earlier release until the next start. */
  live_merchant?: { merchant_id: string; api_key: string; webhook_secret: string };
  tpp: { tpp_id: string; tpp_access_token: string };
  /**
   * The live FAPI 2.0 demo TPP (security_profile fapi2): no tpk_, it authenticates with
   * private_key_jwt signed by this key, whose public half the operator registered. Sandbox data
   * only, kept here so `npm run demo:open-banking -- --fapi2` can act as the TPP. Absent in a file
   * from an earlier release until the next start.
   */
  fapi2_tpp?: { tpp_id: string; kid: string; private_jwk: DemoPrivateJwk };
  banks: Array<{
    bank_handle: string;
    institution_code: string;
    bank_key: string;
    internal_key: string;
    core_base_url: string;
  }>;
  customers: Array<{
    alias: string;
    iban: string;
    bank_handle: string;
    otp: string;
    balance: number;
    currency: string;
  }>;
}
