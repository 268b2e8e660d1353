import { raw } from '@mikro-orm/core';
import { METADATA_MAX_KEYS, type Metadata, type MetadataPatch } from './metadata.rules';

/**
 * SQL pieces for the owners of the tables with a metadata column (session.moves.ts,
 * mandate.moves.ts, refund.moves.ts write their own UPDATE with these): the merge happens in the
 * statement, so two PATCHes of different keys at once both keep their keys, and the 20-key limit
 * is checked on the merged value, not on one read before it.
 */
export function metadataMerge(patch: MetadataPatch): {
  /** The merged value: `"metadata" = ${merged}`. */
  merged: string;
  /** True while the merged value stays within the limit: a condition of the UPDATE. */
  fits: string;
  /** Bindings of `merged`, then again of `fits`, in the order they appear. */
  mergedBindings: unknown[];
} {
  // Removed keys as a JSON array expanded to text[]: one binding, whatever the driver does with arrays.
  const merged = `(("metadata" || ?::jsonb) - array(select jsonb_array_elements_text(?::jsonb)))`;
  return {
    merged,
    fits: `(select count(*) from jsonb_object_keys(${merged})) <= ${METADATA_MAX_KEYS}`,
    mergedBindings: [JSON.stringify(patch.set), JSON.stringify(patch.remove)],
  };
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
