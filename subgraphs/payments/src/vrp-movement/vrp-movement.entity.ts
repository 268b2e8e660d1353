import { Entity, Property } from '@mikro-orm/core';
import { EngineMovementColumns } from '../movement/movement.columns';

/**
 * The payments side of a variable recurring payment (issue 51): the movement open-banking asked
 * the engine to make for one payment under a VRP consent (movement.requested, keyed by its vrp_
 * id), and where it got. Open-banking owns the payment itself and its consent's limits; this row
 * is what the engine reads and moves, as it does a payment order's. Status changes only through
 * vrp-movement.moves.ts.
 */
@Entity({ tableName: 'vrp_movements' })
export class VrpMovementEntity extends EngineMovementColumns {
  /** The TPP the payment is for (logs; open-banking decides what a TPP sees). */
  @Property({ type: 'text' })
  tppId!: string;

  /** Movements have no merchant reference; the engine's descriptions use `description` and the id. */
  get reference(): string | null {
    return null;
  }
}
