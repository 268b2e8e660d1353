import type { EntityManager } from '@mikro-orm/postgresql';
import { OneStatement } from '@gateway/db';
import type { Directory } from '@gateway/federation';
import { GatewayError, invalid, newId, parseInput, requestHash, type Logger } from '@gateway/kernel';
import { accountMovementStart, type PaymentEngine, type StartedMovement } from '../engine/engine';
import { idempotency } from '../idempotency/idempotency.service';
import { merchantSettlementAccount } from '../merchant/settlement-account';
import type { PaymentSessionEntity } from '../session/session.entity';
import { loadSession } from '../session/session.moves';
import { createdRange, keysetPage } from '../listing/keyset-page';
import { tooManyKeys, updateMetadataRules } from '../metadata/metadata.rules';
import { keysAfter, metadataContains } from '../metadata/metadata.sql';
import { MOVEMENT_STATUSES } from '../movement/movement.transitions';
import { sessionNotFound } from '../session/session.service';
import { RefundEntity } from './refund.entity';
import { createRefundIn, loadRefund, newRefund, updateRefundMetadata } from './refund.moves';
import { refundAmountOf, refundListRules, refundSessionRules, type RefundSessionRequest } from './refund.rules';
import { publicRefundStatus } from './refund.transitions';

/** One wording for an unknown id and another merchant's, so the two cannot be told apart. */
export const refundNotFound = (id: string): GatewayError => new GatewayError('REFUND_NOT_FOUND', `no refund ${id}`);

const plain = (input: unknown): unknown => JSON.parse(JSON.stringify(input ?? {}));

/**
 * Refunds (API-CONTRACT "Refunds and ending a session early"): the merchant gives back all or part
 * of a COMPLETED session, from its settlement_iban to the payer's account recorded when the
 * session was authorized, as a movement of the payment engine (kind `refund`): debit once, same
 * bank internal, cross bank over the rail with the payer's bank's confirmation and an interbank
 * obligation, the debit given back when the payer's bank refuses the credit, recovery after a
 * crash, the attention list. Refunds not FAILED never add up to more than the session amount.
 */
export class RefundService {
  constructor(
    private readonly directory: Directory,
    private readonly engine: PaymentEngine,
    private readonly logger: Logger,
  ) {}

  /**
   * Refunds a session of the merchant's. The refund, the amount it takes of the session and its
   * execution are written in one statement, which takes the amount only while it fits (racing
   * refunds queue on the session's row); then the engine runs it, and the answer waits a moment
   * for the outcome, as a charge's does. With an Idempotency-Key the same request answers the same
   * refund; a refused request keeps nothing.
   */
  async refund(
    em: EntityManager,
    merchantId: string,
    sessionId: string,
    input: unknown,
    idempotencyKey?: string | null,
    requestId?: string,
  ): Promise<RefundEntity> {
    const request = parseInput(refundSessionRules, plain(input));
    if (idempotencyKey != null) {
      const claim = await idempotency.begin(
        em,
        merchantId,
        idempotencyKey,
        requestHash({ operation: 'refundPaymentSession', sessionId, ...request }),
      );
      if (claim.kind === 'replay') return this.findOwn(em, merchantId, String(claim.response.refundId));
    }
    let started: { movement: StartedMovement; refund: RefundEntity };
    try {
      started = await this.start(em, merchantId, sessionId, request, idempotencyKey ?? null, requestId);
    } catch (error) {
      if (idempotencyKey != null) await idempotency.release(em, merchantId, idempotencyKey);
      throw error;
    }
    // Failed or not, the refund's record is the answer (its status and failure_code say which).
    return (await this.engine.execute<RefundEntity>(em, started.movement, started.refund)).movement;
  }

  /** The merchant's own refund (another's is REFUND_NOT_FOUND, like an unknown one); any for an operator (null). */
  async findOwn(em: EntityManager, merchantId: string | null, id: string): Promise<RefundEntity> {
    const refund = await loadRefund(em, id);
    if (!refund || (merchantId !== null && refund.merchantId !== merchantId)) throw refundNotFound(id);
    return refund;
  }

  /**
   * Refunds newest first, filtered (listing/keyset-page.ts): a session's (the caller has checked who
   * may see the session), or a merchant's across its sessions in its world (a test key's test refunds).
   */
  async list(
    em: EntityManager,
    scope: { sessionId: string } | { merchantId: string; livemode: boolean },
    args: { first?: number | null; after?: string | null; filter?: object | null },
  ): Promise<{ refunds: RefundEntity[]; hasMore: boolean }> {
    const request = parseInput(refundListRules, {
      first: args.first,
      after: args.after,
      ...(plain(args.filter ?? {}) as Record<string, unknown>),
    });
    const { status, reference, metadata } = request;
    const { rows, hasMore } = await keysetPage(em, RefundEntity, {
      scope,
      fixed: [...createdRange<RefundEntity>(request), ...(reference ? [{ reference }] : [])],
      changing: [
        // PROCESSING on the record is PROCESSING or SETTLEMENT_PENDING in the row.
        ...(status ? [{ status: { $in: MOVEMENT_STATUSES.filter((s) => publicRefundStatus(s) === status) } }] : []),
        ...(metadata ? [metadataContains(metadata.key, metadata.value)] : []),
      ],
      first: request.first,
      after: request.after,
    });
    return { refunds: rows, hasMore };
  }

