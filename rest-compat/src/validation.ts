import type { z } from 'zod';
import { GatewayError } from '@gateway/kernel';

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

/**
 * Validates one part of a request (path parameters, query or body). The first problem becomes a
 * 400 VALIDATION_ERROR whose detail names the field; unknown fields are reported before anything
 * else because a misspelt field is the likeliest mistake.
 */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'path',
): z.output<S> {
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
