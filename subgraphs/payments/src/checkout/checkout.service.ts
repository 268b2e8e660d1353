import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, hmacSha256Hex, isErrorCode, parseInput, safeEqual, worldOf, type Logger } from '@gateway/kernel';
import { OneStatement } from '@gateway/db';
import { wakeOutboxRelay } from '@gateway/events';
import { Credential, vault } from '@gateway/vault';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { AliasRouting, Directory, OtpGuard } from '@gateway/federation';
import { bankReference } from '@gateway/federation';
import type { ExecutionState, PaymentEngine } from '../engine/engine';
import { MAX_OTP_FAILURES, type EngineSettings } from '../engine/engine.settings';
import { PaymentExecutionEntity } from '../engine/execution.entity';
import { executions } from '../engine/execution.repository';
import { MerchantEntity } from '../merchant/merchant.entity';
import type { PaymentSessionEntity } from '../session/session.entity';
import { countOtpFailure, endCheckoutCheck, loadSession, moveSession, moveSessionIn, sessionExpiryDue, startCheckoutCheck } from '../session/session.moves';
import { sessionNotFound } from '../session/session.service';
import { FINAL_STATUSES, refusal } from '../session/session.transitions';
import { effectiveStatus, PaymentSessionStatus } from '../session/session.type';
import type { AuthorizeCheckoutInput } from './checkout.input';
import { authorizeRules, type AuthorizeRequest } from './checkout.rules';
import type { CheckoutAuthorization, CheckoutSession, CheckoutStatus } from './checkout.type';
import { redirectTo } from './redirect';

/**
 * The payer's side of a session: what the checkout page shows, the authorization (payer
 * resolved in the identity registry, OTP verified by the payer's own core, the session claimed
 * so only one authorization proceeds, then the engine), and the status the page polls.
 */
export class CheckoutService {
  constructor(
    private readonly engine: PaymentEngine,
    private readonly directory: Directory,
    private readonly cores: BankCorePool,
    private readonly otpGuard: OtpGuard,
    private readonly settings: EngineSettings,
    private readonly logger: Logger,
    /** Keys the authorization's HMAC (authorizationHash): comparable, never readable. */
    private readonly platformSecret: string,
  ) {}

  async view(em: EntityManager, id: string): Promise<CheckoutSession> {
    const session = await loadSession(em, id);
    if (!session) throw sessionNotFound(id);
    const merchant = await em.findOne(MerchantEntity, { id: session.merchantId });
    const status = effectiveStatus(session);
    return {
      id: session.id,
      status: PaymentSessionStatus[status],
      amount: Number(session.amount),
      currency: session.currency,
      description: session.description,
      merchantName: merchant?.name ?? 'Merchant',
      creditorBank: bankReference(session.creditorBank),
      expiresAt: session.expiresAt,
      otpAttemptsLeft: Math.max(0, MAX_OTP_FAILURES - session.otpFailures),
      redirectTo: redirectTo(session.redirectUrl, session.id, status),
      reference: session.reference,
      completedAt: status === 'COMPLETED' ? session.completedAt : null,
      failureCode: status === 'FAILED' ? session.failureCode : null,
    };
  }

