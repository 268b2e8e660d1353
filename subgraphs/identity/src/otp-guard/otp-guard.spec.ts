import { openTestDatabase } from '@gateway/db/testing';
import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { sha256Hex, type Principal } from '@gateway/kernel';
import { IDENTITY_SCHEMA, start } from '../service';
import { migrations } from '../migrations';
import { OtpGuardEntity } from './otp-guard.entity';
import { OTP_GUARD_CUSTOMER_MAX_REFUSALS, OTP_GUARD_MAX_REFUSALS, OtpGuardService } from './otp-guard.service';

const TAKE = `mutation($bankHandle: String!, $customerRef: String!, $guess: String!, $client: String!) { takeOtpAttempt(bankHandle: $bankHandle, customerRef: $customerRef, guess: $guess, client: $client) { attemptId retryAfterSeconds } }`;
const SETTLE = `mutation($settlements: [OtpSettlementInput!]!) { settleOtpAttempts(settlements: $settlements) }`;
const TAKE_SETTLING = `mutation($bankHandle: String!, $customerRef: String!, $guess: String!, $client: String!, $settle: [OtpSettlementInput!]) {
  takeOtpAttempt(bankHandle: $bankHandle, customerRef: $customerRef, guess: $guess, client: $client, settle: $settle) { attemptId retryAfterSeconds settled }
}`;
const payments: Principal = { kind: 'service', id: 'payments' };
/** Row locks held by another transaction can only be tested on a server (PGlite is one session). */
const onPostgres = process.env.DATABASE_URL ? it : it.skip;
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** What `work` answers, or `late` when it takes longer than `ms` (the timer cleared either way). */
async function within<T>(ms: number, work: Promise<T>, late: string): Promise<T | string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<string>((resolve) => (timer = setTimeout(() => resolve(late), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

describe('identity subgraph: OTP checks per customer', () => {
  let db: Database;
  let service: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  /** For the service under a clock of the test's own. */
  let orm: ServiceOrm;
  let guesses = 0;
  const take = (
    customerRef: string,
    guess = sha256Hex(`guess-${(guesses += 1)}`),
    principal: Principal = payments,
    from = '203.0.113.1',
  ) =>
    client
      .execute(TAKE, { bankHandle: 'alpha', customerRef, guess, client: from }, principal)
      .then((data) => data.takeOtpAttempt as { attemptId: string | null; retryAfterSeconds: number | null });
  const settle = (customerRef: string, attemptId: string) =>
    client.execute(SETTLE, { settlements: [{ bankHandle: 'alpha', customerRef, attemptId }] }, payments);
  /** A take for customer `customerRef` of alpha carrying give-backs of alpha's customers. */
  const takeSettling = (customerRef: string, settle: Array<{ customerRef: string; attemptId: string | null }>) =>
    client
      .execute(
        TAKE_SETTLING,
        {
          bankHandle: 'alpha',
          customerRef,
          guess: sha256Hex(`rides-${(guesses += 1)}`),
          client: '203.0.113.1',
          settle: settle.map((given) => ({ bankHandle: 'alpha', ...given })),
        },
        payments,
      )
      .then(
        (data) =>
          data.takeOtpAttempt as { attemptId: string | null; retryAfterSeconds: number | null; settled: string[] },
      );
  /** The ids of the checks a customer of alpha holds. */
  const heldIds = async (customerRef: string) => {
    const [row] = await orm.em
      .fork()
      .execute<Array<{ attempts: Array<{ id: string }> }>>(
        'select attempts from identity.otp_guards where bank_handle = ? and customer_ref = ?',
        ['alpha', customerRef],
      );
    return row!.attempts.map((entry) => entry.id);
  };
  /** The SQL statements the pool sent while `work` ran (this file's service is alone on its database). */
  const statementsDuring = async (work: () => Promise<unknown>) => {
    const sent: string[] = [];
    const listen = (query: { sql: string }) => sent.push(query.sql);
    db.knex.on('query', listen);
    try {
      await work();
    } finally {
      db.knex.off('query', listen);
    }
    return sent;
  };

  beforeAll(async () => {
    db = await openTestDatabase();
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
    orm = await openServiceOrm(db, { schema: IDENTITY_SCHEMA, entities: [OtpGuardEntity], migrations });
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  it('takes checks until the client holds the maximum for the customer, then refuses with the seconds to wait; a check given back frees its place', async () => {
    const taken = [];
    for (let i = 0; i < OTP_GUARD_MAX_REFUSALS; i += 1) taken.push(await take('cust-1'));
    expect(taken.every((attempt) => attempt.attemptId?.startsWith('otp_') && attempt.retryAfterSeconds === null)).toBe(
      true,
    );
    const refused = await take('cust-1');
    expect(refused.attemptId).toBeNull();
    expect(refused.retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect((await take('cust-2')).attemptId).toMatch(/^otp_/);
    // Someone else's guesses never lock the customer out: from another address their OTP is checked.
    expect((await take('cust-1', undefined, payments, '198.51.100.9')).attemptId).toMatch(/^otp_/);

    await settle('cust-1', taken[0]!.attemptId!);
    expect((await take('cust-1')).attemptId).toMatch(/^otp_/);
    expect((await take('cust-1')).attemptId).toBeNull();
    // The customer's key finds the check: the same id given back for another customer frees nothing.
    await settle('cust-2', taken[1]!.attemptId!);
    expect((await take('cust-1')).attemptId).toBeNull();
  });

  it('takes a check, and gives one back, in one SQL statement each (no transaction, no lock statement)', async () => {
    let attemptId: string | null = null;
    const first = await statementsDuring(async () => ({ attemptId } = await take('cust-6')));
    const again = await statementsDuring(() => take('cust-6'));
    expect([first, again].map((sent) => sent.length)).toEqual([1, 1]);
    expect(again[0]).toMatch(/^insert into identity\.otp_guards .* on conflict/s);
    const given = await statementsDuring(() => settle('cust-6', attemptId!));
    expect(given).toHaveLength(1);
    expect(given[0]).toMatch(/^update identity\.otp_guards /);
  });

  it("gives back the checks riding on a take in the take's statement, the customer's own and another customer's, and answers which", async () => {
    const own = await take('cust-20');
    const other = await take('cust-21');
    let answer: Awaited<ReturnType<typeof takeSettling>> | undefined;
    const rideOn = (settle: Array<{ customerRef: string; attemptId: string | null }>) =>
      statementsDuring(async () => (answer = await takeSettling('cust-20', settle)));
    const alone = await rideOn([{ customerRef: 'cust-20', attemptId: own.attemptId }]);
    expect(alone).toHaveLength(1);
    expect(answer!.settled).toEqual([own.attemptId]);
    expect(await heldIds('cust-20')).not.toContain(own.attemptId);
    expect(await heldIds('cust-20')).toHaveLength(1); // the new check only
    const mine = answer!.attemptId!;
    const both = await rideOn([
      { customerRef: 'cust-21', attemptId: other.attemptId },
      { customerRef: 'cust-20', attemptId: mine },
    ]);
    expect(both).toHaveLength(1);
    expect(both[0]).toMatch(/^with taken as \(insert into identity\.otp_guards .*for update of locked skip locked/s);
    expect(answer!.attemptId).toMatch(/^otp_/);
    expect(answer!.settled).toEqual([other.attemptId, mine]);
    expect(await heldIds('cust-21')).toEqual([]);
    expect(await heldIds('cust-20')).toEqual([answer!.attemptId]);
    // A customer with no checks at all has nothing to give back: answered as given back, never sent again.
    expect((await takeSettling('cust-20', [{ customerRef: 'cust-nobody', attemptId: 'otp_x' }])).settled).toEqual([
      'otp_x',
    ]);
  });

  onPostgres(
    "skips, without waiting, another customer's row a transaction holds, and leaves its give-back out of the answer, to be sent again",
    async () => {
      const other = await take('cust-30');
      const carried = [{ customerRef: 'cust-30', attemptId: other.attemptId }];
      const holder = await db.knex.transaction();
      try {
        await holder.raw(
          "select 1 from identity.otp_guards where bank_handle = 'alpha' and customer_ref = 'cust-30' for update",
        );
        const answer = await within(5_000, takeSettling('cust-31', carried), 'waited');
        expect(answer).toEqual({ attemptId: expect.stringMatching(/^otp_/), retryAfterSeconds: null, settled: [] });
      } finally {
        await holder.commit();
      }
      expect(await heldIds('cust-30')).toEqual([other.attemptId]);
      // Sent again on the next take, once nobody holds the row: given back then.
      expect((await takeSettling('cust-31', carried)).settled).toEqual([other.attemptId]);
      expect(await heldIds('cust-30')).toEqual([]);
    },
  );

  it("lets two concurrent takes carrying each other's give-backs both finish (no deadlock), and loses none of them", async () => {
    const a = await take('cust-40');
    const b = await take('cust-41');
    // On PostgreSQL both takes wait behind a transaction holding both rows, so that they run at the
    // same moment once it ends (each holding its own row when it reaches the other's).
    const holder = db.embedded ? undefined : await db.knex.transaction();
    await holder?.raw(
      "select 1 from identity.otp_guards where bank_handle = 'alpha' and customer_ref in ('cust-40', 'cust-41') for update",
    );
    const both = Promise.all([
      takeSettling('cust-40', [{ customerRef: 'cust-41', attemptId: b.attemptId }]),
      takeSettling('cust-41', [{ customerRef: 'cust-40', attemptId: a.attemptId }]),
    ]);
    try {
      const deadline = Date.now() + 10_000;
      while (holder && Date.now() < deadline) {
        const [{ waiting }] = (
          await db.knex.raw(
            `select count(*)::int as waiting from pg_stat_activity
             where datname = current_database() and wait_event_type = 'Lock' and query like 'with taken as%'`,
          )
        ).rows;
        if (waiting === 2) break;
        await later(10);
      }
    } finally {
      await holder?.commit();
    }
    const answers = await within(10_000, both, 'waited on each other');
    expect(answers).toEqual([
      expect.objectContaining({ attemptId: expect.stringMatching(/^otp_/) }),
      expect.objectContaining({ attemptId: expect.stringMatching(/^otp_/) }),
    ]);
    // Each give-back was applied by its take, or left out of its answer (skipped) and sent again.
    const [forB, forA] = answers as Array<{ settled: string[] }>;
    if (forA!.settled.length === 0) await settle('cust-40', a.attemptId!);
    if (forB!.settled.length === 0) await settle('cust-41', b.attemptId!);
    expect(await heldIds('cust-40')).not.toContain(a.attemptId);
    expect(await heldIds('cust-41')).not.toContain(b.attemptId);
    expect([await heldIds('cust-40'), await heldIds('cust-41')].map((ids) => ids.length)).toEqual([1, 1]);
  });

  it('gives back checks of several customers in one statement, or riding on the next take', async () => {
    const held = async (customerRef: string) => {
      const [row] = await orm.em
        .fork()
        .execute<Array<{ attempts: unknown[] }>>(
          'select attempts from identity.otp_guards where bank_handle = ? and customer_ref = ?',
          ['alpha', customerRef],
        );
      return row!.attempts.length;
    };
    const a = [await take('cust-10'), await take('cust-10')];
    const b = await take('cust-11');
    const settlements = [
      ...a.map((attempt) => ({ bankHandle: 'alpha', customerRef: 'cust-10', attemptId: attempt.attemptId })),
      { bankHandle: 'alpha', customerRef: 'cust-11', attemptId: b.attemptId },
    ];
    const sent = await statementsDuring(() => client.execute(SETTLE, { settlements }, payments));
    expect(sent).toHaveLength(1);
    expect([await held('cust-10'), await held('cust-11')]).toEqual([0, 0]);

    // Riding on a take: given back first, so a customer at the limit is let through by their own accepted checks.
    const full = [];
    for (let i = 0; i < OTP_GUARD_MAX_REFUSALS; i += 1) full.push(await take('cust-12'));
    expect((await take('cust-12')).attemptId).toBeNull();
    const settle = [{ bankHandle: 'alpha', customerRef: 'cust-12', attemptId: full[0]!.attemptId }];
    const rode = await client.execute(
      TAKE_SETTLING,
      { bankHandle: 'alpha', customerRef: 'cust-12', guess: sha256Hex('rides'), client: '203.0.113.1', settle },
      payments,
    );
    expect((rode.takeOtpAttempt as { attemptId: string | null }).attemptId).toMatch(/^otp_/);
    expect(
      await client.errorCode(SETTLE, { settlements: Array.from({ length: 501 }, () => settle[0]) }, payments),
    ).toBe('VALIDATION_ERROR');
  });

  it("holds the customer back briefly once many clients' refused OTPs reach the customer's maximum, then lets them try again", async () => {
    let now = Date.parse('2026-12-02T10:00:00.000Z');
    const clocked = new OtpGuardService(() => new Date(now));
    const em = orm.em.fork();
    for (let i = 0; i < OTP_GUARD_CUSTOMER_MAX_REFUSALS; i += 1) {
      // Many addresses, a couple of guesses each: no client reaches its own maximum.
      expect(
        (await clocked.take(em, 'alpha', 'cust-9', sha256Hex(`spread-${i}`), `198.51.100.${Math.floor(i / 2)}`))
          .attemptId,
      ).toMatch(/^otp_/);
      now += 1_000;
    }
    // 10:00:30: the first of the 30 leaves the 5-minute window at 10:05:00.
    expect(await clocked.take(em, 'alpha', 'cust-9', sha256Hex('fresh'), '192.0.2.77')).toEqual({
      attemptId: null,
      retryAfterSeconds: 270,
    });
    // The window includes its start: a millisecond after 10:05:00 the first has left it.
    now += 270_001;
    expect((await clocked.take(em, 'alpha', 'cust-9', sha256Hex('fresh'), '192.0.2.77')).attemptId).toMatch(/^otp_/);
  });

  it('forgets checks that left the window and answers the wait until the oldest of the last MAX leaves it', async () => {
    let now = Date.parse('2026-12-01T10:00:00.000Z');
    const clocked = new OtpGuardService(() => new Date(now));
    const em = orm.em.fork();
    const guess = (n: number) => sha256Hex(`window-${n}`);
    const ids = [];
    for (let i = 0; i < OTP_GUARD_MAX_REFUSALS; i += 1) {
      ids.push((await clocked.take(em, 'alpha', 'cust-7', guess(i), '203.0.113.1')).attemptId);
      now += 60_000;
    }
    // Held: taken at 10:00 … 10:04; now 10:05. The first leaves the window at 10:15.
    expect(await clocked.take(em, 'alpha', 'cust-7', guess(99), '203.0.113.1')).toEqual({
      attemptId: null,
      retryAfterSeconds: 10 * 60,
    });
    now += 10 * 60_000 - 1;
    expect((await clocked.take(em, 'alpha', 'cust-7', guess(99), '203.0.113.1')).retryAfterSeconds).toBe(1);
    // At 10:15 the first check is still held (the window includes its start): its guess is the same check.
    now += 1;
    expect((await clocked.take(em, 'alpha', 'cust-7', guess(0), '203.0.113.1')).attemptId).toBe(ids[0]);
    // A millisecond later it left the window, and its guess is a new one.
    now += 1;
    const reopened = await clocked.take(em, 'alpha', 'cust-7', guess(0), '203.0.113.1');
    expect(reopened.attemptId).toMatch(/^otp_/);
    expect(reopened.attemptId).not.toBe(ids[0]);
    // The same guess is answered with its id only while it is held.
    expect((await clocked.take(em, 'alpha', 'cust-7', guess(1), '203.0.113.1')).attemptId).toBe(ids[1]);
    const [row] = await em.execute<Array<{ attempts: Array<{ id: string }> }>>(
      "select attempts from identity.otp_guards where bank_handle = 'alpha' and customer_ref = 'cust-7'",
    );
    expect(row!.attempts.map((check) => check.id)).toEqual([...ids.slice(1), reopened.attemptId]);
  });

  it('answers the same guess while it is held with the same check: a double submit is one guess', async () => {
    const guess = sha256Hex('same');
    const first = await take('cust-5', guess);
    expect(await take('cust-5', guess)).toEqual(first);
    for (let i = 0; i < OTP_GUARD_MAX_REFUSALS - 1; i += 1) expect((await take('cust-5')).attemptId).toMatch(/^otp_/);
    expect((await take('cust-5')).attemptId).toBeNull();
    expect(await take('cust-5', guess)).toEqual(first);
    expect(
      await client.errorCode(
        TAKE,
        { bankHandle: 'alpha', customerRef: 'cust-5', guess: '123456', client: 'x' },
        payments,
      ),
    ).toBe('VALIDATION_ERROR');
  });

  it('counts concurrent takes one by one', async () => {
    const answers = await Promise.all(Array.from({ length: 9 }, () => take('cust-3')));
    expect(answers.filter((attempt) => attempt.attemptId !== null)).toHaveLength(OTP_GUARD_MAX_REFUSALS);
  });

  it('lets exactly MAX of a parallel burst of distinct guesses through, for a customer with no row yet and again after giving them back', async () => {
    const burst = () => Promise.all(Array.from({ length: 20 }, () => take('cust-8')));
    const first = await burst();
    const taken = first.filter((attempt) => attempt.attemptId !== null);
    expect(taken).toHaveLength(OTP_GUARD_MAX_REFUSALS);
    expect(new Set(taken.map((attempt) => attempt.attemptId)).size).toBe(OTP_GUARD_MAX_REFUSALS);
    expect(
      first.filter((attempt) => attempt.attemptId === null).every((attempt) => attempt.retryAfterSeconds! > 14 * 60),
    ).toBe(true);
    // Gives back racing a burst: no give-back is lost, and the burst still gets no more than MAX.
    const [, second] = await Promise.all([
      Promise.all(taken.map((attempt) => settle('cust-8', attempt.attemptId!))),
      burst(),
    ]);
    expect(second.filter((attempt) => attempt.attemptId !== null).length).toBeLessThanOrEqual(OTP_GUARD_MAX_REFUSALS);
    const [row] = await orm.em
      .fork()
      .execute<Array<{ attempts: unknown[] }>>(
        "select attempts from identity.otp_guards where bank_handle = 'alpha' and customer_ref = 'cust-8'",
      );
    expect(row!.attempts).toHaveLength(second.filter((attempt) => attempt.attemptId !== null).length);
  });

  it('is for platform services only', async () => {
    for (const principal of [
      { kind: 'anonymous' },
      { kind: 'bank', id: 'alpha' },
      { kind: 'merchant', id: 'mer_1' },
    ] as Principal[]) {
      expect(
        await client.errorCode(
          TAKE,
          { bankHandle: 'alpha', customerRef: 'cust-4', guess: sha256Hex('x'), client: 'x' },
          principal,
        ),
      ).toMatch(/UNAUTHORIZED|FORBIDDEN|INVALID_BANK_KEY/);
    }
  });
});
