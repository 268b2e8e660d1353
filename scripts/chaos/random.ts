import { env } from './settings';

let seed = env('CHAOS_SEED', Date.now() % 1_000_000);
/** The run's seed (printed first): CHAOS_SEED=<it> replays the same draws. */
export const SEED = seed;
/** A small deterministic generator (mulberry32) so a failing run can be replayed with its seed. */
export function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
export const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
export const between = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
