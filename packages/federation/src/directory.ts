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

/** banks' bankRouting answer: a participating (ACTIVE) bank. */
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

const ALIAS_ROUTING = `query AliasRouting($alias: String, $iban: String) {
  aliasRouting(alias: $alias, iban: $iban) { handle iban bankHandle institutionCode bankCustomerRef status }
}`;
const BANK_ROUTING = `query BankRouting($handle: String, $institutionCode: String) {
  bankRouting(handle: $handle, institutionCode: $institutionCode) { handle status institutionCode coreBaseUrl internalKey sandboxCoreBaseUrl sandboxInternalKey minAmount maxAmount settlementAccountIban settlementAccounts { currency iban } }
}`;

/** Answers reused for a while, and concurrent asks for one key sharing one call. Refusals are never reused. */
class ShortCache<T> {
  private readonly entries = new Map<string, { at: number; answer: Promise<T> }>();

  constructor(private readonly ttlMs: number) {}

  /** Drops every answer: the next ask of each key is sent again. */
  clear(): void {
    this.entries.clear();
  }

  get(key: string, ask: () => Promise<T>): Promise<T> {
    const cached = this.entries.get(key);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.answer;
    const answer = ask();
    if (this.ttlMs > 0) {
      this.entries.set(key, { at: Date.now(), answer });
      if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value!);
      answer.catch(() => this.entries.get(key)?.answer === answer && this.entries.delete(key));
    }
    return answer;
  }
}

/**
 * Where money and account data live: the identity registry and the bank registry, asked through
 * the router as the calling service (a subgraph never reads another's schema); payments routes
 * movements with it, open-banking finds a consenting customer and the bank core to ask. Both are asked on every
 * payment and change rarely, so answers are reused for a short while (bank routing a few
 * seconds; alias routing about a second, so a deactivated alias stops being routable within
 * that), and concurrent asks for one key share one call. Errors (ALIAS_NOT_FOUND,
 * BANK_NOT_PARTICIPATING, ...) pass through and are never reused.
 */
export class Directory {
  private readonly aliases: ShortCache<AliasRouting>;
  private readonly banks: ShortCache<BankRouting>;

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
    if (world === 'test') {
      const payer = 'alias' in lookup ? this.testPayerBank(lookup.alias) : this.testPayerBankOfIban(lookup.iban);
      if (payer) {
        const bank = await this.bank(payer.bank, requestId);
        return testPayerRouting(`${payer.name}@${bank.handle}`, bank)!;
      }
    }
    return this.registryAlias(lookup, requestId);
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
    const key = 'alias' in lookup ? `a:${lookup.alias.trim().toLowerCase()}` : `i:${lookup.iban}`;
    return this.aliases.get(
      key,
      async () => (await this.call<{ aliasRouting: AliasRouting }>(ALIAS_ROUTING, lookup, requestId)).aliasRouting,
    );
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

  bank(lookup: { handle: string } | { institutionCode: string }, requestId?: string): Promise<BankRouting> {
    const key = 'handle' in lookup ? `h:${lookup.handle}` : `i:${lookup.institutionCode}`;
    return this.banks.get(
      key,
      async () => (await this.call<{ bankRouting: BankRouting }>(BANK_ROUTING, lookup, requestId)).bankRouting,
    );
  }
}
