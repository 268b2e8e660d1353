import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One OTP check of a customer at their bank, taken before the bank is asked. A check the bank
 * accepted (or never answered) is given back; one it refused stays, and counts against its client
 * for the customer for OTP_GUARD_WINDOW_MS (and against the customer for the shorter
 * OTP_GUARD_CUSTOMER_WINDOW_MS) wherever the OTP was asked for (checkout, consent, SCA, mandate
 * confirmation).
 */
export interface HeldOtpCheck {
  /** otp_…: the id the caller gives back. */
  id: string;
  /**
   * HMAC of the guessed OTP under the platform secret (never the OTP): the same guess sent again
   * while it is held (a double submit) is the same check, not a new one.
   */
  guess: string;
  /** Epoch milliseconds: an integer, so comparing it with the window's start in SQL is exact. */
  taken_at: number;
  /** Who sent it (@gateway/kernel clientKeyOf: an address, an IPv6 /64); absent in checks kept before clients were: 'unknown'. */
  client?: string;
}

/**
 * The checks one customer holds, in one row: taking a check is then one upsert on this row, whose
 * row lock makes concurrent takes for the customer count one by one (no transaction, no advisory
 * lock on the payment path). Written only with SQL in otp-guard.service.ts.
 */
@Entity({ tableName: 'otp_guards' })
export class OtpGuardEntity {
  @PrimaryKey({ type: 'text' })
  bankHandle!: string;

  /** The customer's bank_customer_ref (never shown; the registry already holds it). */
  @PrimaryKey({ type: 'text' })
  customerRef!: string;

  /** Oldest first; entries that left the window are dropped by the next take. */
  @Property({ type: 'jsonb', default: '[]' })
  attempts!: HeldOtpCheck[];
}
