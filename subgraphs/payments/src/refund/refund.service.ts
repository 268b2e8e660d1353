import type { EntityManager } from '@mikro-orm/postgresql';
import { OneStatement } from '@gateway/db';
import type { Directory } from '@gateway/federation';
import { GatewayError, invalid, newId, parseInput, requestHash, type Logger } from '@gateway/kernel';
import { accountMovementStart, type PaymentEngine, type StartedMovement } from '../engine/engine';
import { idempotency } from '../idempotency/idempotency.service';
import { merchantSettlementAccount } from '../merchant/settlement-account';
import { createdRange, keysetPage } from '../listing/keyset-page';
import { tooManyKeys, updateMetadataRules } from '../metadata/metadata.rules';
import { keysAfter, metadataContains } from '../metadata/metadata.sql';
import { MOVEMENT_STATUSES } from '../movement/movement.transitions';
import { RefundEntity } from './refund.entity';
import { createRefundIn, loadRefund, newRefund, updateRefundMetadata } from './refund.moves';
import { refundAmountOf, refundListRules, refundSessionRules, type RefundSessionRequest } from './refund.rules';
import { publicRefundStatus } from './refund.transitions';
import { chargeTarget, ownCharge, sessionTarget, type RefundTarget } from './refunded';

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
 * A COMPLETED mandate charge is refunded the same way, back to the account it debited
 * (refunded.ts: what differs between the two).
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
  refund(
    em: EntityManager,
    merchantId: string,
    sessionId: string,
    input: unknown,
    idempotencyKey?: string | null,
    requestId?: string,
  ): Promise<RefundEntity> {
    return this.refundOf(em, merchantId, sessionTarget(this.engine, sessionId), input, idempotencyKey, requestId);
  }

  /**
   * Refunds a COMPLETED charge of the merchant's mandate, as a session's: the same movement kind,
   * its amount taken of the charge's amount_refunded in the refund's statement (racing refunds
   * queue on the charge's row), paid from the merchant's settlement account back to the account
   * the charge debited.
   */
  refundCharge(
    em: EntityManager,
    merchantId: string,
    mandateId: string,
    chargeId: string,
    input: unknown,
    idempotencyKey?: string | null,
    requestId?: string,
  ): Promise<RefundEntity> {
    return this.refundOf(em, merchantId, chargeTarget(mandateId, chargeId), input, idempotencyKey, requestId);
  }

  /** A charge's refunds, newest first (the merchant's charge, any for an operator: null): else MANDATE_CHARGE_NOT_FOUND. */
  async listCharge(
    em: EntityManager,
    merchantId: string | null,
    mandateId: string,
    chargeId: string,
    args: { first?: number | null; after?: string | null; filter?: object | null },
  ): Promise<{ refunds: RefundEntity[]; hasMore: boolean }> {
    await ownCharge(em, merchantId, mandateId, chargeId);
    return this.list(em, { chargeId }, args);
  }

  private async refundOf(
    em: EntityManager,
    merchantId: string,
    target: RefundTarget,
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
        requestHash({ ...target.operation, ...request }),
      );
      if (claim.kind === 'replay') return this.findOwn(em, merchantId, String(claim.response.refundId));
    }
    let started: { movement: StartedMovement; refund: RefundEntity };
    try {
      started = await this.start(em, merchantId, target, request, idempotencyKey ?? null, requestId);
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
   * Refunds newest first, filtered (listing/keyset-page.ts): a session's or a charge's (the caller
   * has checked who may see it), or a merchant's across its sessions and charges in its world (a
   * test key's test refunds).
   */
  async list(
    em: EntityManager,
    scope: { sessionId: string } | { chargeId: string } | { merchantId: string; livemode: boolean },
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
    target: RefundTarget,
    request: RefundSessionRequest,
    idempotencyKey: string | null,
    requestId?: string,
  ): Promise<{ movement: StartedMovement; refund: RefundEntity }> {
    const refunded = await target.load(em, merchantId);
    const amount = refundAmountOf(refunded, request.amount, refunded.noun);
    const account = await merchantSettlementAccount(
      em,
      this.directory,
      merchantId,
      'refunds are paid from it (the operator registers it)',
      requestId,
    );
    const payer = await refunded.payer(em);
    // New work at the payer's bank too: a suspended one refuses the refund (BANK_NOT_PARTICIPATING), nothing written.
    await this.directory.bank({ handle: payer.bank }, requestId);
    const now = new Date();
    const refund = newRefund(
      {
        id: newId('refund'),
        ...refunded.owner,
        merchantId,
        livemode: refunded.livemode,
        amount,
        currency: refunded.currency,
        reason: request.reason ?? null,
        reference: request.reference ?? null,
        metadata: request.metadata ?? {},
        description: `Refund of ${refunded.label}`,
        debtorBank: account.bank.handle,
        debtorIban: account.iban,
        creditorBank: payer.bank,
        creditorIban: payer.iban,
        settlementType: account.bank.handle === payer.bank ? 'internal' : 'rail',
      },
      now,
    );
    const write = async (tx: EntityManager): Promise<StartedMovement> => {
      // One statement: the key's answer, the amount taken of the session or charge, the refund and its execution.
      const statement = new OneStatement(tx);
      if (idempotencyKey != null)
        idempotency.completeIn(statement, merchantId, idempotencyKey, { refundId: refund.id });
      createRefundIn(statement, refund, now);
      // The merchant's bank is the refund's debtor: its position carries the refund.
      const movement = this.engine.startIn(statement, accountMovementStart('refund', refund, requestId), now, 'refund');
      const written = await statement.run();
      if (!written.refund) throw await this.refusal(tx, merchantId, target, amount);
      if (idempotencyKey != null && !written.key) throw idempotency.keyTakenOver(idempotencyKey);
      return movement;
    };
    // With a key, a transaction: a key taken over meanwhile undoes the refund written with it.
    const movement = idempotencyKey != null ? await em.fork().transactional(write) : await write(em);
    this.logger.info(
      {
        refund: refund.id,
        session: refund.sessionId ?? undefined,
        charge: refund.chargeId ?? undefined,
        merchant: merchantId,
        amount: amount.toString(),
        settlement_type: refund.settlementType,
        request_id: requestId,
      },
      'refund created: executing',
    );
    return { movement, refund };
  }

  /** Why the statement took nothing: the session or charge as it is now (another refund took what was left meanwhile). */
  private async refusal(
    em: EntityManager,
    merchantId: string,
    target: RefundTarget,
    amount: bigint,
  ): Promise<GatewayError> {
    const refunded = await target.load(em, merchantId);
    try {
      refundAmountOf(refunded, Number(amount), refunded.noun);
    } catch (error) {
      return error as GatewayError;
    }
    // What was left is enough again (a refund FAILED meanwhile): the client may send it again.
    return new GatewayError(
      'REFUND_AMOUNT_EXCEEDED',
      `${refunded.noun} ${refunded.id}: another refund was taking what is left; try again`,
    );
  }
}
