import { z } from 'zod';
import type { GraphQLData } from '../route';

/*
 * What the list routes share (sessions, mandates, charges, refunds, deliveries): the page, the
 * filters as query parameters, and metadata as REST spells it (a plain object) and GraphQL takes
 * it ([{key, value}]). Values are checked by the payments subgraph (one set of rules for both
 * APIs); a bad one is 400 VALIDATION_ERROR naming the parameter.
 */

const pageQuery = {
  limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1-100 (default 20).'),
  cursor: z
    .string()
    .optional()
    .describe('next_cursor of the previous page: the last id of a page of this same filtered list.'),
};

const createdQuery = {
  created_from: z
    .string()
    .optional()
    .describe('Created at or after (inclusive): ISO 8601 date or date-time with offset, e.g. 2026-12-01T00:00:00Z.'),
  created_to: z.string().optional().describe('Created before (exclusive): ISO 8601, as created_from.'),
};

const amountBound = (what: string) =>
  z.coerce
    .number({ error: 'must be an integer of minor units' })
    .int('must be an integer of minor units')
    .min(0, 'must be 0 or more')
    .optional()
    .describe(`${what}, in minor units (inclusive).`);

/** A plain object of string values: the merchant's keys, exactly as sent. */
export const metadataObject = z
  .record(z.string(), z.string())
  .describe(
    "The merchant's own key-value pairs (order id, customer number): up to 20 keys of 1-40 characters (no brackets), string values of up to 500. Never shown to the payer.",
  );

const metadataQuery = z
  .record(z.string(), z.string())
  .refine((given) => Object.keys(given).length === 1, 'filter by one key: metadata[<key>]=<value>')
  .optional()
  .describe('metadata[<key>]=<value>: only objects whose metadata holds this key with exactly this value (one key).');

/** The query of a list route: page, status, created range, and the list's own filters. */
export function listQuery<S extends z.ZodRawShape>(statuses: string, own: S) {
  return z
    .object({
      ...pageQuery,
      status: z.string().optional().describe(`Only this status: ${statuses}.`),
      ...createdQuery,
      ...own,
    })
    .strict();
}

export const filterQuery = {
  reference: z.string().optional().describe("Only this reference of the merchant's, exactly."),
  amount_min: amountBound('Amount at least this'),
  amount_max: amountBound('Amount at most this'),
  metadata: metadataQuery,
  event: z.string().optional().describe('Only this event kind, e.g. payment.completed.'),
};

/** The parsed query (camelCase) as the graph's filter input; null when nothing filters. */
export function filterOf(query: {
  status?: string;
  createdFrom?: string;
  createdTo?: string;
  reference?: string;
  amountMin?: number;
  amountMax?: number;
  metadata?: Record<string, string>;
  event?: string;
}): Record<string, unknown> | null {
  const {
    limit: _limit,
    cursor: _cursor,
    metadata,
    ...rest
  } = query as typeof query & { limit?: unknown; cursor?: unknown };
  const [entry] = Object.entries(metadata ?? {});
  const filter = {
    ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    ...(entry ? { metadata: { key: entry[0], value: entry[1] } } : {}),
  };
  return Object.keys(filter).length > 0 ? filter : null;
}

/** REST's object -> the graph's entries. */
export const metadataEntries = (metadata: Record<string, string> | null | undefined) =>
  metadata == null ? undefined : Object.entries(metadata).map(([key, value]) => ({ key, value }));

/** The graph's entries -> REST's object. */
export const metadataObjectOf = (entries: GraphQLData[] | null | undefined): Record<string, string> =>
  Object.fromEntries((entries ?? []).map((entry) => [entry.key, entry.value]));

/** The body of a metadata PATCH. */
export const metadataPatchBody = z
  .object({
    metadata: metadataObject.describe(
      'Keys to set, merged into those the object has; a key set to "" is removed. Up to 20 keys in all afterwards, else 400 and nothing changes.',
    ),
  })
  .strict();
