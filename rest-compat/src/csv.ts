/**
 * OWASP's CSV injection: merchant-given text (a reference, a refund's reason) lands in reports
 * that a merchant's staff open in a spreadsheet, which runs a cell starting with = + - @ (Excel
 * takes their full-width forms alike) or with a tab or line break hiding one. A spreadsheet that
 * splits on another separator than ours (`;` in much of Europe, tabs when pasted) starts a cell
 * after it too: `x;=2+5;` opens as `x | =2+5`. So an apostrophe (which makes the rest text) goes
 * at the cell's start before a tab or line break, and before = + - @ at the start and right
 * after every , ; tab or line break inside the cell.
 */
const FORMULA_AT = /^(?=[\t\r\n])|(?<=^|[,;\t\r\n])(?=[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/g;
/** Anything a spreadsheet splits on, and the quote itself: such a cell is quoted, whatever the separator. */
const NEEDS_QUOTES = /[",;\t\r\n]/;

/** Text with an apostrophe before every formula it could start (csvCell's rule, without the quoting). */
export const withoutFormulas = (text: string): string => text.replace(FORMULA_AT, "'");

/**
 * One CSV cell (RFC 4180): empty for null; text guarded against formulas (withoutFormulas) and
 * quoted when it holds a separator, quote or line break. Numbers and booleans are the gateway's
 * own (amounts in minor units, livemode), never guarded: a refund's -500 stays a number a
 * spreadsheet sums.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? withoutFormulas(value) : String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 says. */
export const csvRow = (cells: ReadonlyArray<string | number | boolean | null | undefined>): string =>
  `${cells.map(csvCell).join(',')}\r\n`;
