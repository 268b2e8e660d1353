import { Entity, Property } from '@mikro-orm/core';
import { EngineMovementColumns } from '../movement/movement.columns';

/**
 * The payments side of an Open Banking payment order: the movement open-banking asked the
 * engine to make (movement.requested), keyed by the order's id, and where it got. Open-banking
 * owns the order itself (its statuses, the TPP's view); this row is what the engine reads and
 * moves, as it does a session. Status changes only through order-movement.moves.ts.
 */
@Entity({ tableName: 'order_movements' })
export class OrderMovementEntity extends EngineMovementColumns {
  /** The TPP the order is for (logs; open-banking decides what a TPP sees). */
  @Property({ type: 'text' })
  tppId!: string;

  /** Movements have no merchant reference; the engine's descriptions use `description` and the id. */
  get reference(): string | null {
    return null;
  }
}
