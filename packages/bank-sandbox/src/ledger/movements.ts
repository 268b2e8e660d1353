import { newId } from '@gateway/kernel';
import type { ServiceOrm } from '@gateway/db';
import { bankErrors } from '../errors';
import { newRrn } from '../iban';
import { normalizeIban } from './accounts';
import { ledgerTables } from './orm';
import { SandboxAccountRow, SandboxTransactionRow, type ConfirmationStatus, type Operation } from './entities';
import { bookingDateOf, toTransactionView, type SandboxTransaction } from './views';

export interface MovementInput {
  iban: string;
  amount: number;
  currency: string;
  reference: string;
  description: string;
}

export interface BookingResult {
  transaction: SandboxTransaction;
  /** True when the reference had been booked before: the first answer, no money moved now. */
  replayed: boolean;
  /** True for a newly booked credit from another bank: the gateway expects a credit-confirmed. */
  railCredit: boolean;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/**
 * A gateway movement id: a payment session's (`ops_…`), an Open Banking payment order's
 * (`po_…`), a variable recurring payment (`vrp_…`), a mandate charge's (`chg_…`) or a refund's
 * (`rfd_…`), the reference of its debit and credit (not of a reversal `…:reversal`, nor a
 * settlement `stl_…`). A rail credit with one is confirmed to the gateway.
 */
const SESSION_REFERENCE = /^(ops|po|vrp|chg|rfd)_[^:\s]+$/;

/** Debits, credits and statements of one sandbox bank, in its ORM's schema. */
export class MovementBook {
  private readonly tables: ReturnType<typeof ledgerTables>;

  constructor(
    private readonly orm: ServiceOrm,
    private readonly bankHandle: string,
    private readonly clock: () => Date,
  ) {
    this.tables = ledgerTables(orm);
  }

  /**
   * Books a debit or credit exactly once per (operation, reference), in ONE statement and no
   * transaction (issue 15: BEGIN, two statements and COMMIT were four round trips per booking, and
   * the sandbox shares the benchmarks' machine). The statement's parts, data-modifying CTEs that
   * PostgreSQL applies all or none:
   * - `account` locks the account row (FOR UPDATE): bookings of one account take turns, and a
   *   booking that waited for another reads the balance that one committed (READ COMMITTED
   *   re-reads a locked row's newest version), not its snapshot's. Under that lock nothing can move
   *   the balance before `moved` does, so `balance_after` is the balance the update writes.
   * - `inserted` writes the transaction row only into an account of the movement's currency whose
   *   balance can take it (never below zero, never past the safe-integer range). It is the
   *   deduplication point: a unique index. A concurrent duplicate waits (on the row lock, or on
   *   the index when it names another account), then inserts nothing.
   * - `moved` moves the balance only if the row was inserted, so money moves exactly once.
   * A refused movement inserts nothing: it leaves no trace, and the same reference can be tried
   * again once the balance allows it. Only when nothing was inserted does a second statement read
   * the reference's row, to tell a replay (the first answer) from a refusal.
   *
   * The gateway sends only the spec's fields, so, as a real bank would, the bank tells a rail
   * credit from its own ledger: a credit whose reference is a payment session id (`ops_…`) that
   * this bank never debited paid money taken at another bank; it owes the gateway a
   * credit-confirmed (session_id = the reference). A payment within this bank (its debit is here)
   * and reversals (`ops_…:reversal`) are not rail credits.
   */
  async book(operation: Operation, input: MovementInput): Promise<BookingResult> {
    const iban = normalizeIban(input.iban);
    const bookedAt = this.clock();
    const fresh = { transactionId: newId('transaction'), rrn: newRrn() };
    // Could be a rail credit: a credit whose reference is a gateway movement's (the ledger then
    // looks for this bank's own debit of it, in the insert's statement).
    const maybeRail = operation === 'CREDIT' && SESSION_REFERENCE.test(input.reference);
    const delta = operation === 'DEBIT' ? -input.amount : input.amount;
    const em = this.orm.em.fork();
    const [found] = await em.execute<
      Array<{
        id: string;
        currency: string;
        rail: boolean;
        inserted: string | null;
        balance_after: string | number | null;
      }>
    >(
      `with account as (select "id", "currency", "balance" from ${this.tables.accounts} where "bank_handle" = ? and "iban" = ? for update),
         rail as (select ?::boolean and not exists (select 1 from ${this.tables.transactions}
           where "bank_handle" = ? and "operation" = 'DEBIT' and "reference" = ?) as "rail"),
         inserted as (insert into ${this.tables.transactions}
             ("transaction_id", "bank_handle", "operation", "reference", "iban", "amount", "currency", "description",
              "debtor_bank", "session_id", "rrn", "balance_after", "booked_at", "confirmation_status", "confirmation_attempts")
           select ?, ?, ?, ?, ?, ?, ?, ?, null, case when r."rail" then ? end, case when r."rail" then ? end, a."balance" + ?, ?,
             case when r."rail" then 'PENDING' end, 0
           from account a cross join rail r
           where a."currency" = ? and a."balance" + ? >= 0 and a."balance" + ? <= ${MAX_SAFE}
           on conflict ("bank_handle", "operation", "reference") do nothing
           returning "transaction_id", "balance_after"),
         moved as (update ${this.tables.accounts} set "balance" = "balance" + ?
           where "id" = (select "id" from account) and exists (select 1 from inserted) returning "balance")
       select a."id", a."currency", r."rail", i."transaction_id" as "inserted", i."balance_after"
       from account a cross join rail r left join inserted i on true`,
      [
        ...[this.bankHandle, iban],
        ...[maybeRail, this.bankHandle, input.reference],
        ...[
          fresh.transactionId,
          this.bankHandle,
          operation,
          input.reference,
          iban,
          input.amount,
          input.currency,
          input.description,
        ],
        ...[input.reference, fresh.rrn, delta, bookedAt],
        ...[input.currency, delta, delta],
        delta,
      ],
    );
    if (!found) throw bankErrors.accountNotFound(iban);
    if (found.currency !== input.currency) {
      throw bankErrors.currencyMismatch(iban, found.currency, input.currency);
    }
    if (!found.inserted) {
      // Nothing inserted: the reference was booked before (by now committed: a duplicate running
      // alongside waited for it; this new statement sees it), or the balance refused the movement.
      const first = await em.findOne(SandboxTransactionRow, {
        bankHandle: this.bankHandle,
        operation,
        reference: input.reference,
      });
      if (!first) throw operation === 'DEBIT' ? bankErrors.insufficientFunds() : bankErrors.balanceLimit();
      if (first.iban !== iban || Number(first.amount) !== input.amount || first.currency !== input.currency) {
        throw bankErrors.duplicateReference(input.reference);
      }
      return { transaction: toTransactionView(first), replayed: true, railCredit: false };
    }
    const rail = found.rail;
    const transaction: SandboxTransaction = {
      transactionId: fresh.transactionId,
      operation,
      reference: input.reference,
      iban,
      amount: input.amount,
      currency: found.currency as SandboxTransaction['currency'],
      description: input.description,
      debtorBank: null,
      sessionId: rail ? input.reference : null,
      rrn: rail ? fresh.rrn : null,
      balanceAfter: Number(found.balance_after),
      bookedAt,
      bookingDate: bookingDateOf(bookedAt),
      confirmationStatus: rail ? 'PENDING' : null,
      confirmationAttempts: 0,
    };
    return { transaction, replayed: false, railCredit: rail };
  }

