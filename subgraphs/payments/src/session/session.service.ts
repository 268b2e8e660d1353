import { LockMode, type FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OneStatement } from '@gateway/db';
import { publishFirstEvents } from '@gateway/events';
import { GatewayError, invalid, newId, parseInput, type Currency, requestHash, worldOf } from '@gateway/kernel';
import type { AliasRouting, BankRouting, Directory } from '@gateway/federation';
import type { AccountCurrencies } from '../account-currency/account-currency';
import { idempotency } from '../idempotency/idempotency.service';
import { PaymentSessionEntity } from './session.entity';
import {
  createSessionIn,
  loadSession,
  moveSession,
  newSession,
  sessionExpiryDue,
  updateSessionMetadata,
} from './session.moves';
import { createdRange, keysetPage } from '../listing/keyset-page';
import type { MetadataEntryInput } from '../metadata/metadata.input';
import { tooManyKeys, updateMetadataRules } from '../metadata/metadata.rules';
import { keysAfter, metadataContains } from '../metadata/metadata.sql';
import { createSessionRules, sessionListRules, type CreateSessionRequest } from './session.rules';
import { fromSnapshot, snapshotOf, toPaymentSession, type PaymentSession } from './session.type';
import type { CreatePaymentSessionInput, PaymentSessionFilter } from './session.input';
import type { SessionStatus } from './session.transitions';

export interface SessionSettings {
  production: boolean;
  /** PRIVATE_TARGETS: a session's webhook_url may name a loopback, private or link-local address. */
  webhookPrivateTargets: boolean;
  /** Base of checkout_url. */
  publicBaseUrl: string;
  sessionTtlSeconds: number;
}

/** Where a destination resolved to at creation. */
interface ResolvedDestination {
  iban: string;
  bank: BankRouting;
}

/** One wording for an unknown id and another merchant's id, so the two cannot be told apart. */
export const sessionNotFound = (id: string): GatewayError =>
  new GatewayError('SESSION_NOT_FOUND', `no payment session ${id}`);

export interface SessionPage {
  sessions: PaymentSessionEntity[];
  hasMore: boolean;
}

export class SessionService {
  constructor(
    private readonly settings: SessionSettings,
    private readonly directory: Directory,
    private readonly currencies: AccountCurrencies,
  ) {}

  /**
   * Creates a PENDING session: input checked, destination resolved through the registries, its
   * bank's limits applied and its account's currency compared before anything is written; then
   * the session, its payment.initiated event and the Idempotency-Key's answer in one statement.
   * A refused request writes nothing.
   */
  async create(
    em: EntityManager,
    merchant: { id: string; livemode: boolean },
    input: CreatePaymentSessionInput,
    idempotencyKey?: string | null,
    requestId?: string,
  ): Promise<PaymentSession> {
    const merchantId = merchant.id;
    const request = parseInput(
      createSessionRules({ production: this.settings.production, privateTargets: this.settings.webhookPrivateTargets }),
      plain(input),
    );
    if (idempotencyKey != null) {
      const claim = await idempotency.begin(em, merchantId, idempotencyKey, requestHash(request));
      if (claim.kind === 'replay') return fromSnapshot(claim.response);
    }
    try {
      const destination = await this.resolveDestination(request, merchant, requestId);
      const now = new Date();
      const session = this.newSession(merchant, request, destination, now);
      // One statement: the key's answer, the session and its event, all or nothing.
      const statement = new OneStatement(em);
      if (idempotencyKey != null) idempotency.completeIn(statement, merchantId, idempotencyKey, snapshotOf(session));
      const event = createSessionIn(statement, session, now, idempotencyKey != null ? 'key' : undefined);
      const written = await statement.run();
      if (!written.session) throw idempotency.keyTakenOver(idempotencyKey!);
      publishFirstEvents(em, statement, [event]);
      return toPaymentSession(session);
    } catch (error) {
      if (idempotencyKey != null) await idempotency.release(em, merchantId, idempotencyKey);
      throw error;
    }
  }

  /** A merchant's own session; another merchant's is SESSION_NOT_FOUND, like an unknown one. */
  async findOwn(em: EntityManager, merchantId: string | null, id: string): Promise<PaymentSessionEntity> {
    const session = await em.findOne(PaymentSessionEntity, { id });
    if (!session || (merchantId !== null && session.merchantId !== merchantId)) throw sessionNotFound(id);
    return session;
  }

