import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { METADATA_MAX_KEYS, type Metadata, type MetadataPatch } from './metadata.rules';

/**
 * Merges a PATCH into one row's metadata for its owner (session.moves.ts, mandate.moves.ts,
 * refund.moves.ts each pass their own `update "payments"."<table>"`, so the write stays in the
 * table's owner file): false when the merchant has no such row or the merge would pass 20 keys
 * (nothing changes). The merge happens in the statement, so two PATCHes of different keys at once
 * both keep their keys, and the limit is checked on the merged value, not on one read before it.
 * No event: metadata is no move, and the object's next event carries it.
 */
export async function mergeMetadata(
  em: EntityManager,
  updateTable: `update "payments"."${string}"`,
  row: { id: string; merchantId: string },
  patch: MetadataPatch,
  now: Date,
): Promise<boolean> {
  // Removed keys as a JSON array expanded to text[]: one binding, whatever the driver does with arrays.
  const merged = `(("metadata" || ?::jsonb) - array(select jsonb_array_elements_text(?::jsonb)))`;
  const mergedBindings = [JSON.stringify(patch.set), JSON.stringify(patch.remove)];
  const rows: unknown[] = await em.execute(
    `${updateTable} set "metadata" = ${merged}, "updated_at" = ? where "id" = ? and "merchant_id" = ?
       and (select count(*) from jsonb_object_keys(${merged})) <= ${METADATA_MAX_KEYS} returning "id"`,
    [...mergedBindings, now, row.id, row.merchantId, ...mergedBindings],
  );
  return rows.length > 0;
}

/** How many keys `current` would have after `patch` (the refusal's wording). */
export function keysAfter(current: Metadata | null | undefined, patch: MetadataPatch): number {
  const keys = new Set([...Object.keys(current ?? {}), ...Object.keys(patch.set)]);
  for (const key of patch.remove) keys.delete(key);
  return keys.size;
}

/**
 * A list filter on one key=value: `metadata @> {"key": "value"}`, the containment the GIN index on
 * the column serves. A raw fragment must be used in one query only (the ORM caches its key): built
 * per query.
 */
export function metadataContains(key: string, value: string): Record<string, unknown[]> {
  return {
    [raw((alias: string) => `${alias}."metadata" @> ?::jsonb`, [JSON.stringify({ [key]: value })])]: [],
  };
}