  /**
   * The session's TTL is when the payer's authorization arrives, not when the payer's bank
   * answers: an authorization that arrived in time is recorded as an OTP check under way before
   * the registry and the bank are asked (the expiry waits for it, sessionExpiryDue), so a slow
   * bank or a slow machine never expires a payment the payer authorized in time. Concurrent
   * authorizations are all checked; the claim lets exactly one proceed.
   */
  async authorize(em: EntityManager, sessionId: string, input: AuthorizeCheckoutInput, requestId?: string): Promise<CheckoutAuthorization> {
    const request = parseInput(authorizeRules, JSON.parse(JSON.stringify(input)));
    const arrivedAt = new Date();
    const session = await loadSession(em, sessionId);
    if (!session) throw sessionNotFound(sessionId);
    // Too late: refused without asking the bank; expired on the spot unless an authorization that came in time is still being checked.
    if (effectiveStatus(session, arrivedAt) === 'EXPIRED') throw await this.expire(em, session, arrivedAt);
    const checking = session.status === 'PENDING' && (await startCheckoutCheck(em.fork(), sessionId, arrivedAt));

    let claimed: Awaited<ReturnType<CheckoutService['claim']>> = null;
    let payer: AliasRouting;
    let authorization: string;
    try {
      payer = await this.resolvePayer(request, session, requestId);
      authorization = this.authorizationHash(sessionId, payer, request.otp);
      // Not payable any more (or moved since it was read): the answer for an authorization sent again, or the refusal of another.
      if (!checking) return await this.answerAgain(em, session.status === 'PENDING' ? await this.reload(em, sessionId) : session, payer, request.otp, authorization);
      if (payer.iban === session.creditorIban) throw new GatewayError('VALIDATION_ERROR', 'payer: is the destination account itself');
      const payerBank = await this.directory.bank({ handle: payer.bankHandle }, requestId);
      try {
        const verify = () =>
          this.cores.for(payerBank, worldOf(session)).verifyCustomer({ customerRef: payer.bankCustomerRef, otp: request.otp, ...(requestId ? { requestId } : {}) });
        await this.otpGuard.check({ ...payer, world: worldOf(session) }, request.otp, verify, requestId);
      } catch (error) {
        if (error instanceof GatewayError && error.code === 'OTP_INVALID') throw await this.otpRefused(em, session);
        throw error; // CBS_TIMEOUT / CBS_ERROR: nothing moved, the session stays PENDING
      }
      // No deadline here: the authorization arrived in time, and the expiry waited for this check.
      claimed = await this.claim(em, session, request, payer, authorization, requestId);
    } finally {
      // Not claimed (refused, unanswered, another got there first): the check no longer holds the expiry back.
      if (checking && claimed === null) await this.checkEnded(em, sessionId);
    }
    // Another authorization (perhaps this same one, sent twice at once) got there first.
    if (claimed === null) return this.answerAgain(em, await this.reload(em, sessionId), payer, request.otp, authorization);
    this.logger.info({ session: sessionId, payer_bank: payer.bankHandle, settlement: session.settlementType }, 'payment authorized');

    const { token, execution: written } = claimed;
    // Usually the run ends within the wait and says where it left the session; otherwise read it.
    const state = await this.waitFor(this.engine.advance<PaymentSessionEntity>(em, sessionId, { movement: session, execution: written }));
    const after = state?.movement ?? (await loadSession(em.fork(), sessionId))!;
    const execution = state?.execution ?? (await executions.find(em.fork(), sessionId));
    if (after.status === 'FAILED') throw failureOf(after.failureCode, after.failureDetail);
    // Abandoned, money on its way back: the payer is told now, the session FAILS once it is back.
    if (execution?.pendingFailureCode && (execution.step === 'resolve_debit' || execution.step === 'reverse'))
      throw failureOf(execution.pendingFailureCode, execution.pendingFailureDetail);
    return { sessionId, status: PaymentSessionStatus[after.status], sessionToken: token, redirectTo: redirectTo(after.redirectUrl, sessionId, after.status) };
  }

  async status(em: EntityManager, sessionId: string): Promise<CheckoutStatus> {
    const session = await loadSession(em, sessionId);
    if (!session) throw sessionNotFound(sessionId);
    const status = effectiveStatus(session);
    return {
      sessionId,
      status: PaymentSessionStatus[status],
      failureCode: status === 'FAILED' ? session.failureCode : null,
      redirectTo: redirectTo(session.redirectUrl, sessionId, status),
      completedAt: status === 'COMPLETED' ? session.completedAt : null,
    };
  }

