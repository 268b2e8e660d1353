import { parseTestPayerAlias, testPayerByIban, testPayerRouting } from '@gateway/bank-sandbox';
import { parseIban, type World } from '@gateway/kernel';
import type { ServiceClient } from './service-client';

/** identity's aliasRouting answer. */
export interface AliasRouting {
  handle: string;
  iban: string;
  bankHandle: string;
  institutionCode: string;
  bankCustomerRef: string;
  status: 'ACTIVE' | 'INACTIVE';
}

/** banks' bankRouting answer: a participating (ACTIVE) bank; SUSPENDED only from Directory.bankInFlight. */
export interface BankRouting {
  handle: string;
  status: string;
  institutionCode: string;
  coreBaseUrl: string;
  internalKey: string;
  /** The bank's own test core (test objects only); null: the built-in test bank answers for it. */
  sandboxCoreBaseUrl: string | null;
  sandboxInternalKey: string | null;
  minAmount: number;
  maxAmount: number;
  /** Where settlement books the bank's net position in a currency without an account of its own. */
  settlementAccountIban: string;
  /** Settlement accounts for particular currencies. */
  settlementAccounts: Array<{ currency: string; iban: string }>;
}

/** The account a settlement position in `currency` is booked on. */
export function settlementIbanFor(
  bank: Pick<BankRouting, 'settlementAccountIban' | 'settlementAccounts'>,
  currency: string,
): string {
  return bank.settlementAccounts.find((account) => account.currency === currency)?.iban ?? bank.settlementAccountIban;
}

/** The fields of AliasRouting and BankRouting the platform reads (the OTP guard's payer take reads them too). */
export const ALIAS_ROUTING_FIELDS = 'handle iban bankHandle institutionCode bankCustomerRef status';
export const BANK_ROUTING_FIELDS =
  'handle status institutionCode coreBaseUrl internalKey sandboxCoreBaseUrl sandboxInternalKey minAmount maxAmount settlementAccountIban settlementAccounts { currency iban }';

const ALIAS_ROUTING = `query AliasRouting($alias: String, $iban: String) {
  aliasRouting(alias: $alias, iban: $iban) { ${ALIAS_ROUTING_FIELDS} }
}`;
const BANK_ROUTING = `query BankRouting($handle: String, $institutionCode: String, $includeSuspended: Boolean) {
  bankRouting(handle: $handle, institutionCode: $institutionCode, includeSuspended: $includeSuspended) { ${BANK_ROUTING_FIELDS} }
}`;

/** How many lookups' banks are remembered (each a few dozen bytes). */
const KNOWN_BANKS_MAX = 10_000;

/** Answers reused for a while, and concurrent asks for one key sharing one call. Refusals are never reused. */
class ShortCache<T> {
  private readonly entries = new Map<string, { at: number; answer: Promise<T>; value?: T }>();
  /** When the latest answer arrived (0: none since the last clear). */
  private answeredAt = 0;

  constructor(private readonly ttlMs: number) {}

  /** Drops every answer: the next ask of each key is sent again. */
  clear(): void {
    this.entries.clear();
    this.answeredAt = 0;
  }

  /** Whether some answer arrived within its lifetime (the cache is in use, whatever the key). */
  warm(): boolean {
    return Date.now() - this.answeredAt < this.ttlMs;
  }

  /** The answer for `key` if one arrived within its lifetime; never asks. */
  peek(key: string): T | undefined {
    const cached = this.entries.get(key);
    return cached && Date.now() - cached.at < this.ttlMs ? cached.value : undefined;
  }

  /** An answer learnt elsewhere (in another call's answer), kept as if asked now. */
  put(key: string, value: T): void {
    if (this.ttlMs <= 0) return;
    this.remember(key, { at: Date.now(), answer: Promise.resolve(value), value });
    this.answeredAt = Date.now();
  }

