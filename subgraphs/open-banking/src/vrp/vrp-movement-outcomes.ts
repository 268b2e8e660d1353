import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformEvent } from '@gateway/events';
import type { Logger } from '@gateway/kernel';
import { VrpPaymentEntity } from './vrp-payment.entity';
import { loadVrpPayment, moveVrpPayment, requestVrpMovementAgain } from './vrp-payment.moves';

/**
 * Moves the VRP payment the engine answered for (movement.completed -> COMPLETED, movement.failed
 * -> FAILED, which frees its share of the consent's limits), with its vrp_payment.* event, in one
 * transaction. Idempotent: an answer for a payment no longer PROCESSING is ignored, and so is any
 * movement that is not a VRP payment's.
 */
export async function applyVrpMovementOutcome(
  root: EntityManager,
  event: PlatformEvent,
  logger: Logger,
): Promise<boolean> {
  if (event.kind !== 'movement.completed' && event.kind !== 'movement.failed') return false;
  const id = String(event.data.movement_id ?? event.aggregateId);
  if (!id.startsWith('vrp_')) return false;
  const em = root.fork();
  const payment = await loadVrpPayment(em, id);
  if (!payment || payment.status !== 'PROCESSING') return false;
  const settlementType = typeof event.data.settlement_type === 'string' ? event.data.settlement_type : null;
  const failed = event.kind === 'movement.failed';
  const moved = await em.transactional((tx) =>
    moveVrpPayment(
      tx,
      payment,
      failed ? 'movement_failed' : 'movement_completed',
      new Date(),
      failed
        ? {
            settlementType,
            failureCode: typeof event.data.failure_code === 'string' ? event.data.failure_code : 'CBS_ERROR',
            failureDetail: typeof event.data.failure_detail === 'string' ? event.data.failure_detail : null,
          }
        : { settlementType },
    ),
  );
  if (moved)
    logger.info({ vrp_payment: id, status: payment.status, request_id: payment.requestId }, 'VRP payment executed');
  return moved;
}

/** VRP payments left PROCESSING without an answer for `afterMs`: movement.requested again, same id. */
export async function requestLostVrpMovements(
  root: EntityManager,
  afterMs: number,
  now = new Date(),
  batch = 50,
): Promise<number> {
  const em = root.fork();
  const due = await em.find(
    VrpPaymentEntity,
    { status: 'PROCESSING', movementRequestedAt: { $lte: new Date(now.getTime() - afterMs) } },
    { orderBy: { movementRequestedAt: 'asc' }, limit: batch, disableIdentityMap: true },
  );
  let asked = 0;
  for (const payment of due) if (await em.transactional((tx) => requestVrpMovementAgain(tx, payment, now))) asked += 1;
  return asked;
}
