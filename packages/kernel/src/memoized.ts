import { LRUCache } from 'lru-cache';

/**
 * `compute` remembered for the `max` keys used last (lru-cache): pure work that every request
 * repeats on inputs from a bounded set (a route's document, a field name), with the memory
 * bounded whatever a client sends.
 */
export function memoized<V>(max: number, compute: (key: string) => V): (key: string) => V {
  // Boxed: lru-cache keeps no null or undefined values, and a computed null is an answer too.
  const known = new LRUCache<string, { value: V }>({ max });
  return (key) => {
    let hit = known.get(key);
    if (!hit) {
      hit = { value: compute(key) };
      known.set(key, hit);
    }
    return hit.value;
  };
}
