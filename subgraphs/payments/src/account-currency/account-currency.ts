import type { BankCorePool, CoreAddress } from '@gateway/bank-core-client';
import { GatewayError, worldOf, type Currency, type Logger } from '@gateway/kernel';

/**
 * What an account is held in, as its core says it (API-CONTRACT "Bank core interface": `GET
 * /accounts/{iban}` answers `balance` and `currency`): a session or mandate in another currency
 * is refused when it is created, and a payer's account in another currency before the debit,
 * instead of the core refusing the movement later (CBS_ERROR, or FAILED after the payer acted).
 *
 * The check never stands in the way of a payment it cannot judge: a core that is slow, down,
 * refused by the egress policy, or answers without a currency leaves the currency unknown, and
 * an unknown currency passes (the core's own refusal of the movement is the last word). The
 * built-in test bank is never asked: its accounts open on first use in the currency of that use
 * (a read opens one in LYD), so an unused test account has no currency to compare.
 */
/** EngineSettings' accountCurrency* (engine.settings.ts has the defaults and why). */
export interface AccountCurrencySettings {
  /** How long a currency a core said is reused: an account's currency does not change. */
  cacheMs: number;
  /** How long "the core could not say" is reused, so a core that is down slows nobody for long. */
  unknownMs: number;
  /** How long a creation or an authorization waits for the core before going on without the answer. */
  waitMs: number;
}

/** An account at a bank, asked in the world of the object it is for (a test object's, at a test core). */
export interface AccountAt {
  bank: CoreAddress;
  iban: string;
  livemode: boolean;
}

/** Who the account is to the movement, and how the refusal names it (an alias as given, or the IBAN). */
export interface NamedAccount extends AccountAt {
  role: 'payee' | 'payer';
  name: string;
}

/** The object whose currency must match: "session", "mandate", "charge", … */
export interface Priced {
  what: string;
  currency: Currency;
}

interface Entry {
  /** When the answer arrived (or, while it is awaited, when it was asked). */
  at: number;
  answer: Promise<Currency | null>;
  /** Set once answered: null is "unknown", kept unknownMs only. */
  settled?: { currency: Currency | null };
}

/** Entries kept at most (oldest dropped first): accounts asked about within cacheMs. */
const MAX_ENTRIES = 50_000;

export class AccountCurrencies {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly cores: BankCorePool,
    private readonly settings: AccountCurrencySettings,
    private readonly logger: Logger,
  ) {}

  /**
   * The account's currency, or null when it is not known within waitMs. Per world, bank and IBAN,
   * one core call at a time: concurrent asks share it, and an answer that comes after the wait
   * still fills the cache.
   */
  async of(account: AccountAt, requestId?: string): Promise<Currency | null> {
    const world = worldOf(account);
    if (this.cores.isBuiltInTestBank(account.bank, world)) return null;
    const iban = account.iban.replace(/\s+/g, '').toUpperCase();
    const key = `${world}\n${account.bank.handle}\n${iban}`;
    const entry = this.fresh(key) ?? this.ask(key, { ...account, iban }, requestId);
    if (entry.settled) return entry.settled.currency;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), this.settings.waitMs)));
    try {
      return await Promise.race([entry.answer, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * 422 CURRENCY_MISMATCH when the account is held in another currency than the object's (both
   * named in the detail: "session currency USD, payee account layla is in LYD"); null when it is
   * the same or unknown.
   */
  async refusal(account: NamedAccount, priced: Priced, requestId?: string): Promise<GatewayError | null> {
    const held = await this.of(account, requestId);
    if (held === null || held === priced.currency) return null;
    this.logger.info(
      { bank: account.bank.handle, role: account.role, currency: priced.currency, held, request_id: requestId },
      `${priced.what} refused: the ${account.role} account is held in another currency`,
    );
    return currencyMismatch(priced, account, held);
  }

  /** refusal(), thrown. */
  async assertHeldIn(account: NamedAccount, priced: Priced, requestId?: string): Promise<void> {
    const refused = await this.refusal(account, priced, requestId);
    if (refused) throw refused;
  }

  private fresh(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const ttl = entry.settled && entry.settled.currency === null ? this.settings.unknownMs : this.settings.cacheMs;
    if (Date.now() - entry.at < ttl) return entry;
    this.entries.delete(key);
    return undefined;
  }

  private ask(key: string, account: AccountAt, requestId?: string): Entry {
    const entry: Entry = { at: Date.now(), answer: this.read(account, requestId) };
    void entry.answer.then((currency) => {
      entry.settled = { currency };
      entry.at = Date.now();
    });
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }

  /** Never rejects: whatever keeps the core from saying (a timeout, a 5xx, a refused target, no currency in the answer) is "unknown". */
  private async read(account: AccountAt, requestId?: string): Promise<Currency | null> {
    try {
      const core = this.cores.for(account.bank, worldOf(account));
      return (await core.getAccount(account.iban, requestId ? { requestId } : {})).currency;
    } catch (error) {
      this.logger.info(
        { err: error, bank: account.bank.handle, request_id: requestId },
        'account currency unknown (the core did not say): not checked before the movement',
      );
      return null;
    }
  }
}

/** 422 CURRENCY_MISMATCH naming both currencies; nothing was written or moved. */
export const currencyMismatch = (
  priced: Priced,
  account: Pick<NamedAccount, 'role' | 'name'>,
  held: Currency,
): GatewayError =>
  new GatewayError(
    'CURRENCY_MISMATCH',
    `${priced.what} currency ${priced.currency}, ${account.role} account ${account.name} is in ${held}`,
  );
