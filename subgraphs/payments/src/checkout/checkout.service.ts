import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, hmacSha256Hex, parseInput, safeEqual, worldOf, type Logger } from '@gateway/kernel';
import { OneStatement } from '@gateway/db';
import { wakeOutboxRelay } from '@gateway/events';
import { vault } from '@gateway/vault';
import type { AliasRouting, CheckedPayer, Directory } from '@gateway/federation';
import { bankReference } from '../bank/bank.type';
import type { PaymentEngine, StartedMovement } from '../engine/engine';
import type { EngineSettings } from '../engine/engine.settings';
import { MAX_OTP_FAILURES, otpAttemptsLeft, type OtpRefusals, type PayerOtp } from '../payer-otp/payer-otp';
import { MerchantEntity } from '../merchant/merchant.entity';
import type { PaymentSessionEntity } from '../session/session.entity';
import {
  countOtpFailure,
  endCheckoutCheck,
  loadSession,
  moveSession,
  moveSessionIn,
  openCheckoutCheck,
  sessionExpiryDue,
} from '../session/session.moves';
import { sessionNotFound } from '../session/session.service';
import { FINAL_STATUSES, refusal } from '../session/session.transitions';
import { effectiveStatus, PaymentSessionStatus } from '../session/session.type';
import type { AuthorizeCheckoutInput } from './checkout.input';
import { authorizeRules, type AuthorizeRequest } from './checkout.rules';
import type { CheckoutAuthorization, CheckoutSession, CheckoutStatus } from './checkout.type';
import { assertPayable } from './payable';
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
    private readonly payerOtp: PayerOtp,
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
      otpAttemptsLeft: otpAttemptsLeft(session.otpFailures),
      redirectTo: redirectTo(session.redirectUrl, session.id, status),
      reference: session.reference,
      completedAt: status === 'COMPLETED' ? session.completedAt : null,
      failureCode: status === 'FAILED' ? session.failureCode : null,
      livemode: session.livemode,
    };
  }

  /**
   * The session's TTL is when the payer's authorization arrives, not when the payer's bank
   * answers: an authorization that arrived in time is recorded as an OTP check under way before
   * the registry and the bank are asked (the expiry waits for it, sessionExpiryDue), so a slow
   * bank or a slow machine never expires a payment the payer authorized in time. Concurrent
   * authorizations are all checked; the claim lets exactly one proceed.
   */
  async authorize(
    em: EntityManager,
    sessionId: string,
    input: AuthorizeCheckoutInput,
    client: string | null,
    requestId?: string,
  ): Promise<CheckoutAuthorization> {
    const request = parseInput(authorizeRules, JSON.parse(JSON.stringify(input)));
    const arrivedAt = new Date();
    // The session, its merchant's status and the OTP check counted, in one statement.
    const opened = await openCheckoutCheck(em.fork(), sessionId, arrivedAt);
    if (!opened) throw sessionNotFound(sessionId);
    const { session, checking } = opened;
    // Too late: refused without asking the bank; expired on the spot unless an authorization that came in time is still being checked.
    // (No check was counted then: the statement counts one only before expires_at.)
    if (effectiveStatus(session, arrivedAt) === 'EXPIRED') throw await this.expire(em, session, arrivedAt);
    if (session.status === 'PENDING')
      await assertPayable(this.directory, session, opened.merchantStatus, requestId).catch(async (error: unknown) => {
        // Refused before the bank was asked: the check counted with the read no longer holds the expiry back.
        if (checking) await this.checkEnded(em, sessionId);
        throw error;
      });

    let claimed: Awaited<ReturnType<CheckoutService['claim']>> = null;
    let payer: AliasRouting;
    let authorization: string;
    try {
      // Not payable any more (or moved since it was read): the answer for an authorization sent again, or the refusal of another.
      if (!checking) {
        payer = await this.resolvePayer(request, session, requestId);
        authorization = this.authorizationHash(sessionId, payer, request.otp);
        return await this.answerAgain(
          em,
          session.status === 'PENDING' ? await this.reload(em, sessionId) : session,
          { ...payer, client },
          request.otp,
          authorization,
        );
      }
      // One trip to the registry: the payer, their bank, and the OTP check taken for them.
      const checked = await this.checkPayer(request, session, client, requestId);
      payer = checked.payer;
      authorization = this.authorizationHash(sessionId, payer, request.otp);
      if (payer.iban === session.creditorIban) {
        checked.check.release();
        throw new GatewayError('VALIDATION_ERROR', 'payer: is the destination account itself');
      }
      // A refusal or no answer (CBS_TIMEOUT / CBS_ERROR) moves nothing: the session stays PENDING.
      await this.payerOtp.verifyChecked(em, checked, worldOf(session), request.otp, otpRefusals(session), requestId);
      // Before the claim, so a refusal moves nothing and the session stays PENDING: the payer may
      // pay from an account in the session's currency (422 CURRENCY_MISMATCH, as a declined card).
      await this.engine.assertCurrencies(
        {
          kind: 'session',
          livemode: session.livemode,
          currency: session.currency,
          payer: {
            bank: checked.bank,
            iban: payer.iban,
            name: request.payer.type === 'alias' ? request.payer.value : payer.iban,
          },
          payee: { bank: session.creditorBank, iban: session.creditorIban, name: session.destinationValue },
        },
        requestId,
      );
      // No deadline here: the authorization arrived in time, and the expiry waited for this check.
      claimed = await this.claim(em, session, request, payer, authorization, requestId);
    } finally {
      // Not claimed (refused, unanswered, another got there first): the check no longer holds the expiry back.
      if (checking && claimed === null) await this.checkEnded(em, sessionId);
    }
    // Another authorization (perhaps this same one, sent twice at once) got there first.
    if (claimed === null)
      return this.answerAgain(em, await this.reload(em, sessionId), { ...payer, client }, request.otp, authorization);
    this.logger.info(
      { session: sessionId, payer_bank: payer.bankHandle, settlement: session.settlementType },
      'payment authorized',
    );

    const outcome = await this.engine.execute(em, claimed.started, session);
    if (outcome.state === 'failed') throw new GatewayError(outcome.code, outcome.detail ?? undefined);
    const after = outcome.movement;
    return {
      sessionId,
      status: PaymentSessionStatus[after.status],
      sessionToken: claimed.token,
      redirectTo: redirectTo(after.redirectUrl, sessionId, after.status),
    };
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
  private async answerAgain(
    em: EntityManager,
    session: PaymentSessionEntity,
    payer: AliasRouting & { client: string | null },
    otp: string,
    authorization: string,
  ): Promise<CheckoutAuthorization> {
    const status = effectiveStatus(session);
    if (FINAL_STATUSES.has(status)) {
      if (status === 'FAILED')
        throw new GatewayError(
          'SESSION_FAILED',
          `session ${session.id} has FAILED${session.failureCode ? ` (${session.failureCode})` : ''} and cannot be paid`,
        );
      throw refusal(session.id, status, 'otp_accepted');
    }
    const authorized = await this.engine.authorization(em, session.id);
    const same = authorized?.authorizationHash != null && safeEqual(authorized.authorizationHash, authorization);
    if (!same) {
      if (authorized?.debtorIban === payer.iban)
        await this.payerOtp.countRefused({ ...payer, world: worldOf(session) }, otp);
      throw refusal(session.id, status, 'otp_accepted');
    }
    const token = await em.fork().transactional(async (tx) => {
      const expiresAt = new Date(Date.now() + this.settings.sessionTokenTtlSeconds * 1000);
      return vault.issue(tx, { kind: 'session_token', ownerId: session.id, prefix: 'sst_', expiresAt }).raw;
    });
    this.logger.info({ session: session.id, status }, 'authorization sent again: current status answered');
    return {
      sessionId: session.id,
      status: PaymentSessionStatus[status],
      sessionToken: token,
      redirectTo: redirectTo(session.redirectUrl, session.id, status),
    };
  }

  /** ttl_elapsed on the spot, if it is due (else the job's, later); the refusal of an authorization that came too late. */
  private async expire(em: EntityManager, session: PaymentSessionEntity, now: Date): Promise<GatewayError> {
    if (session.status === 'PENDING')
      await em
        .fork()
        .transactional((tx) => moveSession(tx, { ...session }, 'ttl_elapsed', now, {}, sessionExpiryDue(now)));
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
      this.logger.warn(
        { err: error, session: sessionId },
        'checkout OTP check not ended; the expiry waits for the grace',
      ),
    );
  }

  /** In the session's world: a test session's payer may be a test payer (success@oasis, …). No check taken. */
  private async resolvePayer(
    request: AuthorizeRequest,
    session: PaymentSessionEntity,
    requestId?: string,
  ): Promise<AliasRouting> {
    const payer = await this.directory.alias(payerLookup(request), requestId, worldOf(session)).catch(payerValueError);
    if (payer.status !== 'ACTIVE') throw new GatewayError('ALIAS_INACTIVE', `alias ${payer.handle} is deactivated`);
    return payer;
  }

  /** resolvePayer, with their bank's routing and the OTP check taken for them, in one trip to the registry. */
  private checkPayer(
    request: AuthorizeRequest,
    session: PaymentSessionEntity,
    client: string | null,
    requestId?: string,
  ): Promise<CheckedPayer> {
    return this.payerOtp
      .take(payerLookup(request), request.otp, worldOf(session), client, requestId)
      .catch(payerValueError);
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
  ): Promise<{ token: string; started: StartedMovement } | null> {
    const now = new Date();
    const settlementType = payer.bankHandle === session.creditorBank ? 'internal' : 'rail';
    const statement = new OneStatement(em);
    const moved = moveSessionIn(statement, 'claimed', session, 'otp_accepted', now, {
      debtorBank: payer.bankHandle,
      settlementType,
    });
    const started = this.engine.startIn(
      statement,
      {
        movementId: session.id,
        kind: 'session',
        payer: {
          type: request.payer.type,
          value: request.payer.type === 'iban' ? request.payer.value.iban : request.payer.value,
        },
        debtorIban: payer.iban,
        authorizationHash,
        requestId: requestId ?? null,
        money: { ...session, debtorBank: payer.bankHandle },
      },
      now,
      'claimed',
    );
    const expiresAt = new Date(now.getTime() + this.settings.sessionTokenTtlSeconds * 1000);
    const token = vault.issueIn(
      statement,
      'token',
      { kind: 'session_token', ownerId: session.id, prefix: 'sst_', expiresAt },
      'claimed',
    );
    if (!(await statement.run()).claimed) return null;
    Object.assign(session, moved);
    // The claim's event (payment.processing) leaves with the execution's first move when that
    // comes within PROCESSING_EVENT_WAITS_MS (a same-bank payment's payment.completed): one relay
    // take and one webhook lane for both, not a take each and a claim for the second delivery
    // (issue 32: statements per payment). A slower bank costs the event that much, no more.
    wakeOutboxRelay(em, { withinMs: PROCESSING_EVENT_WAITS_MS });
    return { token, started };
  }
}

/** How long a claim's event waits for the execution's first move, to leave with it. */
const PROCESSING_EVENT_WAITS_MS = 10;

const payerLookup = (request: AuthorizeRequest) =>
  request.payer.type === 'alias' ? { alias: request.payer.value } : { iban: request.payer.value.iban };

/** The registry's refusal of the payer's alias or IBAN, named after the field the payer filled in. */
function payerValueError(error: unknown): never {
  if (error instanceof GatewayError && error.code === 'VALIDATION_ERROR')
    throw new GatewayError('VALIDATION_ERROR', `payer.value: ${error.detail.replace(/^\w+: /, '')}`);
  throw error;
}

/** A wrong OTP is counted on the session; the last one FAILS it (payment.failed). */
const otpRefusals = (session: PaymentSessionEntity): OtpRefusals => ({
  what: 'session',
  count: (tx, now) => countOtpFailure(tx, session.id, now),
  fail: (tx, now) =>
    moveSession(tx, { ...session, status: 'PENDING' }, 'otp_failed_too_often', now, {
      failureCode: 'OTP_INVALID',
      failureDetail: `${MAX_OTP_FAILURES} wrong one-time passwords`,
    }),
});
