import type { Database } from './database';
import { heartbeatOf, type HeartbeatPart } from './heartbeat';
import { openTestDatabase } from './testing';

/** Issue 53: the periodic checks of a process share one statement a tick (heartbeat.ts). */
describe('heartbeat', () => {
  let db: Database;
  const statements: string[] = [];

  beforeAll(async () => {
    db = await openTestDatabase();
    db.knex.on('query', (query: { sql: string }) => void statements.push(query.sql));
  });
  afterAll(async () => {
    await db.close();
  });

  const part = (
    name: string,
    column: string,
    answers: Array<Record<string, unknown> | undefined>,
    options: { busy?: () => boolean; everyMs?: number } = {},
  ): HeartbeatPart => ({
    everyMs: options.everyMs ?? 100,
    sql: (p) =>
      options.busy?.()
        ? undefined
        : {
            ctes: [`${p}${name} as (select ?::integer as n)`],
            cteBindings: [7],
            columns: [`(select n from ${p}${name}) + ? as ${p}${column}`],
            columnBindings: [1],
          },
    done: (columns) => void answers.push(columns),
  });

  it('sends one statement a tick for every part, each answered its own columns', async () => {
    const a: Array<Record<string, unknown> | undefined> = [];
    const b: Array<Record<string, unknown> | undefined> = [];
    const heartbeat = heartbeatOf(db.knex);
    statements.length = 0;
    const leaveA = heartbeat.join(part('a', 'due', a));
    const leaveB = heartbeat.join(part('b', 'waiting', b, { everyMs: 300 }));
    await new Promise((resolve) => setTimeout(resolve, 350));
    leaveA();
    leaveB();
    await new Promise((resolve) => setTimeout(resolve, 150)); // the statement in flight answers
    // Every 100 ms (the shortest part's), one statement; the 300 ms part in the first and every third or so.
    expect(statements.length).toBeGreaterThanOrEqual(2);
    expect(statements.length).toBeLessThanOrEqual(4);
    expect(statements.every((text) => text.includes('_a as'))).toBe(true);
    expect(statements[0]).toContain('_b as');
    expect(a[0]).toEqual({ due: 8 });
    expect(b[0]).toEqual({ waiting: 8 });
    expect(a).toHaveLength(statements.length);
    expect(b.length).toBeLessThan(a.length);
    expect(b).toHaveLength(statements.filter((text) => text.includes('_b as')).length);
  });

  it('leaves a busy part out of the tick, and tells every part when the statement failed', async () => {
    const a: Array<Record<string, unknown> | undefined> = [];
    const b: Array<Record<string, unknown> | undefined> = [];
    const heartbeat = heartbeatOf(db.knex);
    let broken = true;
    const failing: HeartbeatPart = {
      ...part('a', 'due', a),
      sql: (p) => ({
        ctes: [],
        cteBindings: [],
        columns: [broken ? `no_such_column as ${p}due` : `1 as ${p}due`],
        columnBindings: [],
      }),
    };
    const leaveA = heartbeat.join(failing);
    const leaveB = heartbeat.join(part('b', 'waiting', b, { busy: () => true }));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(a[0]).toBeUndefined();
    expect(a.length).toBeGreaterThanOrEqual(1);
    expect(b).toEqual([]);
    broken = false;
    await new Promise((resolve) => setTimeout(resolve, 250));
    leaveA();
    leaveB();
    expect(a.at(-1)).toEqual({ due: 1 });
  });

  it("answers the other parts when one part's SQL fails: each is then sent alone", async () => {
    const broken: Array<Record<string, unknown> | undefined> = [];
    const healthy: Array<Record<string, unknown> | undefined> = [];
    const heartbeat = heartbeatOf(db.knex);
    const leaveBroken = heartbeat.join({
      ...part('x', 'due', broken),
      sql: (p) => ({ ctes: [], cteBindings: [], columns: [`no_such_column as ${p}due`], columnBindings: [] }),
    });
    const leaveHealthy = heartbeat.join(part('y', 'waiting', healthy));
    await new Promise((resolve) => setTimeout(resolve, 250));
    leaveBroken();
    leaveHealthy();
    expect(broken.length).toBeGreaterThanOrEqual(1);
    expect(broken.every((columns) => columns === undefined)).toBe(true);
    expect(healthy.length).toBeGreaterThanOrEqual(1);
    expect(healthy.every((columns) => columns?.waiting === 8)).toBe(true);
  });

  it('puts two parts that upsert one row in statements of their own, so no tick fails and none is sent alone', async () => {
    await db.knex.raw('create table if not exists heartbeat_lease (name text primary key, token text)');
    const failures: unknown[] = [];
    const answered = new Map<string, Array<Record<string, unknown> | undefined>>();
    const upserting = (name: string): HeartbeatPart => ({
      everyMs: 100,
      writesRow: 'heartbeat_lease',
      sql: (p) => ({
        ctes: [
          `${p}lease as (insert into heartbeat_lease as l (name, token) values ('relay', ?)
            on conflict (name) do update set token = excluded.token returning l.token)`,
        ],
        cteBindings: [name],
        columns: [`(select token from ${p}lease) as ${p}token`],
        columnBindings: [],
      }),
      done: (columns, error) => {
        if (error) failures.push(error);
        answered.set(name, [...(answered.get(name) ?? []), columns]);
      },
    });
    const other: Array<Record<string, unknown> | undefined> = [];
    const heartbeat = heartbeatOf(db.knex);
    const leave = [
      heartbeat.join(upserting('first')),
      heartbeat.join(upserting('second')),
      heartbeat.join(part('c', 'due', other)),
    ];
    await new Promise((resolve) => setTimeout(resolve, 120));
    statements.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const leaving of leave) leaving();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(failures).toEqual([]);
    expect(answered.get('first')!.every((columns) => columns?.token === 'first')).toBe(true);
    expect(answered.get('second')!.every((columns) => columns?.token === 'second')).toBe(true);
    expect(other.every((columns) => columns?.due === 8)).toBe(true);
    // Per tick: the first upsert with the other part, the second alone; never one per part. From
    // the first tick seen whole: the capture began at a moment a tick may have been between its two.
    const whole = statements.slice(statements.findIndex((text) => text.includes('_c as')));
    const ticks = whole.filter((text) => text.includes('_c as')).length;
    expect(ticks).toBeGreaterThanOrEqual(2);
    expect(whole.filter((text) => text.includes('heartbeat_lease'))).toHaveLength(2 * ticks);
    expect(whole).toHaveLength(2 * ticks);
  });
});
