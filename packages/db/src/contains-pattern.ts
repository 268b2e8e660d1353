/**
 * An ILIKE pattern matching text that contains `term` as typed: its `%`, `_` and `\` match
 * themselves, not any text. Undefined for a blank term (no filter). For operators' searches.
 */
export function containsPattern(term: string | null | undefined): string | undefined {
  const trimmed = term?.trim();
  return trimmed ? `%${trimmed.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
}
