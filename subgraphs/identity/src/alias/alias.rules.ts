import { GatewayError, parseIban, requireIban, rules, z, type IbanInfo } from '@gateway/kernel';

/** API-CONTRACT "Identity registry": 3-32 chars of a-z 0-9 . _ -, starting with a letter. No `@`, so `handle@bank` splits unambiguously. */
export const ALIAS_HANDLE = /^[a-z][a-z0-9._-]{2,31}$/;

/** Same shape as the banks subgraph's bank handles (a subgraph never imports another). */
export const BANK_HANDLE = /^[a-z][a-z0-9-]{1,31}$/;

/** E.164: a plus, a non-zero country code digit, 7 to 15 digits in all (e.g. +218912345678). */
export const E164_PHONE = /^\+[1-9]\d{6,14}$/;

/** Participating banks register with country LY, so an account at a claiming bank is an LY IBAN. */
export const DIRECTORY_COUNTRY = 'LY';

const phone = z.string().regex(E164_PHONE, 'must be an E.164 number such as +218912345678');

/** Everything of a claim except the handle, which has its own error code (HANDLE_INVALID). */
export const claimAliasRules = z
  .object({
    nptHandle: z.string(),
    // Checked on its own below: the contract answers a bad IBAN on a claim with 422.
    iban: z.string(),
    customerDisplayName: rules.text(100),
    bankCustomerRef: rules.text(64),
    phone: phone.nullish(),
  })
  .strict();

export function requireHandle(handle: string): string {
  if (!ALIAS_HANDLE.test(handle)) {
    throw new GatewayError(
      'HANDLE_INVALID',
      'npt_handle: 3-32 characters of lowercase letters, digits, ".", "_" or "-", starting with a letter',
    );
  }
  return handle;
}

/**
 * API-CONTRACT: a claim whose IBAN is invalid or not at the claiming bank is a 422. The bank key
 * carries the bank's institution code as a scope `institution:<code>` (banks subgraph).
 */
export function requireAccountAtBank(raw: string, bankHandle: string, scopes: readonly string[] | undefined): IbanInfo {
  const iban = parseIban(raw);
  if (!iban) throw new GatewayError('IBAN_INVALID', 'iban: not a valid IBAN (format or checksum)');
  const ownCodes = (scopes ?? [])
    .filter((scope) => scope.startsWith('institution:'))
    .map((scope) => scope.slice('institution:'.length));
  if (iban.countryCode !== DIRECTORY_COUNTRY || !ownCodes.includes(iban.institutionCode)) {
    throw new GatewayError(
      'IBAN_NOT_AT_BANK',
      `iban: not an account at ${bankHandle} (institution code ${iban.institutionCode})`,
    );
  }
  return iban;
}

/** What the public resolution looks up: one of a handle (optionally at a bank), a phone number or an IBAN. */
export type AliasLookup =
  { by: 'handle'; handle: string; bankHandle?: string } | { by: 'phone'; phone: string } | { by: 'iban'; iban: string };

export interface ResolveArgs {
  alias?: string | null;
  phone?: string | null;
  iban?: string | null;
}

/** What routing looks up: a handle (optionally at a bank) or an IBAN; phone numbers are not a routing input. */
export type RoutingLookup = Exclude<AliasLookup, { by: 'phone' }>;

/** Validates aliasRouting arguments (and a payer's take's): exactly one of alias or iban. */
export function parseRoutingLookup(args: { alias?: string | null; iban?: string | null }): RoutingLookup {
  const lookup = parseLookup(args);
  if (lookup.by === 'phone') throw new GatewayError('VALIDATION_ERROR', 'alias: give an alias or an IBAN');
  return lookup;
}

/**
 * Validates resolveAlias arguments. Handles are lower-cased and trimmed first: customers type
 * them at checkout, and every stored handle is lower case, so `Ali` can only mean `ali`.
 */
export function parseLookup(args: ResolveArgs): AliasLookup {
  const given = (['alias', 'phone', 'iban'] as const).filter((name) => args[name] !== undefined && args[name] !== null);
  if (given.length !== 1) {
    throw new GatewayError('VALIDATION_ERROR', `${given[1] ?? 'alias'}: give exactly one of alias, phone or iban`);
  }
  if (args.phone != null) {
    if (!E164_PHONE.test(args.phone))
      throw new GatewayError('VALIDATION_ERROR', 'phone: must be an E.164 number such as +218912345678');
    return { by: 'phone', phone: args.phone };
  }
  if (args.iban != null) {
    return { by: 'iban', iban: requireIban(args.iban, 'iban').iban };
  }
  const [handle = '', bankHandle, ...rest] = (args.alias ?? '').trim().toLowerCase().split('@');
  if (rest.length > 0 || !ALIAS_HANDLE.test(handle) || (bankHandle !== undefined && !BANK_HANDLE.test(bankHandle))) {
    throw new GatewayError('VALIDATION_ERROR', 'alias: must be a handle or handle@bank_handle');
  }
  return bankHandle === undefined ? { by: 'handle', handle } : { by: 'handle', handle, bankHandle };
}
