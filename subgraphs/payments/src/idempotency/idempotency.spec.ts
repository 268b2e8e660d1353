import { EntityManager } from '@mikro-orm/postgresql';
import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import type { GatewayError } from '@gateway/kernel';
import { migrateVault } from '@gateway/vault';
import { migrations } from '../migrations';
import { IdempotencyKeyEntity } from './idempotency.entity';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_RETENTION_MS, requestHash } from '@gateway/kernel';
import { idempotency } from './idempotency.service';

const HOUR = 3_600_000;

describe('Idempotency-Key store', () => {
  let db: Database;
  let orm: ServiceOrm;
  const em = () => orm.em.fork();
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: GatewayError) => error.code,
    );
  const row = (merchantId: string, key: string) =>
    db.knex('payments.idempotency_keys').where({ merchant_id: merchantId, key }).first();
  const done = async (merchantId: string, key: string, response: Record<string, unknown>) => {
    await em().transactional((tx) => idempotency.complete(tx, merchantId, key, response));
  };

  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, {
      schema: 'payments',
      entities: [IdempotencyKeyEntity],
      migrations,
      foreignSchemas: ['auth'],
    });
  });
  afterAll(async () => {
    await orm.close();
    await db.close();
  });

  it('hashes the request canonically: key order and absent or null fields do not matter, values do', () => {
    expect(requestHash({ a: 1, b: { c: 'x', d: null } })).toBe(requestHash({ b: { c: 'x' }, a: 1, e: undefined }));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: 2 }));
    expect(requestHash({ a: [1, 2] })).not.toBe(requestHash({ a: [2, 1] }));
  });

  it('replays the first answer for the same key and request, and refuses another request with the key', async () => {
    expect(await idempotency.begin(em(), 'mer_a', 'k1', 'h1')).toEqual({ kind: 'proceed' });
    await done('mer_a', 'k1', { id: 'ops_first' });
    expect(await idempotency.begin(em(), 'mer_a', 'k1', 'h1')).toEqual({
      kind: 'replay',
      response: { id: 'ops_first' },
    });
    expect(await codeOf(idempotency.begin(em(), 'mer_a', 'k1', 'h2'))).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('answers IDEMPOTENCY_KEY_IN_USE while the first request runs, whatever the body', async () => {
    await idempotency.begin(em(), 'mer_a', 'k2', 'h1');
    expect(await codeOf(idempotency.begin(em(), 'mer_a', 'k2', 'h1'))).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await codeOf(idempotency.begin(em(), 'mer_a', 'k2', 'h2'))).toBe('IDEMPOTENCY_KEY_IN_USE');
  });

  it('lets exactly one of concurrent requests with one key proceed', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => codeOf(idempotency.begin(em(), 'mer_a', 'k-race', 'h1'))),
    );
    expect(outcomes.sort()).toEqual([
      'IDEMPOTENCY_KEY_IN_USE',
      'IDEMPOTENCY_KEY_IN_USE',
      'IDEMPOTENCY_KEY_IN_USE',
      'IDEMPOTENCY_KEY_IN_USE',
      'IDEMPOTENCY_KEY_IN_USE',
      'ok',
    ]);
  });

  it('scopes keys per merchant', async () => {
    await idempotency.begin(em(), 'mer_a', 'shared', 'h1');
    await done('mer_a', 'shared', { id: 'ops_a' });
    expect(await idempotency.begin(em(), 'mer_b', 'shared', 'h-other')).toEqual({ kind: 'proceed' });
  });

  it('forgets a key after 24 hours', async () => {
    const now = new Date();
    await idempotency.begin(em(), 'mer_a', 'old', 'h1', new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS - HOUR));
    await done('mer_a', 'old', { id: 'ops_old' });
    expect(await idempotency.begin(em(), 'mer_a', 'old', 'h-new', now)).toEqual({ kind: 'proceed' });
    expect((await row('mer_a', 'old')).request_hash).toBe('h-new');

    await idempotency.begin(em(), 'mer_a', 'recent', 'h1', new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS + HOUR));
    await done('mer_a', 'recent', { id: 'ops_recent' });
    expect(await codeOf(idempotency.begin(em(), 'mer_a', 'recent', 'h2', now))).toBe('IDEMPOTENCY_KEY_REUSED');

    await idempotency.begin(em(), 'mer_purge', 'gone', 'h1', new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS - 1));
    expect(await idempotency.purgeExpired(em(), now)).toBeGreaterThanOrEqual(1);
    expect(await row('mer_purge', 'gone')).toBeUndefined();
  });

  it('claims the key when the row it ran into is purged before it is read (CI: a 500 after the 24-hour purge)', async () => {
    await idempotency.begin(em(), 'mer_a', 'purged', 'h1', new Date(Date.now() - IDEMPOTENCY_RETENTION_MS - HOUR));
    await done('mer_a', 'purged', { id: 'ops_old' });
    // The purge commits between the claim's insert (which ran into the old row) and its read.
    const read = EntityManager.prototype.findOne;
    const findOne = jest.spyOn(EntityManager.prototype, 'findOne');
    findOne.mockImplementationOnce(async function (this: EntityManager, ...args: Parameters<typeof read>) {
      await this.execute(`delete from "payments"."idempotency_keys" where "key" = 'purged'`);
      return read.apply(this, args);
    } as typeof read);
    try {
      expect(await idempotency.begin(em(), 'mer_a', 'purged', 'h-new')).toEqual({ kind: 'proceed' });
    } finally {
      findOne.mockRestore();
    }
    expect((await row('mer_a', 'purged')).request_hash).toBe('h-new');
  });

  it('releases the key of a failed request, and takes over one left in flight by a request that died', async () => {
    await idempotency.begin(em(), 'mer_a', 'failed', 'h1');
    await idempotency.release(em(), 'mer_a', 'failed');
    expect(await idempotency.begin(em(), 'mer_a', 'failed', 'h-corrected')).toEqual({ kind: 'proceed' });

    const then = new Date(Date.now() - IDEMPOTENCY_LOCK_MS - 1000);
    await idempotency.begin(em(), 'mer_a', 'crashed', 'h1', then);
    expect(await idempotency.begin(em(), 'mer_a', 'crashed', 'h1')).toEqual({ kind: 'proceed' });
    expect(await codeOf(idempotency.begin(em(), 'mer_a', 'crashed', 'h1'))).toBe('IDEMPOTENCY_KEY_IN_USE');
  });

  it('refuses to store an answer for a key that is no longer this request’s, and malformed keys', async () => {
    expect(await codeOf(done('mer_a', 'never-begun', { id: 'x' }))).toBe('IDEMPOTENCY_KEY_IN_USE');
    for (const key of ['', 'has space', 'k'.repeat(256), 'é'])
      expect(await codeOf(idempotency.begin(em(), 'mer_a', key, 'h1'))).toBe('VALIDATION_ERROR');
  });
});
