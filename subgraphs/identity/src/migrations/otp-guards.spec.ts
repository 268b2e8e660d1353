import { openServiceOrm, type Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { OtpGuardService } from '../otp-guard/otp-guard.service';
import { migrations } from '.';

describe('identity migration otp_guards', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it("carries each customer's stored checks over into one row, oldest first with exact milliseconds, and drops otp_attempts", async () => {
    const before = migrations.findIndex((migration) => migration.name === 'Migration20261201000200_otp_guards');
    await openServiceOrm(db, { schema: 'identity', entities: [], migrations: migrations.slice(0, before) });
    await db.knex('identity.otp_attempts').insert([
      {
        id: 'otp_a',
        bank_handle: 'alpha',
        customer_ref: 'c1',
        guess: 'g1',
        taken_at: new Date('2026-12-01T10:00:00.123Z'),
      },
      {
        id: 'otp_b',
        bank_handle: 'alpha',
        customer_ref: 'c1',
        guess: 'g2',
        taken_at: new Date('2026-12-01T09:59:00.007Z'),
      },
      {
        id: 'otp_c',
        bank_handle: 'beta',
        customer_ref: 'c1',
        guess: 'g1',
        taken_at: new Date('2026-12-01T10:01:00.000Z'),
      },
    ]);
    const orm = await openServiceOrm(db, { schema: 'identity', entities: [], migrations });

    expect(await db.knex('identity.otp_guards').orderBy('bank_handle')).toEqual([
      {
        bank_handle: 'alpha',
        customer_ref: 'c1',
        attempts: [
          { id: 'otp_b', guess: 'g2', taken_at: Date.parse('2026-12-01T09:59:00.007Z') },
          { id: 'otp_a', guess: 'g1', taken_at: Date.parse('2026-12-01T10:00:00.123Z') },
        ],
      },
      {
        bank_handle: 'beta',
        customer_ref: 'c1',
        attempts: [{ id: 'otp_c', guess: 'g1', taken_at: Date.parse('2026-12-01T10:01:00.000Z') }],
      },
    ]);
    expect(await db.knex.schema.withSchema('identity').hasTable('otp_attempts')).toBe(false);
    // A check carried over is still held: the same guess is the same check.
    const guard = new OtpGuardService(() => new Date('2026-12-01T10:05:00.000Z'));
    expect(await guard.take(orm.em.fork(), 'alpha', 'c1', 'g2', 'unknown')).toEqual({
      attemptId: 'otp_b',
      retryAfterSeconds: null,
      repeated: true,
    });
  });
});
