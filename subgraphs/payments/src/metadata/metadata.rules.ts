import { isReservedKey, reservedKeyProblem, z } from '@gateway/kernel';

/**
 * Metadata: the merchant's own key-value pairs on a session, mandate, charge or refund (its order
 * id, its customer number), Stripe's rules: up to 20 keys of at most 40 characters, string values
 * of at most 500. Set at creation, merged by a PATCH (a key set to "" is removed), echoed in the
 * object's webhook events, filterable by one key=value. Never shown to the payer.
 */
export const METADATA_MAX_KEYS = 20;
export const METADATA_KEY_MAX = 40;
export const METADATA_VALUE_MAX = 500;

export type Metadata = Record<string, string>;

/** A PATCH: keys to set, keys to remove ("" values). */
export interface MetadataPatch {
  set: Metadata;
  remove: string[];
}

/**
 * Why a key is refused, or null. Brackets are refused so every key can be written as metadata[key]
 * in a query string; `__proto__`, `constructor` and `prototype` because an object would take the
 * first as its prototype (the key vanished silently) and all three are prototype pollution.
 */
export function metadataKeyProblem(key: string): string | null {
  if (key.length === 0) return 'a key must not be empty';
  if (isReservedKey(key)) return reservedKeyProblem(key);
  if (key.length > METADATA_KEY_MAX) return `key "${key.slice(0, 50)}" is longer than ${METADATA_KEY_MAX} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[[\]\u0000-\u001f\u007f]/.test(key)) return `key "${key}" must not hold brackets or control characters`;
  return null;
}

const entry = z.object({ key: z.string(), value: z.string() }).strict();

/**
 * The entries a request sends ({key, value}, as the graph takes them) as one object, every key
 * checked; "" values are kept (a PATCH removes those keys; a creation ignores them).
 */
export const metadataEntriesRule = z.array(entry).transform((entries, ctx) => {
  const out: Metadata = {};
  for (const { key, value } of entries) {
    const problem =
      metadataKeyProblem(key) ??
      (value.length > METADATA_VALUE_MAX
        ? `the value of "${key}" is longer than ${METADATA_VALUE_MAX} characters`
        : Object.hasOwn(out, key)
          ? `key "${key}" is given twice`
          : null);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    out[key] = value;
  }
  return out;
});

/** The refusal of metadata past 20 keys. */
export const tooManyKeys = (count: number): string => `at most ${METADATA_MAX_KEYS} keys (this would make ${count})`;

/** Metadata given at creation: "" values mean no key; at most 20 keys. */
export const initialMetadataRule = metadataEntriesRule.transform((given, ctx) => {
  const kept = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== ''));
  if (Object.keys(kept).length > METADATA_MAX_KEYS) {
    ctx.addIssue({ code: 'custom', message: tooManyKeys(Object.keys(kept).length) });
    return z.NEVER;
  }
  return kept;
});

/** A PATCH's metadata: keys to set and keys to remove. The total after merging is checked where it is written. */
export const metadataPatchRule = metadataEntriesRule.transform((given, ctx): MetadataPatch => {
  const set = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== ''));
  if (Object.keys(set).length > METADATA_MAX_KEYS) {
    ctx.addIssue({ code: 'custom', message: tooManyKeys(Object.keys(set).length) });
    return z.NEVER;
  }
  return { set, remove: Object.keys(given).filter((key) => given[key] === '') };
});

/** The request of updatePaymentSessionMetadata and its kin. */
export const updateMetadataRules = z.object({ metadata: metadataPatchRule }).strict();

/** A list filter on one key=value (the value must be one a key can hold: 1-500 characters). */
export const metadataFilterRule = z
  .object({ key: z.string(), value: z.string() })
  .strict()
  .superRefine(({ key, value }, ctx) => {
    const problem =
      metadataKeyProblem(key) ??
      (value.length === 0 || value.length > METADATA_VALUE_MAX
        ? `the value must be 1 to ${METADATA_VALUE_MAX} characters`
        : null);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [] });
  });
