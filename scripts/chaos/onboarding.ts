import type { Client } from './client';
import type { SandboxCores } from './cores';
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

/** The parties the driver acts as: the customers, the merchant's API key and the TPP's access token. */
export interface Parties {
  customers: Customer[];
  merchantKey: string;
  tppToken: string;
}

/**
 * Registers the cores' banks with funded settlement accounts, eight funded and enrolled customers
 * per bank, a merchant and a TPP whose webhooks go to `receiverUrl` (the TPP's too, so payment
 * orders' order is checked as well).
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
  const shop = cores.banks[0]!;
  const shopAccount = await client.ok(
    'POST',
    `${shop.url}/sandbox/accounts`,
    { customer_ref: 'shop', holder_name: 'Chaos Shop', currency: 'LYD', balance: 0 },
    cores.internal(shop.handle),
  );
  const merchant = await client.ok(
    'POST',
    `${rest}/merchants`,
    { name: 'Chaos Shop', mode: 'live', webhook_url: receiverUrl, settlement_iban: shopAccount.iban },
    admin,
  );
  const tpp = await client.ok(
    'POST',
    `${rest}/ob/tpps`,
    { name: 'Chaos TPP', mode: 'live', redirect_uris: [OB_REDIRECT], webhook_url: receiverUrl },
    admin,
  );
  return { customers, merchantKey: merchant.api_key, tppToken: tpp.tpp_access_token };
}
