import { assertCurrency, newId, parseIban, safeEqual, sha256Hex } from '@gateway/kernel';
import type { ServiceOrm } from '@gateway/db';
import { bankErrors, BankError } from '../errors';
import { newLyIban } from '../iban';
import { SandboxAccountRow, SandboxCustomer } from './entities';
import { ledgerTables } from './orm';
import { toAccountView, type SandboxAccount } from './views';

export interface OpenAccountInput {
  customerRef: string;
  holderName: string;
  currency: string;
  /** Opening balance, minor units. */
  balance: number;
  /** A chosen IBAN (must carry this bank's institution code); generated when absent. */
  iban?: string;
}

/** Accounts and customers (OTPs) of one sandbox bank, in its ORM's schema. */
export class AccountBook {
  private readonly tables: ReturnType<typeof ledgerTables>;

  constructor(
    private readonly orm: ServiceOrm,
    private readonly bankHandle: string,
    private readonly institutionCode: string,
    private readonly clock: () => Date,
  ) {
    this.tables = ledgerTables(orm);
  }

  /**
   * Idempotent so that a launcher re-seeding demo data after a restart finds the accounts it made
   * before (balances untouched): by IBAN when one is given, otherwise by customer and currency.
   */
  async openAccount(input: OpenAccountInput): Promise<SandboxAccount> {
    const { customerRef, holderName, currency, balance } = input;
    if (typeof customerRef !== 'string' || !customerRef.trim()) throw bankErrors.validation('customer_ref: required');
    if (typeof holderName !== 'string' || !holderName.trim()) throw bankErrors.validation('holder_name: required');
    assertCurrency(currency);
    if (!Number.isSafeInteger(balance) || balance < 0)
      throw bankErrors.validation('balance: must be a non-negative integer of minor units');
    const iban = input.iban === undefined ? undefined : this.requireOwnIban(input.iban);

    return this.orm.em.fork().transactional(async (em) => {
      // Serialises concurrent openings of the same account (one query; no HTTP inside).
      await em.execute('select pg_advisory_xact_lock(hashtext(?))', [
        `${this.tables.schema}:${this.bankHandle}:${iban ?? `${customerRef}:${currency}`}`,
      ]);
      const existing = await em.findOne(
        SandboxAccountRow,
        iban ? { bankHandle: this.bankHandle, iban } : { bankHandle: this.bankHandle, customerRef, currency },
        {
          orderBy: { createdAt: 'asc' },
        },
      );
      if (existing) {
        if (existing.customerRef !== customerRef || existing.currency !== currency) {
          throw new BankError(409, 'IBAN_TAKEN', `${existing.iban} already belongs to another customer or currency`);
        }
        return toAccountView(existing);
      }
      await this.ensureCustomer(em, customerRef);
      const row = em.create(SandboxAccountRow, {
        id: newId('account'),
        bankHandle: this.bankHandle,
        iban: iban ?? newLyIban(this.institutionCode),
        customerRef,
        holderName: holderName.trim(),
        currency,
        balance: BigInt(balance),
        createdAt: this.clock(),
      });
      em.persist(row);
      return toAccountView(row);
    });
  }

  async getAccount(iban: string): Promise<SandboxAccount | null> {
    const row = await this.orm.em
      .fork()
      .findOne(SandboxAccountRow, { bankHandle: this.bankHandle, iban: normalizeIban(iban) });
    return row ? toAccountView(row) : null;
  }

  async listAccounts(): Promise<SandboxAccount[]> {
    const rows = await this.orm.em
      .fork()
      .find(SandboxAccountRow, { bankHandle: this.bankHandle }, { orderBy: { createdAt: 'asc', iban: 'asc' } });
    return rows.map(toAccountView);
  }

  /** Creates the customer when new; replaces the OTP (only its hash is kept). */
  async setOtp(customerRef: string, otp: string): Promise<void> {
    if (typeof customerRef !== 'string' || !customerRef.trim()) throw bankErrors.validation('customer_ref: required');
    if (typeof otp !== 'string' || !/^\S{4,32}$/.test(otp))
      throw bankErrors.validation('otp: 4 to 32 non-space characters');
    await this.orm.em.fork().execute(
      `insert into ${this.tables.customers} ("bank_handle", "customer_ref", "otp_hash", "created_at") values (?, ?, ?, ?)
       on conflict ("bank_handle", "customer_ref") do update set "otp_hash" = excluded."otp_hash"`,
      [this.bankHandle, customerRef, sha256Hex(otp), this.clock()],
    );
  }

  async verifyOtp(customerRef: string, otp: string): Promise<boolean> {
    const customer = await this.orm.em.fork().findOne(SandboxCustomer, { bankHandle: this.bankHandle, customerRef });
    // Compare even when there is no customer, so the answer time does not tell which refs exist.
    const expected = customer?.otpHash ?? sha256Hex(`no-otp:${customerRef}`);
    return safeEqual(expected, sha256Hex(otp)) && Boolean(customer?.otpHash);
  }

  private async ensureCustomer(em: { execute: ServiceOrm['em']['execute'] }, customerRef: string): Promise<void> {
    await em.execute(
      `insert into ${this.tables.customers} ("bank_handle", "customer_ref", "otp_hash", "created_at") values (?, ?, null, ?)
       on conflict ("bank_handle", "customer_ref") do nothing`,
      [this.bankHandle, customerRef, this.clock()],
    );
  }

  private requireOwnIban(raw: string): string {
    const info = typeof raw === 'string' ? parseIban(raw) : null;
    if (!info) throw bankErrors.validation('iban: not a valid IBAN (format or checksum)');
    if (info.institutionCode !== this.institutionCode) {
      throw bankErrors.validation(
        `iban: institution code ${info.institutionCode} is not this bank's (${this.institutionCode})`,
      );
    }
    return info.iban;
  }
}

/** IBANs arrive with or without spaces and in any case; the ledger keys them in electronic form. */
export const normalizeIban = (raw: string): string => raw.replace(/\s+/g, '').toUpperCase();
