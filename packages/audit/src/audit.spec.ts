import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { createLogger } from '@gateway/kernel';
import { AuditEntry } from './audit-entry.entity';
import { audit, changesBetween, type AuditActor } from './audit';
import { migrateAudit } from './schema';

const logger = createLogger('audit-spec', 'silent');
const operator: AuditActor = { kind: 'admin', id: 'adk_1', name: 'alice', ip: '203.0.113.9', requestId: 'req_1' };

describe('audit log', () => {
  let db: Database;
  let orm: ServiceOrm;
  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateAudit(db);
    await migrateAudit(db); // idempotent: every service applies it at start
    orm = await openServiceOrm(db, {
      schema: 'audit_test',
      entities: [AuditEntry],
      migrations: [],
      foreignSchemas: ['audit'],
    });
  });
  afterAll(() => db.close());

  it('writes an entry with the change in the caller’s transaction, and none when it rolls back', async () => {
    const entry = await orm.em.fork().transactional(async (tx) =>
      audit.record(
        tx,
        {
          actor: operator,
          action: 'merchant.updated',
          target: 'mer_1',
          changes: changesBetween({ settlement_iban: 'DE1', name: 'Shop' }, { settlement_iban: 'DE2', name: 'Shop' }),
        },
        logger,
      ),
    );
    const row = await db.knex('audit.entries').where({ id: entry.id }).first();
    expect(row).toMatchObject({
      actor_kind: 'admin',
      actor_id: 'adk_1',
      actor_name: 'alice',
      action: 'merchant.updated',
      target: 'mer_1',
      ip: '203.0.113.9',
      request_id: 'req_1',
    });
    expect(row.changes).toEqual({ settlement_iban: { from: 'DE1', to: 'DE2' } });

    await expect(
      orm.em.fork().transactional(async (tx) => {
        audit.record(tx, { actor: operator, action: 'bank.suspended', target: 'rolled-back' }, logger);
        await tx.flush();
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await db.knex('audit.entries').where({ target: 'rolled-back' })).toHaveLength(0);
  });

  it('refuses UPDATE, DELETE and TRUNCATE at the database, for the table owner too', async () => {
    await orm.em.fork().transactional(async (tx) => {
      audit.record(tx, { actor: operator, action: 'tpp.suspended', target: 'tpp_x' }, logger);
    });
    await expect(db.knex('audit.entries').update({ target: 'tpp_y' })).rejects.toThrow(/append-only/);
    await expect(db.knex('audit.entries').where({ target: 'tpp_x' }).del()).rejects.toThrow(/append-only/);
    await expect(db.knex.raw('truncate "audit"."entries"')).rejects.toThrow(/append-only/);
    expect(await db.knex('audit.entries').where({ target: 'tpp_x' })).toHaveLength(1);
  });

  it('keeps secrets out: secret-named fields are masked, a secret under another name is refused', async () => {
    const entry = await orm.em.fork().transactional(async (tx) =>
      audit.record(
        tx,
        {
          actor: operator,
          action: 'bank.internal_key_rotated',
          target: 'bank-a',
          changes: { internal_key: { from: 'old-raw', to: 'new-raw' }, webhook_secret: { to: 'whsec_x' } },
        },
        logger,
      ),
    );
    const row = await db.knex('audit.entries').where({ id: entry.id }).first();
    expect(row.changes).toEqual({
      internal_key: { from: '[secret]', to: '[secret]' },
      webhook_secret: { to: '[secret]' },
    });
    expect(() =>
      audit.record(
        orm.em.fork(),
        {
          actor: operator,
          action: 'merchant.updated',
          target: 'm',
          changes: { note: { to: 'mk_live_Jt3vQ9zPq0w8R2xYk5LmN7aBcDeFgHiJkLmNoPqRsTu' } },
        },
        logger,
      ),
    ).toThrow(/secret/);
    // A prefix alone is no secret: a merchant may well be called "at_home".
    expect(() =>
      audit.record(
        orm.em.fork(),
        { actor: operator, action: 'merchant.updated', target: 'm', changes: { name: { to: 'at_home' } } },
        logger,
      ),
    ).not.toThrow();
  });

  it('lists newest first with filters and a stable keyset cursor', async () => {
    const base = Date.parse('2030-01-01T00:00:00Z');
    await orm.em.fork().transactional(async (tx) => {
      for (let n = 0; n < 5; n++) {
        audit.record(
          tx,
          { actor: { kind: 'bank', id: 'bank-p' }, action: 'bank.updated', target: 'paged' },
          logger,
          new Date(base + n * 1000),
        );
      }
    });
    const first = await audit.list(orm.em.fork(), { target: 'paged', limit: 2 });
    const second = await audit.list(orm.em.fork(), { target: 'paged', limit: 2, cursor: first.nextCursor! });
    const third = await audit.list(orm.em.fork(), { target: 'paged', limit: 2, cursor: second.nextCursor! });
    const times = [...first.entries, ...second.entries, ...third.entries].map((entry) => entry.at.getTime() - base);
    expect(times).toEqual([4000, 3000, 2000, 1000, 0]);
    expect(third.nextCursor).toBeNull();

    const ranged = await audit.list(orm.em.fork(), {
      actor: 'bank-p',
      from: new Date(base + 1000),
      to: new Date(base + 3000),
      limit: 10,
    });
    expect(ranged.entries.map((entry) => entry.at.getTime() - base)).toEqual([2000, 1000]);
    expect((await audit.list(orm.em.fork(), { actor: 'alice', limit: 10 })).entries.length).toBeGreaterThan(0);
  });
  it('logs a change of where money goes at warn, with who and from where, and nothing else', () => {
    const watched = createLogger('audit-spec-warn', 'silent');
    const warn = jest.spyOn(watched, 'warn');
    const em = orm.em.fork();
    for (const field of [
      'settlement_iban',
      'settlement_account_iban',
      'webhook_url',
      'core_base_url',
      'sandbox_core_base_url',
    ])
      audit.record(
        em,
        { actor: operator, action: 'merchant.updated', target: 'm', changes: { [field]: { from: 'a', to: 'b' } } },
        watched,
      );
    audit.record(
      em,
      { actor: operator, action: 'merchant.updated', target: 'm', changes: { name: { from: 'a', to: 'b' } } },
      watched,
    );
    expect(warn).toHaveBeenCalledTimes(5);
    expect(warn.mock.calls[0]).toEqual([
      expect.objectContaining({
        action: 'merchant.updated',
        target: 'm',
        changes: { settlement_iban: { from: 'a', to: 'b' } },
        actor: { kind: 'admin', id: 'adk_1', name: 'alice' },
        ip: '203.0.113.9',
        request_id: 'req_1',
      }),
      'where money goes changed',
    ]);
  });
});
