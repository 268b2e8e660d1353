import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { Currency } from '@gateway/kernel';
import type { OrderMovementStatus } from './order-movement.transitions';

/**
 * The payments side of an Open Banking payment order: the movement open-banking asked the
 * engine to make (movement.requested), keyed by the order's id, and where it got. Open-banking
 * owns the order itself (its statuses, the TPP's view); this row is what the engine reads and
 * moves, as it does a session. Status changes only through order-movement.moves.ts.
 */
@Entity({ tableName: 'order_movements' })
export class OrderMovementEntity {
  /** po_…: the order's id, the execution's key and both core references. */
  @PrimaryKey({ type: 'text' })
  id!: string;

  /** The TPP the order is for (logs; open-banking decides what a TPP sees). */
  @Property({ type: 'text' })
  tppId!: string;

  /** livemode false: a test TPP's order; its money moves at test cores only. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  @Property({ type: 'text' })
  status!: OrderMovementStatus;

  @Property({ type: 'text' })
  debtorBank!: string;

  @Property({ type: 'text' })
  debtorIban!: string;

  @Property({ type: 'text' })
  creditorBank!: string;

  @Property({ type: 'text' })
  creditorIban!: string;

  /** Minor units. */
  @Property({ type: 'bigint' })
  amount!: bigint;

  @Property({ type: 'text' })
  currency!: Currency;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  /** internal (same bank) or rail (cross bank), fixed when the request arrives. */
  @Property({ type: 'text' })
  settlementType!: string;

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

  /** Movements have no merchant reference; the engine's descriptions use `description` and the id. */
  get reference(): string | null {
    return null;
  }
}
