import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OneStatement } from '@gateway/db';
import { wakeOutboxRelay } from '@gateway/events';
import { GatewayError, parseInput, type Logger } from '@gateway/kernel';
import { confirmRailCreditIn, keepLateRailConfirmation, railCreditOf } from '../engine/rail-credit';
import { kindOfId, type Movement, type MovementKinds } from '../movement/movement';
import { obligateIn } from '../net-debit/net-debit.positions';
import { sessionNotFound } from '../session/session.service';
import { PaymentSessionStatus } from '../session/session.type';
import { CreditConfirmationEntity } from './confirmation.entity';
import type { CreditConfirmationInput } from './confirmation.input';
import { confirmationRules, type ConfirmationRequest } from './confirmation.rules';
import type { CreditConfirmationReceipt } from './confirmation.type';

/**
 * The creditor bank's credit-confirmed callback: the only way a cross-bank session reaches
 * COMPLETED (and payment.completed is sent), or a payment order's movement (session_id and
 * payment_reference are then the order's po_ id, the reference the rail credit carried). Deduplicated by payment_reference; a confirmation
 * that does not match the session (amount, currency, IBAN) is refused and kept as evidence.
 */
export class ConfirmationService {
  constructor(
    private readonly logger: Logger,
    /** How each kind of movement is read and moved (the engine's own registry). */
    private readonly kinds: MovementKinds,
  ) {}

  /**
   * `livemode`: the world of the core that confirms. A bank's live core (through the router) confirms
   * live movements only; the built-in test bank (in process) test movements only.
   */
  async confirm(
    em: EntityManager,
    bankHandle: string,
    input: CreditConfirmationInput,
    livemode = true,
  ): Promise<CreditConfirmationReceipt> {
    const sent = parseInput(confirmationRules, JSON.parse(JSON.stringify(input)));
    // A core written from the spec knows the reference its rail credit carried (our session,
    // charge or order id); what it puts in session_id is its own reading of the spec (the same
    // reference, or an id of its own). So session_id names the movement when it is one of ours,
    // and otherwise payment_reference does, which must be the movement's id either way.
    const session =
      (await this.movement(em, sent.sessionId)) ??
      (sent.paymentReference !== sent.sessionId ? await this.movement(em, sent.paymentReference) : null);
    // Another bank's session is none of this bank's business: it does not exist for it.
    if (!session || session.creditorBank !== bankHandle || session.livemode !== livemode) {
      this.logger.warn(
        { bank: bankHandle, session: sent.sessionId, reference: sent.paymentReference },
        'credit confirmation for an unknown session refused',
      );
      throw sessionNotFound(sent.sessionId);
    }
    if (session.id !== sent.sessionId)
      this.logger.info(
        { bank: bankHandle, session: session.id, sent_session_id: sent.sessionId },
        'credit confirmation names the session by its payment_reference',
      );
    const request: ConfirmationRequest = { ...sent, sessionId: session.id };
    const kind = this.kinds[kindOfId(session.id)];
    const receipt = (duplicate: boolean): CreditConfirmationReceipt => ({
      paymentReference: request.paymentReference,
      sessionId: session.id,
      status: PaymentSessionStatus.COMPLETED,
      duplicate,
    });

    const alreadyAccepted = async () =>
      (await em
        .fork()
        .count(CreditConfirmationEntity, { paymentReference: request.paymentReference, outcome: 'accepted' })) > 0;
    if (await alreadyAccepted()) return receipt(true);

    const mismatch = mismatchOf(session, request);
    if (mismatch) throw await this.refuse(em, bankHandle, request, 'VALIDATION_ERROR', mismatch);

    const credit = await railCreditOf(em, session);
    if (credit.state === 'completed_on_evidence') return this.acceptLate(em, bankHandle, request, receipt);
    if (session.status !== 'SETTLEMENT_PENDING' || credit.state !== 'awaited') {
      // A concurrent copy of this confirmation may have just completed the session.
      if (await alreadyAccepted()) return receipt(true);
      throw await this.refuse(
        em,
        bankHandle,
        request,
        'SESSION_ALREADY_COMPLETED',
        `session ${session.id} is ${session.status} and awaits no credit confirmation`,
      );
    }

    const now = new Date();
    // One statement, all or none: the movement locked while still SETTLEMENT_PENDING, then the
    // confirmation, the execution's end (the callback may overtake the engine's own record of the
    // credit: the confirmation proves it was booked), the obligation and the move.
    const statement = new OneStatement(em);
    statement.lock('movement', kind.entity, { id: session.id, status: session.status });
    statement.insert(
      'confirmation',
      CreditConfirmationEntity,
      { ...this.row(bankHandle, request, now), outcome: 'accepted', reason: null },
      'movement',
    );
    confirmRailCreditIn(statement, session.id, credit.creditBookedAt ?? now, request.rrn, now, 'movement');
    // The obligation, and with it the movement's reservation turned into it (once, whoever records it first).
    obligateIn(statement, session, now, 'movement');
    const moved = kind.moveIn(statement, session, 'credit_confirmed', now, undefined, 'movement');
    let written: Record<string, number>;
    try {
      written = await statement.run();
    } catch (error) {
      // The same confirmation twice at once: the unique index lets one in; the other is a duplicate.
      if (error instanceof UniqueConstraintViolationException || (await alreadyAccepted())) return receipt(true);
      throw error;
    }
    if (!written.moved) {
      if (await alreadyAccepted()) return receipt(true);
      throw new GatewayError('SESSION_ALREADY_COMPLETED', `session ${session.id} moved meanwhile`);
    }
    Object.assign(session, moved);
    wakeOutboxRelay(em);
    this.logger.info(
      { bank: bankHandle, session: session.id, rrn: request.rrn },
      'rail credit confirmed: session COMPLETED',
    );
    return receipt(false);
  }

