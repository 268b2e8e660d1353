import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankCoreClient, BankCorePool, CoreTransaction } from '@gateway/bank-core-client';
import type { Directory } from '@gateway/federation';
import { GatewayError, worldOf } from '@gateway/kernel';
import { ConsentAccountEntity } from './consent-account.entity';
import {
  AccountType,
  BalanceType,
  CreditDebitIndicator,
  type ObAccount,
  type ObBalance,
  type ObTransaction,
} from './account.type';
import type { TransactionWindow } from './account.rules';
import type { RequestCoreReads } from './core-reads';

/** One wording for an id outside the consent, whether it exists elsewhere or nowhere. */
const accountNotFound = (id: string): GatewayError =>
  new GatewayError('ACCOUNT_NOT_FOUND', `no account ${id} among the consented accounts`);

/**
 * Account information (AIS): the consent's accounts (open_banking.consent_accounts, written at
 * approval) with their data read live from the bank core on every call (contract "Consented
 * accounts"), never stored. The bank's core is found through the bank registry (Directory);
 * a core that fails gives CBS_TIMEOUT / CBS_ERROR and nothing here changes. Within one request
 * each read is made once and their number is capped (RequestCoreReads).
 */
export class AccountService {
  constructor(
    private readonly directory: Directory,
    private readonly cores: BankCorePool,
  ) {}

  /** The consent's accounts, in the order the customer's approval recorded them. */
  consentAccounts(em: EntityManager, consentId: string): Promise<ConsentAccountEntity[]> {
    return em.find(ConsentAccountEntity, { consentId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  /** One account of the consent; an id outside it (even one of another consent) is ACCOUNT_NOT_FOUND. */
  async consentAccount(em: EntityManager, consentId: string, accountId: string): Promise<ConsentAccountEntity> {
    const account = await em.findOne(ConsentAccountEntity, { id: accountId, consentId });
    if (!account) throw accountNotFound(accountId);
    return account;
  }

  /** The account as its core describes it now (GET /accounts/{iban}), once per request. */
  async read(account: ConsentAccountEntity, reads: RequestCoreReads): Promise<ObAccount> {
    const { requestId } = reads;
    const core = await reads.once(`account:${account.id}`, async () =>
      (await this.coreOf(account, requestId)).getAccount(account.iban, { requestId }),
    );
    return {
      accountId: account.id,
      iban: account.iban,
      currency: core.currency,
      accountType: AccountType.CURRENT,
      displayName: core.holderName.trim() || `Account …${account.iban.slice(-4)}`,
      availableBalance: core.balance,
    };
  }

  /** Every account of the consent, their cores asked in parallel; one failure fails the read (no partial list). */
  async readAll(em: EntityManager, consentId: string, reads: RequestCoreReads): Promise<ObAccount[]> {
    const accounts = await this.consentAccounts(em, consentId);
    return Promise.all(accounts.map((account) => this.read(account, reads)));
  }

  balancesOf(account: Pick<ObAccount, 'availableBalance' | 'currency'>): ObBalance[] {
    return [{ type: BalanceType.AVAILABLE, amount: account.availableBalance, currency: account.currency }];
  }

  /**
   * Booked transactions in the window (dates inclusive), newest first, at most window.count.
   * The core is asked for the window and its answer filtered again, so a core that ignores the
   * dates cannot widen what the TPP sees. One statement per account and window per request,
   * whatever `count` each selection asks for.
   */
  async transactions(
    account: ConsentAccountEntity,
    window: TransactionWindow,
    reads: RequestCoreReads,
  ): Promise<ObTransaction[]> {
    const { requestId } = reads;
    const statement = await reads.once(`statement:${account.id}:${window.fromDate}:${window.toDate}`, async () =>
      (await this.coreOf(account, requestId)).listTransactions(account.iban, window.fromDate, window.toDate, {
        requestId,
      }),
    );
    const inWindow = statement.transactions.filter(
      (line) => line.bookingDate >= window.fromDate && line.bookingDate <= window.toDate,
    );
    const ids = transactionIds(account.id, inWindow);
    return inWindow
      .map((line, index) => ({
        transactionId: ids[index]!,
        bookingDate: line.bookingDate,
        amount: line.amount,
        currency: line.currency,
        creditDebitIndicator: CreditDebitIndicator[line.creditDebitIndicator],
        description: line.description,
      }))
      .sort((a, b) => (a.bookingDate < b.bookingDate ? 1 : a.bookingDate > b.bookingDate ? -1 : 0))
      .slice(0, window.count);
  }

  /** The account's core in the account's world: a test consent's accounts are read at test cores. */
  private async coreOf(account: ConsentAccountEntity, requestId?: string): Promise<BankCoreClient> {
    const bank = await this.directory.bank({ handle: account.bankHandle }, requestId);
    return this.cores.for(bank, worldOf(account));
  }
}

/**
 * The core's transaction ids; for lines without one, an id hashed from the account id and the
 * line's fields (plus its rank among identical lines), so it is the same on every read and says
 * nothing linkable across consents.
 */
function transactionIds(accountId: string, lines: CoreTransaction[]): string[] {
  const seen = new Map<string, number>();
  return lines.map((line) => {
    if (line.transactionId) return line.transactionId;
    const fields = [
      accountId,
      line.bookingDate,
      line.amount,
      line.currency,
      line.creditDebitIndicator,
      line.reference ?? '',
      line.description,
    ].join('\n');
    const rank = seen.get(fields) ?? 0;
    seen.set(fields, rank + 1);
    return `txn_${createHash('sha256').update(`${fields}\n${rank}`).digest('hex').slice(0, 32)}`;
  });
}
