import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { Currency } from '@gateway/kernel';
import type { PositionStatus } from './settlement.transitions';

/**
 * One bank's net in one currency within a cycle, and the progress of its one core movement
 * (like payment_executions for a session: every call is preceded and followed by a short
 * transaction on this row, none held across the call, so any process can resume it by its
 * reference after a crash).
 */
@Entity({ tableName: 'settlement_positions' })
export class SettlementPositionEntity {
  @PrimaryKey({ type: 'text' })
  cycleId!: string;

  /** Its cycle's world: a test position is booked at the bank's test core. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  @PrimaryKey({ type: 'text' })
  bankHandle!: string;

  @PrimaryKey({ type: 'text' })
  currency!: Currency;

  /** Signed minor units: positive, a credit to the bank's settlement account; negative, a debit. Never zero. */
  @Property({ type: 'bigint' })
  netAmount!: bigint;

  @Property({ type: 'text' })
  status!: PositionStatus;

  /** `stl_…:<bank_handle>:<currency>`: the core deduplicates every call of this position by it. */
  @Property({ type: 'text', unique: true })
  coreReference!: string;

  /** The bank's settlement_account_iban, fixed at the first call so every replay is the same movement. */
  @Property({ type: 'text', nullable: true })
  settlementIban: string | null = null;

  /** Core calls made for this position. Every record is conditional on it: of two runners, one records. */
  @Property({ type: 'integer' })
  attempts = 0;

  /**
   * Until then the position belongs to the runner that set it (renewed while its core call runs);
   * then the recovery job takes it. Also the retry timer.
   */
  @Property({ type: 'timestamptz' })
  leaseUntil!: Date;

  /**
   * The owning runner's fencing token: set when the cycle is closed and each time the recovery job
   * takes the position over. Its renewals and records count only while it is still the row's.
   */
  @Property({ type: 'text', nullable: true })
  leaseToken: string | null = null;

  /** Since when the outcome of the last call is unknown (a replay's refusal then proves nothing). */
  @Property({ type: 'timestamptz', nullable: true })
  unknownSince: Date | null = null;

  @Property({ type: 'integer' })
  replays = 0;

  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Property({ type: 'text', nullable: true })
  coreTransactionId: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  settledAt: Date | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
