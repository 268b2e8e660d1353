import type { z } from 'zod';
import { GatewayError, isReservedKey, reservedKeyProblem } from '@gateway/kernel';

/** A zod issue path as the client wrote it: `redirect_uris[0]`, `capabilities.ob_enabled`. */
function fieldName(path: readonly PropertyKey[], where: string): string {
  const name = path.reduce<string>(
    (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)),
    '',
  );
  return name || where;
}

/** Missing fields say "required" instead of zod's "expected string, received undefined". */
const requiredMessage = (issue: { code: string; input?: unknown }) =>
  issue.code === 'invalid_type' && issue.input === undefined ? 'required' : undefined;

type Where = 'body' | 'query' | 'path';

/**
 * The refusal of the first reserved key (`__proto__`, `constructor`, `prototype`) anywhere in a
 * parsed request part, naming the object it is in (`metadata: key "__proto__" is reserved …`).
 * zod's records drop an own `__proto__` silently, so it is looked for before them. Iterative: a
 * body nested thousands deep must not exhaust the stack.
 */
export function reservedKeyRefusal(value: unknown, where: Where): GatewayError | undefined {
  const pending: Array<{ value: unknown; path: PropertyKey[] }> = [{ value, path: [] }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const entries = Object.entries(next.value);
    for (const [key] of entries)
      if (!Array.isArray(next.value) && isReservedKey(key))
        return new GatewayError('VALIDATION_ERROR', `${fieldName(next.path, where)}: ${reservedKeyProblem(key)}`);
    // Pushed last to first, so the first field's children are looked at first.
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [key, child] = entries[i]!;
      pending.push({ value: child, path: [...next.path, Array.isArray(next.value) ? Number(key) : key] });
    }
  }
  return undefined;
}

/**
 * What fastify's JSON parser refused as malformed: a `__proto__` key (or `constructor.prototype`)
 * it will not build. The text is read again by JSON.parse, which makes such a key an own property
 * and never a prototype, to name the key as any other refused field is named; undefined when the
 * body is malformed indeed.
 */
export function reservedKeyInJson(text: string): GatewayError | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return reservedKeyRefusal(parsed, 'body');
}

/**
 * Validates one part of a request (path parameters, query or body). The first problem becomes a
 * 400 VALIDATION_ERROR whose detail names the field; a reserved key and unknown fields are
 * reported before anything else (a misspelt field is the likeliest mistake).
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where: Where): z.output<S> {
  const reserved = reservedKeyRefusal(value, where);
  if (reserved) throw reserved;
  const result = schema.safeParse(value, { error: requiredMessage });
  if (result.success) return result.data;
  const issues = result.error.issues;
  const unknown = issues.find((issue) => issue.code === 'unrecognized_keys');
  if (unknown && unknown.code === 'unrecognized_keys') {
    const names = unknown.keys.map((key) => fieldName([...unknown.path, key], where));
    const noun = where === 'query' ? 'query parameter' : 'field';
    throw new GatewayError('VALIDATION_ERROR', `${names.join(', ')}: unknown ${noun}${names.length > 1 ? 's' : ''}`);
  }
  const first = issues[0]!;
  throw new GatewayError(
    'VALIDATION_ERROR',
    `${fieldName(first.path, where)}: ${first.message.replace(/^Invalid input: /, '')}`,
  );
}
