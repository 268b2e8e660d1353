import { z } from 'zod';
import { defineRoute, type GraphQLData } from '../route';

const AUDIT_RECORD = `fragment AuditRecord on AuditLogEntry { auditId at actor { kind id name } action target changes ip requestId }`;

const instant = (what: string) =>
  z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2026-11-24T09:30:00Z' })
    .optional()
    .describe(what);

const auditEntry = z
  .object({
    audit_id: z.string().describe('The entry (aud_…).'),
    at: z.string().describe('When the action was committed (ISO 8601 UTC).'),
    actor: z
      .object({
        kind: z.string().describe('admin, bank, merchant, tpp or service.'),
        id: z
          .string()
          .nullable()
          .describe('Merchant id, bank handle, TPP id or admin key id; null for the configured ADMIN_KEY.'),
        name: z
          .string()
          .nullable()
          .describe("The admin key's name (ADMIN_KEY for the configured one); null otherwise."),
      })
      .strict()
      .describe('Who acted.'),
    action: z.string().describe('What was done, e.g. merchant.updated (docs/audit-log.md lists every action).'),
    target: z
      .string()
      .describe(
        'What it was done to: a merchant id, bank handle, TPP id, admin key id, movement id or settlement position reference.',
      ),
    changes: z
      .record(z.string(), z.object({ from: z.unknown().optional(), to: z.unknown().optional() }).strict())
      .describe(
        'The fields it changed, by their REST names: {field: {from, to}}; `from` absent when the action set the field first. A key or secret shows only as "[secret]".',
      ),
    ip: z.string().nullable().describe("The caller's IP address."),
    request_id: z.string().nullable().describe('The X-Request-Id of the request the action was made in.'),
  })
  .strict();

/** The operator's audit log (API-CONTRACT "Operator controls: credentials, suspension, audit"). */
export const auditRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/audit',
    tag: 'Operations',
    summary: 'Read the audit log',
    description:
      'Newest first. Every admin action, every key or secret issued, rotated or revoked, every change of where money goes, bank capability and limit changes, suspensions, ' +
      'attention resolutions and settlement retries: who, what, before and after (never a secret), from which IP, with the request id. Append-only: the database refuses to change or delete an entry. ' +
      'Pass pagination.next_cursor as cursor for the next page.',
    auth: [['adminKey']],
    query: z
      .object({
        actor: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('An actor id (merchant id, bank handle, TPP id, admin key id) or an admin key name (ADMIN_KEY).'),
        action: z.string().min(1).max(200).optional().describe('One action, e.g. merchant.updated.'),
        target: z.string().min(1).max(200).optional().describe('One target, e.g. a merchant id or bank handle.'),
        from: instant('Entries at or after this instant (ISO 8601).'),
        to: instant('Entries before this instant (ISO 8601).'),
        limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1-100 (default 20).'),
        cursor: z.string().min(1).max(200).optional().describe('next_cursor of the previous page.'),
      })
      .strict(),
    operation: `query AuditLog($actor: String, $action: String, $target: String, $from: DateTimeISO, $to: DateTimeISO, $first: Int!, $after: ID) {
  auditLog(actor: $actor, action: $action, target: $target, from: $from, to: $to, first: $first, after: $after) {
    edges { node { ...AuditRecord } } pageInfo { hasNextPage endCursor }
  }
}
${AUDIT_RECORD}`,
    variables: ({ query }) => ({
      actor: query.actor ?? null,
      action: query.action ?? null,
      target: query.target ?? null,
      from: query.from ?? null,
      to: query.to ?? null,
      first: query.limit ?? 20,
      after: query.cursor ?? null,
    }),
    result: ({ auditLog: page }) => ({
      entries: page.edges.map((edge: GraphQLData) => edge.node),
      pagination: {
        nextCursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null,
        hasMore: page.pageInfo.hasNextPage,
      },
    }),
    status: 200,
    response: z
      .object({
        entries: z.array(auditEntry),
        pagination: z
          .object({ next_cursor: z.string().nullable().describe('null on the last page.'), has_more: z.boolean() })
          .strict(),
      })
      .strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  }),
];
