import type { MovementKind } from '../movement/movement';
import type { PaymentSessionEntity } from './session.entity';
import { loadSession, moveSession } from './session.moves';
import { FINAL_STATUSES } from './session.transitions';

/** Sessions as the engine executes them: read and moved through session.moves.ts, the sessions' one writer. */
export const sessionMovements: MovementKind<PaymentSessionEntity> = {
  load: loadSession,
  move: (tx, session, trigger, now, failure) => moveSession(tx, session, trigger, now, failure ?? {}),
  isFinal: (session) => FINAL_STATUSES.has(session.status),
};
