import { AUDIT_ACTIONS, type AuditFilter } from '@gateway/audit';
import { GatewayError, parseInput, z } from '@gateway/kernel';
import type { AuditLogArgs } from './audit-log.input';

export const MAX_AUDIT_PAGE = 100;

const name = z.string().min(1).max(200);

const auditLogRules = z
  .object({
    actor: name.nullish(),
    action: z.enum(AUDIT_ACTIONS, { message: `must be one of ${AUDIT_ACTIONS.join(', ')}` }).nullish(),
    target: name.nullish(),
    from: z.date().nullish(),
    to: z.date().nullish(),
    first: z.number().int().min(1, `1 to ${MAX_AUDIT_PAGE}`).max(MAX_AUDIT_PAGE, `1 to ${MAX_AUDIT_PAGE}`),
    after: z.string().min(1).max(200).nullish(),
  })
  .strict();

/** The audit log's filters as the log reads them; VALIDATION_ERROR naming the first bad one. */
export function auditLogFilter(args: AuditLogArgs): AuditFilter {
  const valid = parseInput(auditLogRules, args);
  if (valid.from && valid.to && valid.from.getTime() > valid.to.getTime())
    throw new GatewayError('VALIDATION_ERROR', 'from: must not be after to');
  return {
    ...(valid.actor ? { actor: valid.actor } : {}),
    ...(valid.action ? { action: valid.action } : {}),
    ...(valid.target ? { target: valid.target } : {}),
    ...(valid.from ? { from: valid.from } : {}),
    ...(valid.to ? { to: valid.to } : {}),
    limit: valid.first,
    ...(valid.after ? { cursor: valid.after } : {}),
  };
}