  get(key: string, ask: () => Promise<T>): Promise<T> {
    const cached = this.entries.get(key);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.answer;
    const answer = ask();
    if (this.ttlMs > 0) {
      const entry: { at: number; answer: Promise<T>; value?: T } = { at: Date.now(), answer };
      this.remember(key, entry);
      answer.then(
        (value) => {
          entry.value = value;
          this.answeredAt = Date.now();
        },
        () => this.entries.get(key) === entry && this.entries.delete(key),
      );
    }
    return answer;
  }

  private remember(key: string, entry: { at: number; answer: Promise<T>; value?: T }): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value!);
  }
}

/**
 * Where money and account data live: the identity registry and the bank registry, asked through
 * the router as the calling service (a subgraph never reads another's schema); payments routes
 * movements with it, open-banking finds a consenting customer and the bank core to ask. Both are asked on every
 * payment and change rarely, so answers are reused for a short while (about a second each: a
 * suspended bank and a deactivated alias stop being routable for new work within that), and
 * concurrent asks for one key share one call. Errors (ALIAS_NOT_FOUND,
 * BANK_NOT_PARTICIPATING, ...) pass through and are never reused.
 */
export class Directory {
  private readonly aliases: ShortCache<AliasRouting>;
  private readonly banks: ShortCache<BankRouting>;
  /**
   * The bank a lookup resolved to, by the alias cache's key. Kept beyond the alias cache: a handle
   * is claimed once, at one bank, and never reused, and an IBAN's aliases are all at the bank of
   * its institution code, so the bank a lookup names never changes (its routing still expires).
   */
  private readonly banksOfLookups = new Map<string, string>();

  constructor(
    private readonly call: ServiceClient,
    cache: { bankMs: number; aliasMs: number },
  ) {
    this.banks = new ShortCache(cache.bankMs);
    this.aliases = new ShortCache(cache.aliasMs);
  }

  /**
   * An alias (or IBAN) in a world. The built-in test bank's test payers (`success@oasis`, …) are
   * answered here in the test world only; live resolution never sees them. Any other alias
   * resolves in the registry in both worlds (a test payment's money then moves at test cores).
   */
  async alias(
    lookup: { alias: string } | { iban: string },
    requestId: string | undefined,
    world: World,
  ): Promise<AliasRouting> {
    return (await this.testPayer(lookup, world, requestId)) ?? this.registryAlias(lookup, requestId);
  }

  /** The test payer a lookup names, in the test world (their bank's routing asked, as for alias()); null for any other. */
  async testPayer(
    lookup: { alias: string } | { iban: string },
    world: World,
    requestId?: string,
  ): Promise<AliasRouting | null> {
    if (world !== 'test') return null;
    const payer = 'alias' in lookup ? this.testPayerBank(lookup.alias) : this.testPayerBankOfIban(lookup.iban);
    if (!payer) return null;
    const bank = await this.bank(payer.bank, requestId);
    return testPayerRouting(`${payer.name}@${bank.handle}`, bank)!;
  }

  /**
   * The routing of the bank a registry lookup resolves to, when both are known without asking:
   * the bank from an earlier answer for the lookup (or the lookup's own `@bank`), its routing
   * from the bank cache. Undefined otherwise.
   */
  knownBank(lookup: { alias: string } | { iban: string }): BankRouting | undefined {
    const handle =
      this.banksOfLookups.get(lookupKey(lookup)) ?? ('alias' in lookup ? lookup.alias.split('@')[1] : undefined);
    return handle === undefined ? undefined : this.banks.peek(`h:${handle.trim().toLowerCase()}`);
  }

  /**
   * Whether bank routings are cached now (any bank's): a lookup whose bank is unknown (a payer
   * seen for the first time) most likely names a bank already cached, since a scheme has few
   * banks and each stays cached while payments flow.
   */
  banksCached(): boolean {
    return this.banks.warm();
  }

