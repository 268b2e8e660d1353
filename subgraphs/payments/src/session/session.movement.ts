import type { MovementKind } from '../movement/movement';
import { PaymentSessionEntity } from './session.entity';
import { loadSession, moveSessionIn } from './session.moves';
import { FINAL_STATUSES } from './session.transitions';

/** Sessions as the engine executes them: read and moved through session.moves.ts, the sessions' one writer. */
export const sessionMovements: MovementKind<PaymentSessionEntity> = {
  load: loadSession,
  entity: PaymentSessionEntity,
  moveIn: (statement, session, trigger, now, failure, when) =>
    moveSessionIn(statement, 'moved', session, trigger, now, failure ?? {}, {}, when),
  isFinal: (session) => FINAL_STATUSES.has(session.status),
};
