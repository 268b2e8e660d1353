/**
 * `compute` remembered for at least the `max` keys used last, and at most twice as many: pure work
 * that every request repeats on inputs from a bounded set (a route's document, a field name), with
 * the memory bounded whatever a client sends. Two generations of plain maps (as quick-lru keeps
 * them), not an LRU list: a hit is one Map lookup, with nothing to reorder, and this runs several
 * times on every request's path. When the newer generation is full it becomes the older one and the
 * older is dropped; a key found in the older one moves to the newer.
 */
export function memoized<V>(max: number, compute: (key: string) => V): (key: string) => V {
  let recent = new Map<string, V>();
  let older = new Map<string, V>();
  const remember = (key: string, value: V) => {
    if (recent.size >= max) {
      older = recent;
      recent = new Map();
    }
    recent.set(key, value);
  };
  return (key) => {
    // has() as well as get(): a computed undefined is an answer too.
    const value = recent.get(key);
    if (value !== undefined || recent.has(key)) return value as V;
    if (older.has(key)) {
      const kept = older.get(key) as V;
      older.delete(key);
      remember(key, kept);
      return kept;
    }
    const computed = compute(key);
    remember(key, computed);
    return computed;
  };
}