  /** HMAC of who pays and with which OTP: the payer's account (alias or IBAN alike), never the OTP in clear. */
  private authorizationHash(sessionId: string, payer: AliasRouting, otp: string): string {
    return hmacSha256Hex(this.platformSecret, `authorize:${sessionId}:${payer.iban}:${otp}`);
  }

  /**
   * A session some authorization already claimed (API-CONTRACT, checkout authorize). The same
   * authorization again (a lost answer, a retry through another front door) gets the truth:
   * while the session is not final, 200 with its status and a fresh session token; once final,
   * the final answer (SESSION_ALREADY_COMPLETED, SESSION_FAILED). Another authorization gets
   * SESSION_IN_PROGRESS while it runs; the claimer's own account with another OTP is counted as
   * a refused OTP (the stored hash must not become a way to test OTPs).
   */
  private async answerAgain(em: EntityManager, session: PaymentSessionEntity, payer: AliasRouting, otp: string, authorization: string): Promise<CheckoutAuthorization> {
    const status = effectiveStatus(session);
    if (FINAL_STATUSES.has(status)) {
      if (status === 'FAILED')
        throw new GatewayError('SESSION_FAILED', `session ${session.id} has FAILED${session.failureCode ? ` (${session.failureCode})` : ''} and cannot be paid`);
      throw refusal(session.id, status, 'otp_accepted');
    }
    const execution = await executions.find(em.fork(), session.id);
    const same = execution?.authorizationHash != null && safeEqual(execution.authorizationHash, authorization);
    if (!same) {
      if (execution?.debtorIban === payer.iban) await this.otpGuard.countRefused({ ...payer, world: worldOf(session) }, otp);
      throw refusal(session.id, status, 'otp_accepted');
    }
    const token = await em.fork().transactional(async (tx) => {
      const expiresAt = new Date(Date.now() + this.settings.sessionTokenTtlSeconds * 1000);
      return vault.issue(tx, { kind: 'session_token', ownerId: session.id, prefix: 'sst_', expiresAt }).raw;
    });
    this.logger.info({ session: session.id, status }, 'authorization sent again: current status answered');
    return { sessionId: session.id, status: PaymentSessionStatus[status], sessionToken: token, redirectTo: redirectTo(session.redirectUrl, session.id, status) };
  }

  /** ttl_elapsed on the spot, if it is due (else the job's, later); the refusal of an authorization that came too late. */
  private async expire(em: EntityManager, session: PaymentSessionEntity, now: Date): Promise<GatewayError> {
    if (session.status === 'PENDING') await em.fork().transactional((tx) => moveSession(tx, { ...session }, 'ttl_elapsed', now, {}, sessionExpiryDue(now)));
    return new GatewayError('SESSION_EXPIRED', `session ${session.id} expired at ${session.expiresAt.toISOString()}`);
  }

  private async reload(em: EntityManager, sessionId: string): Promise<PaymentSessionEntity> {
    const session = await loadSession(em.fork(), sessionId);
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }

  /** Best effort: a check never ended holds the expiry back for CHECKOUT_CHECK_GRACE_MS, no longer. */
  private async checkEnded(em: EntityManager, sessionId: string): Promise<void> {
    await endCheckoutCheck(em.fork(), sessionId).catch((error: unknown) =>
      this.logger.warn({ err: error, session: sessionId }, 'checkout OTP check not ended; the expiry waits for the grace'),
    );
  }

  /** In the session's world: a test session's payer may be a test payer (success@oasis, …). */
  private async resolvePayer(request: AuthorizeRequest, session: PaymentSessionEntity, requestId?: string): Promise<AliasRouting> {
    const lookup = request.payer.type === 'alias' ? { alias: request.payer.value } : { iban: request.payer.value.iban };
    const payer = await this.directory.alias(lookup, requestId, worldOf(session)).catch((error: unknown) => {
      if (error instanceof GatewayError && error.code === 'VALIDATION_ERROR') throw new GatewayError('VALIDATION_ERROR', `payer.value: ${error.detail.replace(/^\w+: /, '')}`);
      throw error;
    });
    if (payer.status !== 'ACTIVE') throw new GatewayError('ALIAS_INACTIVE', `alias ${payer.handle} is deactivated`);
    return payer;
  }

