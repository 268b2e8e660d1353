/**
 * OpenAPI's deepObject query style, one level: `?metadata[order_id]=42` becomes
 * `{ metadata: { order_id: '42' } }`. The query parser keeps the brackets in the parameter's name,
 * so a route's schema could not name it otherwise. A name that is not `field[key]` stays as sent
 * (a strict schema then refuses it by name); so does one whose field was also sent bare.
 */
export function foldDeepObjects(query: Record<string, unknown>): Record<string, unknown> {
  // Most queries name no deepObject parameter: handed on as they are, nothing to fold.
  let brackets = false;
  for (const name in query) if (name.includes('[')) brackets = true;
  if (!brackets) return query;
  const out: Record<string, unknown> = {};
  const folded = new Set<string>();
  for (const [name, value] of Object.entries(query)) {
    const match = /^([a-z][a-z0-9_]*)\[([^[\]]*)\]$/.exec(name);
    const field = match?.[1];
    if (!match || !field || (field in out && !folded.has(field))) {
      out[name] = value;
      continue;
    }
    folded.add(field);
    out[field] = { ...(out[field] as Record<string, unknown> | undefined), [match[2]!]: value };
  }
  return out;
}
