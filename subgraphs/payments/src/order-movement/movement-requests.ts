import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventBus, PlatformEvent, Subscription } from '@gateway/events';
import { GatewayError, isCurrency, type Logger } from '@gateway/kernel';
import { OneStatement } from '@gateway/db';
import { accountMovementStart, type PaymentEngine } from '../engine/engine';
import type { ExecutionKind } from '../movement/movement';
import type { DeclaredMovementKind } from '../movement/movement.kind';
import {
  answerAgain,
  type MovementEventKind,
  type NewRequestedMovement,
  type RequestedMovement,
} from '../movement/requested-movement';
import { createVrpMovementOnceIn, vrpMovements } from '../vrp-movement/vrp-movement.moves';
import { createOrderMovementOnceIn, orderMovements } from './order-movement.moves';

/** payments' queue for open-banking's requests (competing consumers across instances). */
export const MOVEMENT_REQUEST_GROUP = 'payments.movement-requests';
export const MOVEMENT_REQUESTED = 'movement.requested';

/** A kind open-banking asks the engine for: its execution kind, its table's one writer, its words in logs. */
interface RequestedKind {
  kind: Extract<ExecutionKind, 'payment_order' | 'vrp_payment'>;
  /** In logs: "payment order", "VRP payment". */
  noun: string;
  movements: DeclaredMovementKind<RequestedMovement, string, MovementEventKind>;
  createOnceIn(statement: OneStatement, fields: NewRequestedMovement, now: Date): void;
}

/**
 * The kinds a movement.requested may ask for, by the id's prefix: a payment order's (po_) and a
 * VRP payment's (vrp_). One path executes both; each kind writes only its own table.
 */
const REQUESTED_KINDS: ReadonlyArray<{ prefix: string } & RequestedKind> = [
  {
    prefix: 'po_',
    kind: 'payment_order',
    noun: 'payment order',
    movements: orderMovements,
    createOnceIn: createOrderMovementOnceIn,
  },
  {
    prefix: 'vrp_',
    kind: 'vrp_payment',
    noun: 'VRP payment',
    movements: vrpMovements,
    createOnceIn: createVrpMovementOnceIn,
  },
];

const requestedKindOf = (id: string): RequestedKind | undefined =>
  REQUESTED_KINDS.find(({ prefix }) => id.startsWith(prefix));

interface MovementRequest {
  kind: RequestedKind;
  id: string;
  tppId: string;
  livemode: boolean;
  debtorBank: string;
  debtorIban: string;
  creditorBank: string;
  creditorIban: string;
  amount: bigint;
  currency: 'LYD' | 'USD' | 'EUR';
  description: string | null;
  requestId: string | null;
}

/** The event's data, or null for one this consumer cannot act on (logged, never retried for ever). */
function requestOf(event: PlatformEvent): MovementRequest | null {
  const d = event.data;
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);
  const id = text(d.movement_id);
  const amount = text(d.amount);
  const currency = text(d.currency);
  const fields = [
    id,
    text(d.tpp_id),
    text(d.debtor_bank),
    text(d.debtor_iban),
    text(d.creditor_bank),
    text(d.creditor_iban),
    amount,
    currency,
  ];
  // The world is never guessed: a request that does not say it moves nothing (a test order must not reach a live core).
  if (typeof d.livemode !== 'boolean') return null;
  if (fields.some((field) => field === null) || !/^[1-9]\d{0,17}$/.test(amount!) || !isCurrency(currency)) return null;
  const kind = requestedKindOf(id!);
  if (!kind) return null;
  return {
    kind,
    id: id!,
    tppId: text(d.tpp_id)!,
    livemode: d.livemode,
    debtorBank: text(d.debtor_bank)!,
    debtorIban: text(d.debtor_iban)!,
    creditorBank: text(d.creditor_bank)!,
    creditorIban: text(d.creditor_iban)!,
    amount: BigInt(amount!),
    currency,
    description: text(d.description),
    requestId: text(d.request_id),
  };
}

