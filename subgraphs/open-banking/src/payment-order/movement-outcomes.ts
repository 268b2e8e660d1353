import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventBus, PlatformEvent, Subscription } from '@gateway/events';
import type { Logger } from '@gateway/kernel';
import { PaymentOrderEntity } from './payment-order.entity';
import { loadPaymentOrder, movePaymentOrder, requestMovementAgain } from './payment-order.moves';
import type { PaymentOrderTrigger } from './payment-order.transitions';

/** open-banking's queue for the payments engine's answers (competing consumers across instances). */
export const MOVEMENT_OUTCOME_GROUP = 'open-banking.movement-outcomes';
export const MOVEMENT_COMPLETED = 'movement.completed';
export const MOVEMENT_FAILED = 'movement.failed';

/**
 * How payments classifies a failed movement (its movement.failed `refusal`): `funds` the payer's
 * bank refused the debit for funds; `declined` a bank refused it for another reason (the spec's
 * payment_order.rejected, PAYMENT_ORDER_REJECTED); `error` no bank decided (timeouts, an outcome
 * never established): FAILED with the engine's code.
 */
export type MovementRefusal = 'funds' | 'declined' | 'error';

/**
 * Moves the order the engine answered for: movement.completed -> COMPLETED, movement.failed ->
 * FAILED or REJECTED, each with its payment_order.* event, in one transaction. Idempotent: an
 * answer for an order no longer PROCESSING (a duplicate delivery, the answer to a re-request) is
 * ignored, and so is any movement that is not a payment order's.
 */
export async function applyMovementOutcome(
  root: EntityManager,
  event: PlatformEvent,
  logger: Logger,
): Promise<boolean> {
  if (event.kind !== MOVEMENT_COMPLETED && event.kind !== MOVEMENT_FAILED) return false;
  const id = String(event.data.movement_id ?? event.aggregateId);
  if (!id.startsWith('po_')) return false;
  const em = root.fork();
  const order = await loadPaymentOrder(em, id);
  if (!order || order.status !== 'PROCESSING') return false;
  const settlementType = typeof event.data.settlement_type === 'string' ? event.data.settlement_type : null;
  let trigger: PaymentOrderTrigger = 'movement_completed';
  let changes: Partial<PaymentOrderEntity> = { settlementType };
  if (event.kind === MOVEMENT_FAILED) {
    const refusal = event.data.refusal as MovementRefusal;
    const code = typeof event.data.failure_code === 'string' ? event.data.failure_code : 'CBS_ERROR';
    const detail = typeof event.data.failure_detail === 'string' ? event.data.failure_detail : null;
    trigger = refusal === 'declined' ? 'movement_declined' : 'movement_failed';
    // A refusal for another reason than funds is the spec's PAYMENT_ORDER_REJECTED; the bank's own code stays in the detail.
    changes = {
      settlementType,
      failureCode: refusal === 'declined' ? 'PAYMENT_ORDER_REJECTED' : code,
      failureDetail: refusal === 'declined' ? `${code}: ${detail ?? ''}`.trim() : detail,
    };
  }
  const moved = await em.transactional((tx) => movePaymentOrder(tx, order, trigger, new Date(), changes));
  if (moved)
    logger.info(
      { payment_order: id, status: order.status, request_id: order.requestId },
      'payment order executed by the payments engine',
    );
  return moved;
}

/** What applies the engine's answer for one kind of movement (its id's prefix); false for another kind's. */
export type MovementOutcomeHandler = (root: EntityManager, event: PlatformEvent, logger: Logger) => Promise<boolean>;

/**
 * Subscribes open-banking to the engine's answers: payment orders' (here) and those of the other
 * kinds open-banking asks for (`others`: VRP payments), each handler taking its own ids.
 */
export function consumeMovementOutcomes(
  root: EntityManager,
  bus: EventBus,
  logger: Logger,
  others: readonly MovementOutcomeHandler[] = [],
): Promise<Subscription> {
  return bus.consume(MOVEMENT_OUTCOME_GROUP, 'movement.*', async (event) => {
    try {
      for (const apply of [applyMovementOutcome, ...others]) await apply(root, event, logger);
    } catch (error) {
      // Thrown back: the bus delivers the answer again later.
      logger.warn(
        { err: error, event: event.id, payment_order: event.aggregateId },
        'movement outcome not applied yet; the bus will deliver it again',
      );
      throw error;
    }
  });
}

/**
 * Orders left PROCESSING without an answer for `afterMs` (the request or its answer was lost, or
 * payments was down): movement.requested again with the same id. Payments executes an id once
 * and answers a finished movement's outcome again, so asking twice never moves money twice.
 */
export async function requestLostMovements(
  root: EntityManager,
  afterMs: number,
  now = new Date(),
  batch = 50,
): Promise<number> {
  const em = root.fork();
  const due = await em.find(
    PaymentOrderEntity,
    { status: 'PROCESSING', movementRequestedAt: { $lte: new Date(now.getTime() - afterMs) } },
    { orderBy: { movementRequestedAt: 'asc' }, limit: batch, disableIdentityMap: true },
  );
  let asked = 0;
  for (const order of due) if (await em.transactional((tx) => requestMovementAgain(tx, order, now))) asked += 1;
  return asked;
}