  /** Learns from an answer given elsewhere (a payer's take): the lookup's bank, and that bank's routing. */
  learn(lookup: { alias: string } | { iban: string }, payer: AliasRouting, bank?: BankRouting): void {
    this.rememberBankOf(lookupKey(lookup), payer.bankHandle);
    if (bank) this.banks.put(`h:${bank.handle}`, bank);
  }

  private testPayerBank(alias: string): { name: string; bank: { handle: string } } | null {
    const parsed = parseTestPayerAlias(alias);
    return parsed ? { name: parsed.payer.name, bank: { handle: parsed.bankHandle } } : null;
  }

  /** A test payer's IBAN names its bank by the institution code inside it. */
  private testPayerBankOfIban(iban: string): { name: string; bank: { institutionCode: string } } | null {
    const payer = testPayerByIban(iban);
    const parsed = payer ? parseIban(iban) : null;
    return payer && parsed ? { name: payer.name, bank: { institutionCode: parsed.institutionCode } } : null;
  }

  private registryAlias(lookup: { alias: string } | { iban: string }, requestId?: string): Promise<AliasRouting> {
    const key = lookupKey(lookup);
    return this.aliases.get(key, async () => {
      const { aliasRouting } = await this.call<{ aliasRouting: AliasRouting }>(ALIAS_ROUTING, lookup, requestId);
      this.rememberBankOf(key, aliasRouting.bankHandle);
      return aliasRouting;
    });
  }

  private rememberBankOf(key: string, bankHandle: string): void {
    if (this.banksOfLookups.get(key) === bankHandle) return;
    this.banksOfLookups.set(key, bankHandle);
    if (this.banksOfLookups.size > KNOWN_BANKS_MAX)
      this.banksOfLookups.delete(this.banksOfLookups.keys().next().value!);
  }

  /**
   * Forgets every cached bank routing, so the next core call asks the registry again: on a
   * change of how a bank is reached (a rotated internal key, bank-changes.ts), whose new key must
   * go out at once rather than when the cached answer ages out. Banks change rarely; dropping
   * them all keeps this free of a handle-and-code bookkeeping.
   */
  forgetBanks(): void {
    this.banks.clear();
  }

  /**
   * A bank for new work (a session, consent, order, mandate, charge, OTP or data read):
   * BANK_NOT_PARTICIPATING unless ACTIVE. A suspension is obeyed from the next request once its
   * `bank.suspended` event drops the cache (bank-changes.ts), and after the cached answer's
   * lifetime (bankMs) at most, bus or no bus.
   */
  bank(lookup: { handle: string } | { institutionCode: string }, requestId?: string): Promise<BankRouting> {
    const key = 'handle' in lookup ? `h:${lookup.handle}` : `i:${lookup.institutionCode}`;
    return this.banks.get(
      key,
      async () => (await this.call<{ bankRouting: BankRouting }>(BANK_ROUTING, lookup, requestId)).bankRouting,
    );
  }

  /**
   * A bank for work already in flight (a started movement's steps, a settlement position):
   * answered while SUSPENDED too (API-CONTRACT "Operator controls": movements in flight finish
   * and settlement still pays its positions). Never for starting anything.
   */
  bankInFlight(lookup: { handle: string }, requestId?: string): Promise<BankRouting> {
    // A routing learnt for new work is an ACTIVE bank's, as good for work in flight: no second call.
    const known = this.banks.peek(`h:${lookup.handle}`);
    if (known) return Promise.resolve(known);
    return this.banks.get(
      `f:${lookup.handle}`,
      async () =>
        (await this.call<{ bankRouting: BankRouting }>(BANK_ROUTING, { ...lookup, includeSuspended: true }, requestId))
          .bankRouting,
    );
  }
}

/** The key of a registry lookup: handles as the registry reads them (trimmed, lower case). */
const lookupKey = (lookup: { alias: string } | { iban: string }): string =>
  'alias' in lookup ? `a:${lookup.alias.trim().toLowerCase()}` : `i:${lookup.iban}`;
