import { invalid, rules, type Logger, type Principal } from '@gateway/kernel';
import { auditActor, type AuditActor } from './audit';
import type { AuditChange } from './audit-entry.entity';

/**
 * What a service needs to record an action on its caller's behalf: who acts (from the request)
 * and the request's logger, which carries the warn line of a change of where money goes.
 * Resolvers build it with auditedBy(context) and hand it to the service method that changes.
 */
export interface AuditedBy {
  actor: AuditActor;
  logger: Logger;
}

export function auditedBy(context: { principal: Principal; requestId?: string; logger: Logger }): AuditedBy {
  return { actor: auditActor(context), logger: context.logger };
}

/**
 * A credential or secret the action issued (shown once to the caller): the log says that one was
 * issued, never which. The raw value is not even handed to the log.
 */
export const SECRET_ISSUED: AuditChange = Object.freeze({ to: '[secret]' });
/** A credential or secret the action replaced: the old one stops working, a new one was issued. */
export const SECRET_REPLACED: AuditChange = Object.freeze({ from: '[secret]', to: '[secret]' });
/** A secret the action removed without a successor. */
export const SECRET_REMOVED: AuditChange = Object.freeze({ from: '[secret]', to: null });

/** The changes of a creation: every field it set (null and undefined ones left out), `from` absent. */
export function createdWith(fields: Record<string, unknown>): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const [field, to] of Object.entries(fields)) if (to !== undefined && to !== null) changes[field] = { to };
  return changes;
}

/** The longest reason an operator may give for an action (a suspension, a resumption). */
export const REASON_MAX = 500;

/**
 * The operator's reason for an action, kept in its audit entry beside what changed so the log says
 * why (`changes.reason.to`); none given, nothing added. A blank or overlong one is a
 * VALIDATION_ERROR naming `reason`, before anything changes.
 */
export function reasonGiven(reason: string | null | undefined): Record<string, AuditChange> {
  if (reason === undefined || reason === null) return {};
  const checked = rules.text(REASON_MAX).safeParse(reason);
  if (!checked.success) throw invalid('reason', checked.error.issues[0]!.message);
  return { reason: { to: checked.data } };
}
