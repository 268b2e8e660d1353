/**
 * Object keys no client may send, on REST or GraphQL (issue 46). `__proto__` is the prototype
 * when assigned, so such a metadata key vanished instead of being stored or refused, and fastify's
 * JSON parser took it for malformed JSON; `constructor` and `prototype` are the other two keys of
 * prototype pollution. Refused with 400 VALIDATION_ERROR naming the key, never dropped.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const isReservedKey = (key: string): boolean => RESERVED_KEYS.has(key);

/** The refusal's wording, after the field it is in (`metadata: key "__proto__" is reserved …`). */
export const reservedKeyProblem = (key: string): string =>
  `key "${key}" is reserved (__proto__, constructor and prototype are never accepted)`;
