import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { CycleStatus } from './settlement.transitions';

/**
 * One settlement cycle (stl_…): the obligations it took (interbank_obligations.settlement_cycle_id)
 * and its positions (settlement_positions). The record is the statement banks and operators read.
 */
@Entity({ tableName: 'settlement_cycles' })
export class SettlementCycleEntity {
  /** stl_…; also the first part of every position's core reference. */
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  status!: CycleStatus;

  /** A test cycle nets test obligations against test cores; a live cycle never takes one. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  /** 'api' (POST /settlement/cycles) or 'schedule' (SETTLEMENT_INTERVAL_SECONDS). */
  @Property({ type: 'text' })
  trigger!: string;

  /** The request that started it (req_…): X-Request-Id of every core call of its positions, retries and recovery included. */
  @Property({ type: 'text', nullable: true })
  requestId: string | null = null;

  /** Obligations the cycle took. */
  @Property({ type: 'integer' })
  obligationCount = 0;

  @Property({ type: 'timestamptz' })
  openedAt!: Date;

  /** When it stopped taking obligations and fixed its positions. */
  @Property({ type: 'timestamptz', nullable: true })
  closedAt: Date | null = null;

  /** When its last position was booked. */
  @Property({ type: 'timestamptz', nullable: true })
  settledAt: Date | null = null;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