  /**
   * A page of the merchant's sessions, newest first, filtered (listing/keyset-page.ts): sessions
   * created meanwhile land before the first page and never shift or repeat later ones.
   */
  async list(
    em: EntityManager,
    merchantId: string,
    args: { first?: number | null; after?: string | null; filter?: PaymentSessionFilter | null },
  ): Promise<SessionPage> {
    const request = parseInput(sessionListRules, { first: args.first, after: args.after, ...plainFilter(args.filter) });
    const { metadata, status, reference, amountMin, amountMax } = request;
    const page = await keysetPage(em, PaymentSessionEntity, {
      scope: { merchantId },
      fixed: [
        ...createdRange<PaymentSessionEntity>(request),
        ...(reference ? [{ reference }] : []),
        ...(amountMin != null ? [{ amount: { $gte: BigInt(amountMin) } }] : []),
        ...(amountMax != null ? [{ amount: { $lte: BigInt(amountMax) } }] : []),
      ],
      changing: [
        ...(status ? [sessionsReading(status, new Date())] : []),
        ...(metadata ? [metadataContains(metadata.key, metadata.value)] : []),
      ],
      first: request.first,
      after: request.after,
    });
    return { sessions: page.rows, hasMore: page.hasMore };
  }

  /**
   * Merges metadata into a session of the merchant's (a key set to "" is removed): all or nothing,
   * refused past 20 keys. Any status: metadata is the merchant's bookkeeping, not the payment.
   */
  async updateMetadata(
    em: EntityManager,
    merchantId: string,
    id: string,
    metadata: MetadataEntryInput[],
  ): Promise<PaymentSession> {
    const request = parseInput(updateMetadataRules, { metadata: plain(metadata) });
    if (!(await updateSessionMetadata(em, merchantId, id, request.metadata, new Date()))) {
      const session = await this.findOwn(em, merchantId, id);
      throw invalid('metadata', tooManyKeys(keysAfter(session.metadata, request.metadata)));
    }
    const session = await loadSession(em, id);
    if (!session) throw sessionNotFound(id);
    return toPaymentSession(session);
  }

  /**
   * Moves PENDING sessions past their TTL that nobody authorized in time (no OTP check that
   * arrived before expires_at still under way: sessionExpiryDue) to EXPIRED with payment.expired,
   * a batch per transaction; `skip locked` lets several instances share the work without waiting
   * on each other.
   */
  async expireDue(root: EntityManager, now = new Date(), batch = 100): Promise<number> {
    return root.fork().transactional(async (tx) => {
      const due = await tx.find(PaymentSessionEntity, sessionExpiryDue(now), {
        orderBy: { expiresAt: 'asc' },
        limit: batch,
        lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
        disableIdentityMap: true,
      });
      let expired = 0;
      for (const session of due)
        if (await moveSession(tx, session, 'ttl_elapsed', now, {}, sessionExpiryDue(now))) expired += 1;
      return expired;
    });
  }

  /**
   * Ends a PENDING session of the merchant's at once (EXPIRED, payment.expired): one conditional
   * move, so an authorization racing it either claims the session first (this answers 409
   * SESSION_NOT_PENDING) or finds it EXPIRED (the payer is refused): never both.
   */
  async expire(em: EntityManager, merchantId: string, id: string, now = new Date()): Promise<PaymentSession> {
    await this.findOwn(em, merchantId, id);
    return em.fork().transactional(async (tx) => {
      const session = await loadSession(tx, id);
      if (!session || session.status !== 'PENDING' || !(await moveSession(tx, session, 'ended_by_merchant', now)))
        throw new GatewayError(
          'SESSION_NOT_PENDING',
          `session ${id} is ${session?.status ?? 'gone'}: only a PENDING session can be ended`,
        );
      return toPaymentSession(session);
    });
  }