/**
 * Executes a payment order's or a VRP payment's movement for open-banking (docs/payment-orders.md):
 * the movement (in its kind's table, by the id's prefix) and its execution row are created once
 * per id, in one transaction, and the engine runs it as it runs a session (debit once, same-bank
 * compensation, the rail with confirmation, the recovery job after a crash, the obligation). A
 * request for an id seen before moves nothing: a finished movement's answer is sent again, an
 * unfinished one belongs to its run or the recovery job.
 */
export async function executeMovementRequest(
  root: EntityManager,
  engine: PaymentEngine,
  event: PlatformEvent,
  logger: Logger,
): Promise<void> {
  if (event.kind !== MOVEMENT_REQUESTED) return;
  const request = requestOf(event);
  if (!request) {
    logger.error(
      { event: event.id, aggregate: event.aggregateId },
      'movement.requested without the fields a movement needs: ignored',
    );
    return;
  }
  const now = new Date();
  const em = root.fork();
  const { kind, ...asked } = request;
  const fields = { ...asked, settlementType: asked.debtorBank === asked.creditorBank ? 'internal' : 'rail' };
  // One statement: the movement, unless it was requested before, and with it its execution.
  const statement = new OneStatement(em);
  kind.createOnceIn(statement, fields, now);
  const started = engine.startIn(
    statement,
    accountMovementStart(kind.kind, fields, request.requestId),
    now,
    'movement',
  );
  let written: Record<string, number>;
  try {
    written = await statement.run();
  } catch (error) {
    if (!(error instanceof GatewayError && error.code === 'NET_DEBIT_CAP_EXCEEDED')) throw error;
    await refuseOverCap(em, kind, fields, error.detail, now);
    logger.warn({ [kind.kind]: request.id, request_id: request.requestId }, `${kind.noun} refused: net debit cap`);
    return;
  }
  if (written.movement) {
    logger.info(
      { [kind.kind]: request.id, tpp: request.tppId, request_id: request.requestId },
      `${kind.noun} movement requested: executing`,
    );
    // Not awaited: the bus's next request does not wait on a core.
    engine.launch(root, started);
    return;
  }
  const existing = await kind.movements.load(em, request.id);
  if (existing && (await em.transactional(async (tx) => answerAgain(tx, existing, new Date())))) {
    logger.info(
      { [kind.kind]: request.id, status: existing.status },
      'movement requested again: its outcome sent again',
    );
  }
}

/**
 * A movement the debtor bank's net debit cap refused at the engine's entry (nothing was written,
 * nothing debited): it is recorded and FAILS at once with NET_DEBIT_CAP_EXCEEDED, so open-banking
 * hears movement.failed as for any refused debit. One transaction: the insert, then the move.
 */
async function refuseOverCap(
  em: EntityManager,
  kind: RequestedKind,
  fields: NewRequestedMovement,
  detail: string,
  now: Date,
): Promise<void> {
  await em.transactional(async (tx) => {
    const created = new OneStatement(tx);
    kind.createOnceIn(created, fields, now);
    if (!(await created.run()).movement) return; // requested before: its answer is the first one's
    const movement = await kind.movements.load(tx, fields.id);
    const failed = new OneStatement(tx);
    kind.movements.moveIn(failed, movement!, 'core_failure', now, {
      failureCode: 'NET_DEBIT_CAP_EXCEEDED',
      failureDetail: detail,
    });
    await failed.run();
  });
}

/** Subscribes payments to open-banking's movement requests. */
export function consumeMovementRequests(
  root: EntityManager,
  bus: EventBus,
  engine: PaymentEngine,
  logger: Logger,
): Promise<Subscription> {
  return bus.consume(MOVEMENT_REQUEST_GROUP, MOVEMENT_REQUESTED, async (event) => {
    try {
      await executeMovementRequest(root, engine, event, logger);
    } catch (error) {
      // Thrown back: the bus delivers the request again later (a database hiccup passes).
      logger.warn(
        { err: error, event: event.id, movement: event.aggregateId },
        'movement request not taken yet; the bus will deliver it again',
      );
      throw error;
    }
  });
}