  /** Counts a wrong OTP atomically; the third one FAILS the session (payment.failed). */
  private async otpRefused(em: EntityManager, session: PaymentSessionEntity): Promise<GatewayError> {
    const now = new Date();
    const left = await em.fork().transactional(async (tx) => {
      const failures = await countOtpFailure(tx, session.id, now);
      if (failures === null) return 0;
      if (failures >= MAX_OTP_FAILURES) {
        await moveSession(tx, { ...session, status: 'PENDING' }, 'otp_failed_too_often', now, {
          failureCode: 'OTP_INVALID',
          failureDetail: `${MAX_OTP_FAILURES} wrong one-time passwords`,
        });
      }
      return Math.max(0, MAX_OTP_FAILURES - failures);
    });
    return new GatewayError(
      'OTP_INVALID',
      left > 0 ? `the one-time password was refused; ${left} attempt${left === 1 ? '' : 's'} left` : 'the one-time password was refused; the session has failed',
    );
  }

  /**
   * PENDING -> PROCESSING with a conditional update, so of concurrent authorizations exactly one
   * proceeds to the debit; with it, written only if it moved the session, the engine's execution
   * row, the payer's session token and the move's event: one statement, all or nothing. Null
   * when another authorization got there first (or the expiry, once CHECKOUT_CHECK_GRACE_MS
   * passed). No deadline: the authorization arrived in time and the expiry waited for its check.
   */
  private async claim(
    em: EntityManager,
    session: PaymentSessionEntity,
    request: AuthorizeRequest,
    payer: AliasRouting,
    authorizationHash: string,
    requestId?: string,
  ): Promise<{ token: string; execution: PaymentExecutionEntity } | null> {
    const now = new Date();
    const settlementType = payer.bankHandle === session.creditorBank ? 'internal' : 'rail';
    const statement = new OneStatement(em);
    const moved = moveSessionIn(statement, 'claimed', session, 'otp_accepted', now, { debtorBank: payer.bankHandle, settlementType });
    const execution = executions.newRow(
      {
        sessionId: session.id,
        payerType: request.payer.type,
        payerValue: request.payer.type === 'iban' ? request.payer.value.iban : request.payer.value,
        debtorIban: payer.iban,
        authorizationHash,
        leaseUntil: new Date(now.getTime() + this.settings.leaseMs),
        requestId: requestId ?? null,
      },
      now,
    );
    statement.insert('execution', PaymentExecutionEntity, { ...execution }, 'claimed');
    const expiresAt = new Date(now.getTime() + this.settings.sessionTokenTtlSeconds * 1000);
    const token = vault.newCredential({ kind: 'session_token', ownerId: session.id, prefix: 'sst_', expiresAt });
    statement.insert('token', Credential, token.row, 'claimed');
    if (!(await statement.run()).claimed) return null;
    Object.assign(session, moved);
    wakeOutboxRelay(em);
    return { token: token.raw, execution };
  }

  /** Lets the engine finish if it can within authorizeWaitMs (its state), afterwards it carries on without the payer waiting (null). */
  private async waitFor(run: Promise<ExecutionState<PaymentSessionEntity> | null>): Promise<ExecutionState<PaymentSessionEntity> | null> {
    let timer: NodeJS.Timeout | undefined;
    const state = await Promise.race([run, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), this.settings.authorizeWaitMs)))]);
    clearTimeout(timer);
    return state;
  }
}

function failureOf(code: string | null, detail: string | null): GatewayError {
  return new GatewayError(isErrorCode(code) ? code : 'CBS_ERROR', detail ?? undefined);
}
