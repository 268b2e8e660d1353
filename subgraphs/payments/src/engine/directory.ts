import type { ServiceClient } from '@gateway/federation';

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
  minAmount: number;
  maxAmount: number;
}

const ALIAS_ROUTING = `query AliasRouting($alias: String, $iban: String) {
  aliasRouting(alias: $alias, iban: $iban) { handle iban bankHandle institutionCode bankCustomerRef status }
}`;
const BANK_ROUTING = `query BankRouting($handle: String, $institutionCode: String) {
  bankRouting(handle: $handle, institutionCode: $institutionCode) { handle status institutionCode coreBaseUrl internalKey minAmount maxAmount }
}`;

/**
 * Where payments go: the identity registry and the bank registry, asked through the router as
 * the `payments` service (a subgraph never reads another's schema). Bank routing changes
 * rarely and is asked on every payment, so answers are reused for a few seconds and concurrent
 * asks for one bank share one call; alias routing is always asked afresh, so a deactivated
 * alias is refused at once. Errors (ALIAS_NOT_FOUND, BANK_NOT_PARTICIPATING, ...) pass through.
 */
export class Directory {
  private readonly banks = new Map<string, { at: number; answer: Promise<BankRouting> }>();

  constructor(
    private readonly call: ServiceClient,
    private readonly cacheMs: number,
  ) {}

  async alias(lookup: { alias: string } | { iban: string }, requestId?: string): Promise<AliasRouting> {
    return (await this.call<{ aliasRouting: AliasRouting }>(ALIAS_ROUTING, lookup, requestId)).aliasRouting;
  }

  bank(lookup: { handle: string } | { institutionCode: string }, requestId?: string): Promise<BankRouting> {
    const key = 'handle' in lookup ? `h:${lookup.handle}` : `i:${lookup.institutionCode}`;
    const cached = this.banks.get(key);
    if (cached && Date.now() - cached.at < this.cacheMs) return cached.answer;
    const answer = this.call<{ bankRouting: BankRouting }>(BANK_ROUTING, lookup, requestId).then((data) => data.bankRouting);
    this.banks.set(key, { at: Date.now(), answer });
    // A refusal is not reused: the bank may be registered or reactivated any moment.
    answer.catch(() => this.banks.get(key)?.answer === answer && this.banks.delete(key));
    return answer;
  }
}