  /** Transactions of an account booked between two UTC dates (inclusive), newest first. */
  async statement(iban: string, fromDate?: string, toDate?: string): Promise<SandboxTransaction[]> {
    const em = this.orm.em.fork();
    const key = normalizeIban(iban);
    if (!(await em.findOne(SandboxAccountRow, { bankHandle: this.bankHandle, iban: key })))
      throw bankErrors.accountNotFound(key);
    const bookedAt: { $gte?: Date; $lt?: Date } = {};
    if (fromDate) bookedAt.$gte = new Date(`${fromDate}T00:00:00.000Z`);
    if (toDate) bookedAt.$lt = new Date(Date.parse(`${toDate}T00:00:00.000Z`) + 86_400_000);
    const rows = await em.find(
      SandboxTransactionRow,
      { bankHandle: this.bankHandle, iban: key, ...(fromDate || toDate ? { bookedAt } : {}) },
      { orderBy: { bookedAt: 'desc', transactionId: 'desc' } },
    );
    return rows.map(toTransactionView);
  }

  async allTransactions(limit = 500): Promise<SandboxTransaction[]> {
    const rows = await this.orm.em
      .fork()
      .find(
        SandboxTransactionRow,
        { bankHandle: this.bankHandle },
        { orderBy: { bookedAt: 'desc', transactionId: 'desc' }, limit },
      );
    return rows.map(toTransactionView);
  }

  async findTransaction(transactionId: string): Promise<SandboxTransaction | null> {
    const row = await this.orm.em.fork().findOne(SandboxTransactionRow, { bankHandle: this.bankHandle, transactionId });
    return row ? toTransactionView(row) : null;
  }

  async pendingConfirmations(): Promise<SandboxTransaction[]> {
    const rows = await this.orm.em
      .fork()
      .find(
        SandboxTransactionRow,
        { bankHandle: this.bankHandle, confirmationStatus: 'PENDING' },
        { orderBy: { bookedAt: 'asc' } },
      );
    return rows.map(toTransactionView);
  }

  async recordConfirmation(transactionId: string, status: ConfirmationStatus, attempts: number): Promise<void> {
    await this.orm.em.fork().nativeUpdate(
      SandboxTransactionRow,
      { bankHandle: this.bankHandle, transactionId },
      {
        confirmationStatus: status,
        confirmationAttempts: attempts,
        confirmedAt: status === 'CONFIRMED' ? this.clock() : null,
      },
    );
  }
}