  private async movement(em: EntityManager, id: string): Promise<Movement | null> {
    return (await this.kinds[kindOfId(id)].load(em, id)) ?? null;
  }

  /**
   * The engine completed the session on the evidence of the booked credit because no
   * confirmation came in time (RAIL_CONFIRM_GIVE_UP_SECONDS): a confirmation arriving after that
   * is the one it waited for. It is kept with its RRN; the session has nothing left to move.
   */
  private async acceptLate(
    em: EntityManager,
    bankHandle: string,
    request: ConfirmationRequest,
    receipt: (duplicate: boolean) => CreditConfirmationReceipt,
  ): Promise<CreditConfirmationReceipt> {
    const now = new Date();
    try {
      await em.fork().transactional(async (tx) => {
        tx.create(CreditConfirmationEntity, {
          ...this.row(bankHandle, request, now),
          outcome: 'accepted',
          reason: 'after the session completed on evidence',
        });
        await keepLateRailConfirmation(tx, request.sessionId, request.rrn, now);
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) return receipt(true);
      throw error;
    }
    this.logger.info(
      { bank: bankHandle, session: request.sessionId, rrn: request.rrn },
      'late rail credit confirmation kept',
    );
    return receipt(false);
  }

  private async refuse(
    em: EntityManager,
    bankHandle: string,
    request: ConfirmationRequest,
    code: 'VALIDATION_ERROR' | 'SESSION_ALREADY_COMPLETED',
    reason: string,
  ): Promise<GatewayError> {
    this.logger.warn(
      { bank: bankHandle, session: request.sessionId, reference: request.paymentReference, reason },
      'credit confirmation refused',
    );
    await em.fork().transactional(async (tx) => {
      tx.create(CreditConfirmationEntity, { ...this.row(bankHandle, request, new Date()), outcome: 'refused', reason });
    });
    return new GatewayError(code, reason);
  }

  private row(bankHandle: string, request: ConfirmationRequest, now: Date) {
    return {
      paymentReference: request.paymentReference,
      sessionId: request.sessionId,
      bankHandle,
      creditorIban: request.creditorIban.iban,
      amount: BigInt(request.amount),
      currency: request.currency,
      rrn: request.rrn,
      receivedAt: now,
    };
  }
}

/** The confirmation must describe exactly the credit the gateway asked for. */
function mismatchOf(session: Movement, request: ConfirmationRequest): string | null {
  if (request.paymentReference !== session.id)
    return `payment_reference: ${request.paymentReference} is not the credit reference of session ${session.id}`;
  if (BigInt(request.amount) !== session.amount)
    return `amount: ${request.amount} does not match the session's ${session.amount}`;
  if (request.currency !== session.currency)
    return `currency: ${request.currency} does not match the session's ${session.currency}`;
  if (request.creditorIban.iban !== session.creditorIban)
    return `creditor_iban: ${request.creditorIban.iban} is not the session's destination`;
  return null;
}
