import { newId, parseIban } from '@gateway/kernel';
import type { ServiceOrm } from '@gateway/db';
import { BankError } from '../errors';
import { AccountBook } from '../ledger/accounts';
import { MovementBook } from '../ledger/movements';
import { ledgerTables } from '../ledger/orm';
import { DEFAULT_TEST_BALANCE, testPayerByIban, testPayerCustomerRef } from './payers';

/**
 * The test bank's ledger: the sandbox ledger's tables in a schema of its own, so test payments
 * never touch the demo's sandbox banks (which carry the same handles). All state is in the
 * database: several processes starting test banks on one database see the same accounts.
 */
export const TEST_BANKS_SCHEMA = 'test_banks';

export interface HandleBooks {
  accounts: AccountBook;
  movements: MovementBook;
}

export class TestLedger {
  private readonly books = new Map<string, HandleBooks>();
  private readonly tables: ReturnType<typeof ledgerTables>;

  constructor(
    private readonly orm: ServiceOrm,
    private readonly clock: () => Date,
  ) {
    this.tables = ledgerTables(orm);
  }

  /**
   * One handle's books. The test bank opens accounts itself (openIfAbsent: any valid IBAN, whatever
   * its institution code), never through AccountBook.openAccount, so the books need no institution code.
   */
  of(handle: string): HandleBooks {
    let books = this.books.get(handle);
    if (!books) {
      books = {
        accounts: new AccountBook(this.orm, handle, '', this.clock),
        movements: new MovementBook(this.orm, handle, this.clock),
      };
      this.books.set(handle, books);
    }
    return books;
  }

  /**
   * Opens the account on first use, in one statement that does nothing when it exists (another
   * process may open it at the same time): a test payer's with its documented balance, any other
   * with the default test balance. False when `rawIban` is no valid IBAN (nothing to open).
   */
  async openIfAbsent(handle: string, rawIban: string, currency: string): Promise<boolean> {
    const iban = parseIban(rawIban)?.iban;
    if (!iban) return false;
    const payer = testPayerByIban(iban);
    await this.orm.em.fork().execute(
      `insert into ${this.tables.accounts} ("id", "bank_handle", "iban", "customer_ref", "holder_name", "currency", "balance", "created_at")
       values (?, ?, ?, ?, ?, ?, ?, ?) on conflict ("bank_handle", "iban") do nothing`,
      [
        newId('account'),
        handle,
        iban,
        payer ? testPayerCustomerRef(payer) : `test-account-${iban}`,
        payer ? `Test payer ${payer.name}` : `Test account ${iban.slice(-4)}`,
        currency,
        payer ? payer.balance : DEFAULT_TEST_BALANCE,
        this.clock(),
      ],
    );
    return true;
  }

  /** Runs `work` on the account, opening it first if it answers ACCOUNT_NOT_FOUND (one statement on the usual path). */
  async withAccount<T>(handle: string, iban: string, currency: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (
        !(error instanceof BankError && error.code === 'ACCOUNT_NOT_FOUND') ||
        !(await this.openIfAbsent(handle, iban, currency))
      )
        throw error;
      return work();
    }
  }

  /** IBANs a reference was debited from, at any handle of the test bank (the payer's side of a payment). */
  async debitedIbans(reference: string): Promise<string[]> {
    const rows = await this.orm.em
      .fork()
      .execute<Array<{ iban: string }>>(
        `select distinct "iban" from ${this.tables.transactions} where "operation" = 'DEBIT' and "reference" = ?`,
        [reference],
      );
    return rows.map((row) => row.iban);
  }
}