  /** Merges metadata into a refund of the merchant's ("" removes a key); refused past 20 keys, nothing changed. */
  async updateMetadata(em: EntityManager, merchantId: string, id: string, metadata: unknown): Promise<RefundEntity> {
    const request = parseInput(updateMetadataRules, { metadata: plain(metadata ?? []) });
    if (!(await updateRefundMetadata(em, merchantId, id, request.metadata, new Date()))) {
      const refund = await this.findOwn(em, merchantId, id);
      throw invalid('metadata', tooManyKeys(keysAfter(refund.metadata, request.metadata)));
    }
    return this.findOwn(em, merchantId, id);
  }

  /** Checks, then writes the refund with its amount taken and its execution; refuses with the contract's codes. */
  private async start(
    em: EntityManager,
    merchantId: string,
    sessionId: string,
    request: RefundSessionRequest,
    idempotencyKey: string | null,
    requestId?: string,
  ): Promise<{ movement: StartedMovement; refund: RefundEntity }> {
    const session = await this.ownSession(em, merchantId, sessionId);
    const amount = refundAmountOf(session, request.amount);
    const account = await merchantSettlementAccount(
      em,
      this.directory,
      merchantId,
      'refunds are paid from it (the operator registers it)',
      requestId,
    );
    const payer = await this.engine.authorization(em, sessionId);
    if (!payer || !session.debtorBank)
      throw new GatewayError('INTERNAL_ERROR', `session ${sessionId} is COMPLETED without the payer's account`);
    // New work at the payer's bank too: a suspended one refuses the refund (BANK_NOT_PARTICIPATING), nothing written.
    await this.directory.bank({ handle: session.debtorBank }, requestId);
    const now = new Date();
    const refund = newRefund(
      {
        id: newId('refund'),
        sessionId,
        merchantId,
        livemode: session.livemode,
        amount,
        currency: session.currency,
        reason: request.reason ?? null,
        reference: request.reference ?? null,
        metadata: request.metadata ?? {},
        description: `Refund of ${session.reference ?? session.id}`,
        debtorBank: account.bank.handle,
        debtorIban: account.iban,
        creditorBank: session.debtorBank,
        creditorIban: payer.debtorIban,
        settlementType: account.bank.handle === session.debtorBank ? 'internal' : 'rail',
      },
      now,
    );
    const write = async (tx: EntityManager): Promise<StartedMovement> => {
      // One statement: the key's answer, the amount taken of the session, the refund and its execution.
      const statement = new OneStatement(tx);
      if (idempotencyKey != null)
        idempotency.completeIn(statement, merchantId, idempotencyKey, { refundId: refund.id });
      createRefundIn(statement, refund, now);
      // The merchant's bank is the refund's debtor: its position carries the refund.
      const movement = this.engine.startIn(statement, accountMovementStart('refund', refund, requestId), now, 'refund');
      const written = await statement.run();
      if (!written.refund) throw await this.refusal(tx, merchantId, sessionId, amount);
      if (idempotencyKey != null && !written.key) throw idempotency.keyTakenOver(idempotencyKey);
      return movement;
    };
    // With a key, a transaction: a key taken over meanwhile undoes the refund written with it.
    const movement = idempotencyKey != null ? await em.fork().transactional(write) : await write(em);
    this.logger.info(
      {
        refund: refund.id,
        session: sessionId,
        merchant: merchantId,
        amount: amount.toString(),
        settlement_type: refund.settlementType,
        request_id: requestId,
      },
      'refund created: executing',
    );
    return { movement, refund };
  }

  /** The merchant's session, refundable only once COMPLETED. */
  private async ownSession(em: EntityManager, merchantId: string, sessionId: string): Promise<PaymentSessionEntity> {
    const session = await loadSession(em, sessionId);
    if (!session || session.merchantId !== merchantId) throw sessionNotFound(sessionId);
    if (session.status !== 'COMPLETED')
      throw new GatewayError(
        'REFUND_NOT_ALLOWED',
        `session ${sessionId} is ${session.status}: only a COMPLETED session can be refunded`,
      );
    return session;
  }

  /** Why the statement took nothing: the session as it is now (another refund took what was left meanwhile). */
  private async refusal(
    em: EntityManager,
    merchantId: string,
    sessionId: string,
    amount: bigint,
  ): Promise<GatewayError> {
    const session = await this.ownSession(em, merchantId, sessionId);
    try {
      refundAmountOf(session, Number(amount));
    } catch (error) {
      return error as GatewayError;
    }
    // What was left is enough again (a refund FAILED meanwhile): the client may send it again.
    return new GatewayError(
      'REFUND_AMOUNT_EXCEEDED',
      `session ${sessionId}: another refund was taking what is left; try again`,
    );
  }
}
