import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One OTP check of a customer at their bank, taken before the bank is asked. A check the bank
 * accepted (or never answered) is given back; one it refused stays, and counts against the
 * customer for OTP_GUARD_WINDOW_MS wherever the OTP was asked for (checkout, consent, SCA,
 * mandate confirmation). Write owner: otp-guard.service.ts.
 */
@Entity({ tableName: 'otp_attempts' })
@Index({ name: 'otp_attempts_customer_index', properties: ['bankHandle', 'customerRef', 'takenAt'] })
export class OtpAttemptEntity {
  /** otp_…: the id the caller gives back. */
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  bankHandle!: string;

  /** The customer's bank_customer_ref (never shown; the registry already holds it). */
  @Property({ type: 'text' })
  customerRef!: string;

  /**
   * HMAC of the guessed OTP under the platform secret (never the OTP): the same guess sent again
   * while it is held (a double submit) is the same check, not a new one.
   */
  @Property({ type: 'text' })
  guess!: string;

  @Property({ type: 'timestamptz' })
  takenAt!: Date;
}
