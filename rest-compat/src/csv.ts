/**
 * A cell a spreadsheet would read as a formula (=, +, -, @, or a tab or carriage return that
 * hides one): OWASP's CSV injection. Merchant-given text (a reference, a refund's reason) lands in
 * reports a merchant's staff open in Excel.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell (RFC 4180): empty for null, text that could start a formula behind an apostrophe
 * (numbers and booleans are ours, never guarded), quoted when it holds a comma, quote or line break.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 says. */
export const csvRow = (cells: ReadonlyArray<string | number | boolean | null | undefined>): string =>
  `${cells.map(csvCell).join(',')}\r\n`;
