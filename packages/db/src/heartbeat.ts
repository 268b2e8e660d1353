import type { Knex } from '@mikro-orm/knex';
import { rawQuery } from './direct-query';

/**
 * One statement per tick for all the periodic checks of a process (issue 53: jobs sleep when
 * idle): each job that must look at the database on a clock (a relay renewing or asking for its
 * lease, a recovery asking whether a lease ran out) adds its part — common table expressions,
 * which may write, and columns — and the heartbeat sends them together, one round trip, then
 * hands each part its columns. A job does its real work only when its columns say there is some.
 */
export interface HeartbeatPart {
  /** How often this part wants to be asked (the tick is the shortest of the parts'; a part sits out ticks that come sooner). */
  everyMs: number;
  /**
   * This tick's SQL, its names prefixed with `prefix` (unique per part); undefined to sit this tick
   * out (busy). `?` bindings in text order: the CTEs' first (`cteBindings`), then the columns'.
   */
  sql(
    prefix: string,
  ): { ctes: string[]; cteBindings: unknown[]; columns: string[]; columnBindings: unknown[] } | undefined;
  /**
   * Parts with the same key write the same row (a lease upsert), which PostgreSQL refuses twice in
   * one statement: they go in statements of their own, one each, that tick. Two relays of one
   * schema share a pool only where two platforms run in one process (tests); elsewhere every tick
   * stays one statement.
   */
  writesRow?: string;
  /** The row's columns (the prefix taken off their names); called with none when the statement failed. */
  done(columns: Record<string, unknown> | undefined, error?: unknown): void;
}

export interface Heartbeat {
  join(part: HeartbeatPart): () => void;
}

const heartbeats = new WeakMap<object, Heartbeat>();
const TICK_SLACK_MS = 20;

/** The process's heartbeat on the pool `knex`, made on first use. */
export function heartbeatOf(knex: Knex): Heartbeat {
  let heartbeat = heartbeats.get(knex);
  if (!heartbeat) heartbeats.set(knex, (heartbeat = startHeartbeat(knex)));
  return heartbeat;
}

function startHeartbeat(knex: Knex): Heartbeat {
  /** Each part with its prefix, fixed while it takes part: the statement's text stays the same tick after tick. */
  const parts = new Map<HeartbeatPart, string>();
  /** When each part last took part. */
  const lastIn = new Map<HeartbeatPart, number>();
  let timer: NodeJS.Timeout | undefined;
  let beating: Promise<void> | undefined;
  let serial = 0;
  const tickMs = () => Math.min(...[...parts.keys()].map((part) => part.everyMs));

  const schedule = () => {
    clearTimeout(timer);
    if (parts.size === 0) return;
    timer = setTimeout(() => void beat(), tickMs());
    timer.unref();
  };

  type Taken = { part: HeartbeatPart; prefix: string; sql: NonNullable<ReturnType<HeartbeatPart['sql']>> };

  /** One statement of the parts' CTEs and columns; the row's columns by part (prefixes taken off). */
  const send = async (group: Taken[]): Promise<Array<Record<string, unknown>>> => {
    const ctes = group.flatMap(({ sql }) => sql.ctes);
    const columns = group.flatMap(({ sql }) => sql.columns);
    const bindings = [
      ...group.flatMap(({ sql }) => sql.cteBindings),
      ...group.flatMap(({ sql }) => sql.columnBindings),
    ];
    const text = `${ctes.length > 0 ? `with ${ctes.join(',\n')}\n` : ''}select ${columns.join(', ') || '1'}`;
    const { rows } = await rawQuery(knex, text, bindings);
    const row = (rows as Array<Record<string, unknown>>)[0] ?? {};
    return group.map(({ prefix }) =>
      Object.fromEntries(
        Object.entries(row)
          .filter(([name]) => name.startsWith(prefix))
          .map(([name, value]) => [name.slice(prefix.length), value]),
      ),
    );
  };

  const tell = (taken: Taken, columns: Record<string, unknown> | undefined, error?: unknown) => {
    try {
      taken.part.done(columns, error);
    } catch {
      // A part's own trouble is its own.
    }
  };

  /** The parts in as few statements as their rows allow (HeartbeatPart.writesRow): one, unless two write one row. */
  const apart = (taking: Taken[]): Taken[][] => {
    const groups: Taken[][] = [];
    for (const taken of taking) {
      const key = taken.part.writesRow;
      const room = key === undefined ? groups[0] : groups.find((group) => group.every((t) => t.part.writesRow !== key));
      if (room) room.push(taken);
      else groups.push([taken]);
    }
    return groups;
  };

  const sendGroup = async (group: Taken[]): Promise<void> => {
    try {
      const answers = await send(group);
      group.forEach((taken, i) => tell(taken, answers[i]));
    } catch (error) {
      if (group.length === 1) return tell(group[0]!, undefined, error);
      // One part's trouble must not silence the others': each alone.
      for (const taken of group) {
        try {
          tell(taken, (await send([taken]))[0]);
        } catch (alone) {
          tell(taken, undefined, alone);
        }
      }
    }
  };

  const beat = async (): Promise<void> => {
    if (beating) return;
    const taking: Taken[] = [];
    const now = Date.now();
    for (const [part, prefix] of parts) {
      // A little early is in time: a tick comes when its timer fires, never before.
      if (now - (lastIn.get(part) ?? 0) < part.everyMs - TICK_SLACK_MS) continue;
      const sql = part.sql(prefix);
      if (!sql) continue;
      taking.push({ part, prefix, sql });
      lastIn.set(part, now);
    }
    if (taking.length > 0) {
      beating = (async () => {
        for (const group of apart(taking)) await sendGroup(group);
      })();
      await beating;
      beating = undefined;
    }
    schedule();
  };

  return {
    join(part) {
      parts.set(part, `p${(serial += 1)}_`);
      if (!beating) schedule();
      return () => {
        parts.delete(part);
        lastIn.delete(part);
        if (parts.size === 0) clearTimeout(timer);
      };
    },
  };
}