  /**
   * Destination -> IBAN and participating bank, refused with the spec's codes; and 422
   * CURRENCY_MISMATCH when the payee's core says the account is held in another currency (a
   * currency it cannot tell in time is checked again at authorization, by the core's refusal).
   */
  private async resolveDestination(
    request: CreateSessionRequest,
    world: { livemode: boolean },
    requestId?: string,
  ): Promise<ResolvedDestination> {
    let iban: string;
    let bank: BankRouting;
    if (request.destination.type === 'alias') {
      const alias: AliasRouting = await this.directory
        .alias({ alias: request.destination.value }, requestId, worldOf(world))
        .catch(renameValidation);
      if (alias.status !== 'ACTIVE') throw new GatewayError('ALIAS_INACTIVE', `alias ${alias.handle} is deactivated`);
      iban = alias.iban;
      bank = await this.directory
        .bank({ handle: alias.bankHandle }, requestId)
        .catch(notParticipating(alias.bankHandle));
    } else {
      iban = request.destination.value.iban;
      const code = request.destination.value.institutionCode;
      bank = await this.directory
        .bank({ institutionCode: code }, requestId)
        .catch(notParticipating(`with institution code ${code}`));
    }
    if (request.amount < bank.minAmount)
      throw new GatewayError(
        'AMOUNT_TOO_LOW',
        `amount: ${request.amount} is below ${bank.handle}'s minimum of ${bank.minAmount}`,
      );
    if (request.amount > bank.maxAmount)
      throw new GatewayError(
        'AMOUNT_TOO_HIGH',
        `amount: ${request.amount} is above ${bank.handle}'s maximum of ${bank.maxAmount}`,
      );
    const name = request.destination.type === 'alias' ? request.destination.value : iban;
    await this.currencies.assertHeldIn(
      { bank, iban, livemode: world.livemode, role: 'payee', name },
      { what: 'session', currency: request.currency as Currency },
      requestId,
    );
    return { iban, bank };
  }

  private newSession(
    merchant: { id: string; livemode: boolean },
    request: CreateSessionRequest,
    destination: ResolvedDestination,
    now: Date,
  ): PaymentSessionEntity {
    const id = newId('paymentSession');
    return newSession(
      {
        id,
        merchantId: merchant.id,
        livemode: merchant.livemode,
        amount: BigInt(request.amount),
        currency: request.currency as Currency,
        destinationType: request.destination.type,
        destinationValue:
          request.destination.type === 'iban' ? request.destination.value.iban : request.destination.value,
        creditorIban: destination.iban,
        creditorBank: destination.bank.handle,
        description: request.description ?? null,
        reference: request.reference ?? null,
        metadata: request.metadata ?? {},
        redirectUrl: request.redirectUrl ?? null,
        webhookUrl: request.webhookUrl ?? null,
        checkoutUrl: `${this.settings.publicBaseUrl}/pay/${id}`,
        expiresAt: new Date(now.getTime() + this.settings.sessionTtlSeconds * 1000),
      },
      now,
    );
  }
}

/** type-graphql input classes -> plain objects, so the strict rules see only given fields. */
function plain<T>(input: T): unknown {
  return JSON.parse(JSON.stringify(input));
}

/** A graph filter input as a plain object, so the strict rules see only given fields. */
function plainFilter(input: unknown): Record<string, unknown> {
  return input == null ? {} : (JSON.parse(JSON.stringify(input)) as Record<string, unknown>);
}

/**
 * Sessions whose status reads as `status` now: a PENDING session past expires_at reads EXPIRED
 * (effectiveStatus) before the expiry job records it, so it is listed as EXPIRED, not PENDING.
 */
function sessionsReading(status: SessionStatus, now: Date): FilterQuery<PaymentSessionEntity> {
  const lapsed = { status: 'PENDING' as const, expiresAt: { $lte: now }, checkoutChecksInFlight: { $lte: 0 } };
  if (status === 'EXPIRED') return { $or: [{ status: 'EXPIRED' }, lapsed] };
  if (status === 'PENDING')
    return { status: 'PENDING', $or: [{ expiresAt: { $gt: now } }, { checkoutChecksInFlight: { $gt: 0 } }] };
  return { status };
}

/** The registry's answer names its own argument; the merchant sent destination.value. */
function renameValidation(error: unknown): never {
  if (error instanceof GatewayError && error.code === 'VALIDATION_ERROR') {
    throw new GatewayError('VALIDATION_ERROR', `destination.value: ${error.detail.replace(/^\w+: /, '')}`);
  }
  throw error;
}

/** An unknown destination bank is, for the merchant, a bank that does not take part. */
function notParticipating(which: string) {
  return (error: unknown): never => {
    if (error instanceof GatewayError && error.code === 'BANK_NOT_REGISTERED') {
      throw new GatewayError('BANK_NOT_PARTICIPATING', `no participating bank ${which}`);
    }
    throw error;
  };
}
