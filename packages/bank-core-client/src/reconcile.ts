import type { Currency } from '@gateway/kernel';
import type { CoreStatement, CoreTransaction } from './types';

/**
 * What an account's statement says about one movement the gateway asked for:
 * - booked: a line of that direction carries the reference (as reference, as transaction id, or
 *   as a whole token of its description)
 * - absent: no such line, and no line that could be it without saying so
 * - undecidable: no line carries the reference, but one of the same amount, currency and
 *   direction carries no reference information at all (the core may have dropped it)
 */
export type BookingEvidence = 'booked' | 'absent' | 'undecidable';

export interface WantedBooking {
  reference: string;
  /** Minor units, positive. */
  amount: number;
  currency: Currency;
  direction: 'CREDIT' | 'DEBIT';
}

/**
 * A reference-like token: a prefixed id as the gateway issues them (`ops_…`, `stl_…`, `chg_…`).
 * A description holding one names some movement, so a line whose description holds one but not
 * the wanted reference is another movement, not a silent candidate.
 */
const ID_TOKEN = /(?<![\w])[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9]{4,}/;

/** Pure: the engine's reconciliation after an unknown outcome (the statement is read with listTransactions). */
export function findBooking(statement: CoreStatement, wanted: WantedBooking): BookingEvidence {
  const ofDirection = statement.transactions.filter((line) => line.creditDebitIndicator === wanted.direction);
  const names = wholeToken(wanted.reference);
  if (
    ofDirection.some(
      (line) =>
        line.reference === wanted.reference || line.transactionId === wanted.reference || names.test(line.description),
    )
  ) {
    return 'booked';
  }
  return ofDirection.some((line) => couldBeItSilently(line, wanted)) ? 'undecidable' : 'absent';
}

function couldBeItSilently(line: CoreTransaction, wanted: WantedBooking): boolean {
  return (
    line.amount === wanted.amount &&
    line.currency === wanted.currency &&
    line.reference === null &&
    line.transactionId === null &&
    !ID_TOKEN.test(line.description)
  );
}

/** The reference as a whole token: not inside a longer word, and not followed by ':' (`ops_1:reversal` is another movement). */
function wholeToken(reference: string): RegExp {
  const escaped = reference.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w])${escaped}(?![\\w:])`);
}
