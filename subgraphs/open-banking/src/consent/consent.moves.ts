import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '@gateway/events';
import { ConsentEntity } from './consent.entity';
import {
  CONSENT_REACHED_AT,
  consentRefusal,
  consentTransitionFor,
  type ConsentEventKind,
  type ConsentTrigger,
} from './consent.transitions';

/*
 * The one writer of open_banking.consents (CONVENTIONS "Data": one owner per table): every change
 * of a consent is a move of the transition table (creation included) and writes its outbox event,
 * if the move has one, in the same transaction. Other folders read consents and change them only
 * through here.
 */

export const CONSENT_AGGREGATE = 'consent';

/** The event payload: what a TPP needs to act without another call. Never the state or challenge. */
export function consentEventData(consent: ConsentEntity): Record<string, unknown> {
  return {
    consent_id: consent.id,
    livemode: consent.livemode,
    status: consent.status,
    tpp_id: consent.tppId,
    bank_handle: consent.bankHandle,
    scopes: [...consent.scopes],
    expires_at: consent.expiresAt.toISOString(),
    ...(consent.status === 'REVOKED' ? { revoked_by: consent.revokedBy } : {}),
  };
}

/**
 * A VRP consent's webhooks are vrp_consent.* (contract "Variable recurring payments"): the same
 * moves, named for their kind so a TPP's endpoint can take one kind and not the other.
 */
export const consentEventKind = (kind: ConsentEventKind, consent: Pick<ConsentEntity, 'kind'>): string =>
  consent.kind === 'vrp' && kind.startsWith('consent.') ? `vrp_${kind}` : kind;

function recordConsentEvent(em: EntityManager, kind: ConsentEventKind, consent: ConsentEntity, now: Date): void {
  recordEvent(
    em,
    {
      kind: consentEventKind(kind, consent),
      aggregateType: CONSENT_AGGREGATE,
      aggregateId: consent.id,
      audience: consent.tppId,
      data: consentEventData(consent),
    },
    now,
  );
}

/** What the TPP's request fixed about a new consent (the rest is the 'created' move's). */
export type NewConsent = Pick<
  ConsentEntity,
  | 'id'
  | 'tppId'
  | 'livemode'
  | 'bankHandle'
  | 'scopes'
  | 'redirectUri'
  | 'state'
  | 'codeChallenge'
  | 'codeChallengeMethod'
  | 'expiryDays'
  | 'expiresAt'
> &
  Partial<Pick<ConsentEntity, 'kind' | 'fundsAccountType' | 'fundsAccountValue'>>;

/** The 'created' move in the caller's transaction: a new AWAITING_AUTHORISATION consent. */
export function createConsent(tx: EntityManager, fields: NewConsent, now: Date): ConsentEntity {
  const move = consentTransitionFor(null, 'created')!;
  const consent = tx.create(ConsentEntity, {
    ...fields,
    kind: fields.kind ?? 'accounts',
    fundsAccountType: fields.fundsAccountType ?? null,
    fundsAccountValue: fields.fundsAccountValue ?? null,
    status: move.to,
    accountIds: [],
    revokedBy: null,
    otpFailures: 0,
    createdAt: now,
    updatedAt: now,
  });
  if (move.event) recordConsentEvent(tx, move.event, consent, now);
  return consent;
}

/** Columns a move may set besides status and its timestamp. */
export type ConsentMoveChanges = Partial<Pick<ConsentEntity, 'accountIds' | 'revokedBy' | 'approvalHash'>>;

/**
 * Makes one move of the transition table inside the caller's transaction: a conditional UPDATE
 * (`where id = ? and status = <from>`), so of two processes racing for the same move exactly
 * one wins, plus the move's outbox event. Returns false when the consent was no longer in the
 * expected status (someone else moved it first); throws when the table has no such move.
 * `consent` must not be a managed entity (load it with loadConsent): it is updated in place.
 */
export async function moveConsent(
  em: EntityManager,
  consent: ConsentEntity,
  trigger: ConsentTrigger,
  now: Date,
  changes: ConsentMoveChanges = {},
): Promise<boolean> {
  const move = consentTransitionFor(consent.status, trigger);
  if (!move) throw consentRefusal(consent.id, consent.status, trigger);
  const update = { ...changes, status: move.to, updatedAt: now, [CONSENT_REACHED_AT[move.to]]: now };
  const count = await em.nativeUpdate(ConsentEntity, { id: consent.id, status: consent.status }, update);
  if (count === 0) return false;
  Object.assign(consent, update);
  if (move.event) recordConsentEvent(em, move.event, consent, now);
  return true;
}

/**
 * Counts a wrong one-time password given for an AWAITING_AUTHORISATION consent: one atomic
 * increment (raw SQL: an ORM read-modify-write would let two concurrent wrong OTPs both count
 * as the second), returning the new count; null when the consent is no longer awaiting.
 */
export async function countConsentOtpFailure(tx: EntityManager, consentId: string, now: Date): Promise<number | null> {
  const rows: Array<{ otp_failures: number }> = await tx.execute(
    `update "open_banking"."consents" set "otp_failures" = "otp_failures" + 1, "updated_at" = ? where "id" = ? and "status" = 'AWAITING_AUTHORISATION' returning "otp_failures"`,
    [now, consentId],
  );
  return rows.length === 0 ? null : Number(rows[0]!.otp_failures);
}

/** Loads a consent as a plain, untracked object (what moveConsent updates in place). */
/**
 * Holds the consent's row until the caller's transaction ends (SELECT … FOR UPDATE): what is
 * decided per consent (the SCA exemption of its next payment order) is decided one request at a
 * time. Changes nothing.
 */
export async function lockConsent(tx: EntityManager, consentId: string): Promise<void> {
  await tx.execute(`select 1 from "open_banking"."consents" where "id" = ? for update`, [consentId]);
}

export function loadConsent(em: EntityManager, id: string): Promise<ConsentEntity | null> {
  return em.findOne(ConsentEntity, { id }, { disableIdentityMap: true });
}
