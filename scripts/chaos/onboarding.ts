import type { Client } from './client';
import type { SandboxCore } from '../launcher/sandbox-banks';
import type { SandboxCores } from './cores';
import { CAPPED_BANK_INDEX, setNetDebitCap, type CapSet } from './net-debit';
import { between } from './random';

/** Where the TPP's consents send the payer back. */
export const OB_REDIRECT = 'https://tpp.example/callback';

/** A payer (and payee) at one of the cores: enrolled with an alias, its OTP known to the run. */
export interface Customer {
  alias: string;
  iban: string;
  otp: string;
  bank: string;
}

/** A merchant the driver acts as: its API key and the bank of its settlement_iban (refunds are paid from it; a payer there is refunded within the bank). */
export interface Merchant {
  key: string;
  bank: string;
}

/** The parties the driver acts as: the customers, the merchants and the TPP's access token. */
export interface Parties {
  customers: Customer[];
  /** The run's merchant: most sessions, the mandates, the subscriptions sample. */
  merchant: Merchant;
  /**
   * A merchant whose settlement account holds only THIN_SHOP_BALANCE, at the second bank: a share
   * of the sessions is its, and its refunds soon meet INSUFFICIENT_FUNDS (FAILED, nothing moves,
   * the amount left to refund again).
   */
  thinMerchant: Merchant;
  tppToken: string;
  /** The net debit cap set on one payer bank (net-debit.ts): some of its cross-bank payments are refused. */
  netDebitCap: CapSet;
}

/** What the thin merchant's settlement account starts with (minor units): a refund or two. */
const THIN_SHOP_BALANCE = 5_000;

/**
 * Registers the cores' banks with funded settlement accounts, eight funded and enrolled customers
 * per bank, two merchants (the run's, its settlement account at the first bank and funded:
 * refunds are paid from it; a thin one at the second bank) and a TPP, whose webhooks all go to
 * `receiverUrl` (the TPP's too, so payment orders' order is checked as well); caps the third
 * bank's net debit position in LYD (net-debit.ts), so some of its cross-bank payments are refused.
 */
export async function onboard(
  client: Client,
  cores: SandboxCores,
  rest: string,
  adminKey: string,
  receiverUrl: string,
): Promise<Parties> {
  const admin = { 'x-service-admin-key': adminKey };
  const customers: Customer[] = [];
  for (const bank of cores.banks) {
    const internal = cores.internal(bank.handle);
    const settlement = await client.ok(
      'POST',
      `${bank.url}/sandbox/accounts`,
      { customer_ref: `${bank.handle}-settlement`, holder_name: 'Settlement', currency: 'LYD', balance: 1_000_000_000 },
      internal,
    );
    const registered = await client.ok(
      'POST',
      `${rest}/banks`,
      {
        bank_handle: bank.handle,
        display_name: `Chaos ${bank.handle}`,
        country: 'LY',
        core_base_url: bank.url,
        settlement_account_iban: settlement.iban,
        contact_email: `ops@${bank.handle}.example`,
        institution_code: bank.institutionCode,
        internal_key: cores.keyOf(bank.handle),
        ob_enabled: true,
        ob_scopes_supported: ['accounts:read', 'balances:read', 'transactions:read', 'payments:write'],
        // The run's orders reuse a customer's consent; the caps on exemptions (SCA again after a
        // few) are not what is tested here: every order below the limit executes at once.
        sca_exemption_max_count: 1000,
        sca_exemption_cumulative_limit: 1_000_000_000,
      },
      admin,
    );
    await client.ok('PUT', `${bank.url}/sandbox/gateway`, { url: rest, bank_key: registered.bank_key }, internal);
    for (let i = 0; i < 8; i++) {
      const otp = String(between(100_000, 999_999));
      const customerRef = `${bank.handle}-c${i}`;
      const account = await client.ok(
        'POST',
        `${bank.url}/sandbox/accounts`,
        { customer_ref: customerRef, holder_name: `Chaos ${i}`, currency: 'LYD', balance: 50_000_000, otp },
        internal,
      );
      const alias = `c${i}.${bank.handle}`;
      await client.ok(
        'POST',
        `${rest}/v1/identity/claim`,
        { npt_handle: alias, iban: account.iban, customer_display_name: `Chaos ${i}`, bank_customer_ref: customerRef },
        { 'x-service-bank-key': registered.bank_key },
      );
      customers.push({ alias, iban: account.iban, otp, bank: bank.handle });
    }
  }
  const merchant = async (name: string, bank: SandboxCore, balance: number): Promise<Merchant> => {
    const account = await client.ok(
      'POST',
      `${bank.url}/sandbox/accounts`,
      { customer_ref: name.toLowerCase().replace(/\W+/g, '-'), holder_name: name, currency: 'LYD', balance },
      cores.internal(bank.handle),
    );
    const created = await client.ok(
      'POST',
      `${rest}/merchants`,
      { name, mode: 'live', webhook_url: receiverUrl, settlement_iban: account.iban },
      admin,
    );
    return { key: created.api_key, bank: bank.handle };
  };
  const shop = await merchant('Chaos Shop', cores.banks[0]!, 50_000_000);
  const thinShop = await merchant('Chaos Thin Shop', cores.banks[1]!, THIN_SHOP_BALANCE);
  const tpp = await client.ok(
    'POST',
    `${rest}/ob/tpps`,
    { name: 'Chaos TPP', mode: 'live', redirect_uris: [OB_REDIRECT], webhook_url: receiverUrl },
    admin,
  );
  const netDebitCap = await setNetDebitCap(client, rest, admin, cores.banks[CAPPED_BANK_INDEX]!.handle);
  return { customers, merchant: shop, thinMerchant: thinShop, tppToken: tpp.tpp_access_token, netDebitCap };
}
