/**
 * One row of a lifecycle's transition table (CONVENTIONS "State"): the move from a status (null:
 * the creation) on a trigger, to a status, and the event written with it (null: nothing to tell).
 */
export interface Transition<S extends string, T extends string, E extends string | null> {
  from: S | null;
  trigger: T;
  to: S;
  event: E;
}

/**
 * The lookup every writer of a lifecycle uses: the row of `from` and `trigger`, or undefined (the
 * move is refused). A table with two rows for one move is a defect, refused when it is built.
 */
export function transitionLookup<R extends Transition<string, string, string | null>>(
  rows: readonly R[],
): (from: R['from'], trigger: R['trigger']) => R | undefined {
  const byMove = new Map<string, R>();
  for (const row of rows) {
    const key = `${row.from}→${row.trigger}`;
    if (byMove.has(key)) throw new Error(`transition table: two rows move ${row.from} on ${row.trigger}`);
    byMove.set(key, row);
  }
  return (from, trigger) => byMove.get(`${from}→${trigger}`);
}
