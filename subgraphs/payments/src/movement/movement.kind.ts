import type { EntityClass, FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import { recordEventIn, type RecordEventInput } from '@gateway/events';
import { transitionLookup, type Transition } from '@gateway/kernel';
import type { EngineMovementColumns } from './movement.columns';
import type { EngineFailure, EngineTrigger, Movement, MovementKind } from './movement';
import { FINAL_MOVEMENT_STATUSES, MOVEMENT_REACHED_AT, type MovementStatus } from './movement.transitions';

/*
 * The shape every movement kind the engine runs from its creation shares (a mandate charge, a
 * payment order's movement, a refund, a VRP payment), once: loading it untracked, the
 * preamble of a move (the table's row or a refusal, the status and its timestamp), the move as a
 * conditional UPDATE on the status read with its event in the same statement, and when it is
 * final. A kind declares only what differs (declareMovementKind): its entity, its table, its
 * event, and what else its moves write. The net debit reservation is no kind's: the engine's
 * entry makes it and its endings use or release it (engine.ts, steps.ts), whatever the kind.
 *
 * The kind's owner file (its table's one writer, CONVENTIONS "Data") makes the declaration, so
 * every write below is its owner's, made through this shape (as establishOutcomeIn's).
 */

/** A movement of a declared kind: the shared columns, and what the engine reads of every movement. */
export type KindMovement = EngineMovementColumns & Movement;

/** A row of a kind's table: its own triggers (its creation, an operator's findings) and the engine's. */
export type KindTransition<T extends string, E extends string> = Transition<
  MovementStatus,
  T | EngineTrigger,
  E | null
>;

/** Columns the engine's move may set besides status and its timestamp: why it failed. */
export type KindMoveChanges = Partial<EngineFailure>;

/** What a kind declares: what differs from every other kind. */
export interface MovementKindDeclaration<M extends KindMovement, T extends string, E extends string> {
  /** How a refused move names it ("refund rfd_… is COMPLETED: core_failure is not a move of its table"). */
  noun: string;
  entity: EntityClass<M> & (new () => M);
  /** Its one table: engineMovementTransitions(…) and, for a kind that has them, moves of its own. */
  transitions: readonly KindTransition<T, E>[];
  /** The event of a move that has one, from the movement as the move leaves it. */
  event(kind: E, after: M): RecordEventInput;
  /**
   * What else the engine's move writes, as parts of its statement after the event, written only
   * if part `moved` changed the row (a refund's FAILED move frees its amount).
   */
  alsoIn?(statement: OneStatement, move: KindTransition<T, E>, after: M, now: Date): void;
  payerWholeIn?: MovementKind<M>['payerWholeIn'];
  settleHeldIn?: MovementKind<M>['settleHeldIn'];
}

/** A declared kind: what the engine calls (MovementKind), and its table for its owner's other moves. */
export interface DeclaredMovementKind<
  M extends KindMovement,
  T extends string,
  E extends string,
> extends MovementKind<M> {
  readonly noun: string;
  readonly transitions: readonly KindTransition<T, E>[];
  transitionFor(from: MovementStatus | null, trigger: T | EngineTrigger): KindTransition<T, E> | undefined;
  /**
   * One move of the table, conditional on the status read, as parts of the caller's OneStatement:
   * `moved` (written only if part `when` changed a row, when given), its event `moved_event` and
   * whatever the kind writes with it (alsoIn). Answers the columns to apply once part `moved`
   * changed the row; throws when the table has no such move.
   */
  moveIn(
    statement: OneStatement,
    movement: M,
    trigger: T | EngineTrigger,
    now: Date,
    changes: KindMoveChanges | undefined,
    when?: string,
  ): Partial<M>;
  /** The kind's event for `kind`, as part `name` of the caller's statement, written only if part `when` changed a row. */
  eventIn(statement: OneStatement, name: string, kind: E, after: M, now: Date, when: string): void;
}

/** The kind of `declaration`, with everything the kinds share. */
export function declareMovementKind<M extends KindMovement, T extends string, E extends string>(
  declaration: MovementKindDeclaration<M, T, E>,
): DeclaredMovementKind<M, T, E> {
  const { noun, entity, transitions, event, alsoIn } = declaration;
  const transitionFor = transitionLookup(transitions);

  /** The preamble of a move from the status read: its row of the table and the columns it sets. */
  const plan = (movement: M, trigger: T | EngineTrigger, now: Date, changes: KindMoveChanges) => {
    const move = transitionFor(movement.status, trigger);
    if (!move) throw new Error(`${noun} ${movement.id} is ${movement.status}: ${trigger} is not a move of its table`);
    const update = { ...changes, status: move.to, updatedAt: now, [MOVEMENT_REACHED_AT[move.to]]: now };
    return { move, update: update as Partial<M> };
  };

  const eventIn = (statement: OneStatement, name: string, kind: E, after: M, now: Date, when: string) =>
    recordEventIn(statement, name, event(kind, after), now, when);

  return {
    noun,
    entity,
    transitions,
    transitionFor,
    load: (em: EntityManager, id: string) =>
      em.findOne(entity, { id } as FilterQuery<M>, { disableIdentityMap: true }) as Promise<M | null>,
    isFinal: (movement) => FINAL_MOVEMENT_STATUSES.has(movement.status),
    moveIn(statement, movement, trigger, now, changes, when) {
      const { move, update } = plan(movement, trigger, now, changes ?? {});
      const where = { id: movement.id, status: movement.status } as FilterQuery<M>;
      statement.update('moved', entity, where, update, when);
      const after = Object.assign(new entity(), movement, update);
      if (move.event) eventIn(statement, 'moved_event', move.event, after, now, 'moved');
      alsoIn?.(statement, move, after, now);
      return update;
    },
    eventIn,
    ...(declaration.payerWholeIn ? { payerWholeIn: declaration.payerWholeIn } : {}),
    ...(declaration.settleHeldIn ? { settleHeldIn: declaration.settleHeldIn } : {}),
  };
}
