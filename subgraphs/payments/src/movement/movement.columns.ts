import { PrimaryKey, Property } from '@mikro-orm/core';
import type { Currency } from '@gateway/kernel';
import type { MovementStatus } from './movement.transitions';

/**
 * The columns of a movement the engine runs from its creation (a mandate charge, a payment
 * order's movement): who pays whom, how much, in which world, and where it got. An abstract base,
 * not an entity: each kind keeps its own table, and adds what only it has (its mandate, its TPP).
 */
export abstract class EngineMovementColumns {
  /** chg_…, po_…, vrp_… or rfd_…: the execution's key and both core references. */
  @PrimaryKey({ type: 'text' })
  id!: string;

  /** false: a test object, whose money moves at test cores only. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  @Property({ type: 'text' })
  status!: MovementStatus;

  /** Minor units. */
  @Property({ type: 'bigint' })
  amount!: bigint;

  @Property({ type: 'text' })
  currency!: Currency;

  @Property({ type: 'text' })
  debtorBank!: string;

  @Property({ type: 'text' })
  debtorIban!: string;

  @Property({ type: 'text' })
  creditorBank!: string;

  @Property({ type: 'text' })
  creditorIban!: string;

  /** internal (same bank) or rail (cross bank), fixed when the movement is created. */
  @Property({ type: 'text' })
  settlementType!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ type: 'text', nullable: true })
  failureCode: string | null = null;

  @Property({ type: 'text', nullable: true })
  failureDetail: string | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  settlementPendingAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  completedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  failedAt: Date | null = null;
}
