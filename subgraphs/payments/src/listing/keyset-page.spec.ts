import { OneStatement, openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { OutboxEvent } from '@gateway/events';
import { GatewayError, newId, parseInput } from '@gateway/kernel';
import { migrateVault } from '@gateway/vault';
import { metadataContains } from '../metadata/metadata.sql';
import { migrations } from '../migrations';
import { PaymentSessionEntity } from '../session/session.entity';
import { createSessionIn, newSession, updateSessionMetadata } from '../session/session.moves';
import { createdRange, keysetPage } from './keyset-page';
import { filterFields, listRules, parseInstant, statusRule } from './list.rules';

/**
 * The one paging of every list, on real rows: newest first by (created_at, id), ties broken by id,
 * filters combined, a cursor accepted only from the same list (scope and fixed filters) but still
 * holding its place once it left a changing filter; and the metadata merge in one statement.
 */
describe('keysetPage and the list rules', () => {
  let db: Database;
  let orm: ServiceOrm;
  const merchantId = newId('merchant');
  const at = (second: number) => new Date(Date.UTC(2026, 11, 1, 0, 0, second));

  const insert = async (createdAt: Date, fields: Partial<PaymentSessionEntity> = {}, merchant = merchantId) => {
    const id = newId('paymentSession');
    const session = newSession(
      {
        id,
        merchantId: merchant,
        livemode: true,
        amount: 1_000n,
        currency: 'LYD',
        destinationType: 'alias',
        destinationValue: 'shop',
        creditorIban: 'LY00',
        creditorBank: 'alpha',
        description: null,
        reference: null,
        metadata: {},
        redirectUrl: null,
        webhookUrl: null,
        checkoutUrl: `http://x/pay/${id}`,
        expiresAt: new Date(Date.now() + 3_600_000),
        ...fields,
      },
      createdAt,
    );
    const statement = new OneStatement(orm.em.fork());
    createSessionIn(statement, session, createdAt);
    await statement.run();
    return id;
  };
  const page = (query: Partial<Parameters<typeof keysetPage<PaymentSessionEntity>>[2]> = {}) =>
    keysetPage(orm.em.fork(), PaymentSessionEntity, { scope: { merchantId }, first: 2, ...query }).then(
      ({ rows, hasMore }) => ({ ids: rows.map((row) => row.id), hasMore }),
    );

  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, {
      schema: 'payments',
      entities: [PaymentSessionEntity, OutboxEvent],
      migrations,
      foreignSchemas: ['auth'],
    });
  });
  afterAll(async () => {
    await orm.close();
    await db.close();
  });

  it('pages newest first, ties by id, filters combined, and refuses a cursor from another list', async () => {
    const oldest = await insert(at(1), { reference: 'r1', metadata: { order: '1' } });
    const tieA = await insert(at(2), { reference: 'r2', metadata: { order: '2', channel: 'web' } });
    const tieB = await insert(at(2), { reference: 'r2', metadata: { channel: 'web' } });
    const newest = await insert(at(3), { amount: 9_000n, metadata: { channel: 'web' } });
    const foreign = await insert(at(2), {}, newId('merchant'));
    const [hi, lo] = [tieA, tieB].sort().reverse();

    const first = await page();
    expect(first).toEqual({ ids: [newest, hi], hasMore: true });
    expect(await page({ after: hi })).toEqual({ ids: [lo, oldest], hasMore: false });
    // Oldest first (the reports read forward), the same cursor rule the other way.
    expect(await page({ order: 'oldest' })).toEqual({ ids: [oldest, lo], hasMore: true });
    expect(await page({ order: 'oldest', after: lo })).toEqual({ ids: [hi, newest], hasMore: false });

    const web = () => [metadataContains('channel', 'web')];
    expect((await page({ first: 10, changing: web() })).ids).toEqual([newest, hi, lo]);
    expect((await page({ first: 10, changing: web(), fixed: [{ reference: 'r2' }] })).ids).toEqual([hi, lo]);
    expect(
      (await page({ first: 10, fixed: createdRange({ createdFrom: at(2), createdTo: at(3) }) })).ids.sort(),
    ).toEqual([tieA, tieB].sort());
    expect((await page({ first: 10, fixed: [{ amount: { $gte: 5_000n } }] })).ids).toEqual([newest]);

    // Another merchant's row, or one outside the fixed filters, is not a cursor of this list.
    await expect(page({ after: foreign })).rejects.toMatchObject({
      detail: expect.stringMatching(/^after: not a cursor of this list/),
    });
    await expect(page({ after: oldest, fixed: [{ reference: 'r2' }] })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    // A row that left a changing filter (its metadata changed) still marks where the next page starts.
    expect(await updateSessionMetadata(orm.em.fork(), merchantId, hi!, { set: {}, remove: ['channel'] }, at(9))).toBe(
      true,
    );
    expect((await page({ first: 10, changing: web(), after: hi })).ids).toEqual([lo]);
  });

  it('merges metadata in the statement: concurrent PATCHes keep both keys, the 20-key limit holds, another merchant changes nothing', async () => {
    const id = await insert(at(20), { metadata: { keep: 'yes', drop: 'me' } });
    await Promise.all([
      updateSessionMetadata(orm.em.fork(), merchantId, id, { set: { a: '1' }, remove: ['drop'] }, at(21)),
      updateSessionMetadata(orm.em.fork(), merchantId, id, { set: { b: '2' }, remove: [] }, at(21)),
    ]);
    const read = async () => (await orm.em.fork().findOneOrFail(PaymentSessionEntity, { id })).metadata;
    expect(await read()).toEqual({ keep: 'yes', a: '1', b: '2' });
    const seventeen = Object.fromEntries(Array.from({ length: 18 }, (_, i) => [`k${i}`, 'v']));
    expect(await updateSessionMetadata(orm.em.fork(), merchantId, id, { set: seventeen, remove: [] }, at(22))).toBe(
      false,
    );
    expect(
      await updateSessionMetadata(orm.em.fork(), newId('merchant'), id, { set: { x: '1' }, remove: [] }, at(22)),
    ).toBe(false);
    expect(await read()).toEqual({ keep: 'yes', a: '1', b: '2' });
  });

  it('reads ISO 8601 dates and date-times with offsets, and nothing else', () => {
    expect(parseInstant('2026-12-01')).toEqual(new Date('2026-12-01T00:00:00Z'));
    expect(parseInstant('2026-12-01T10:30:00+02:00')).toEqual(new Date('2026-12-01T08:30:00Z'));
    expect(parseInstant('2026-12-01T10:30:00.123Z')).toEqual(new Date('2026-12-01T10:30:00.123Z'));
    for (const bad of [
      '2026-02-30',
      '2026-13-01',
      '2026-12-01T10:30:00',
      '2026-12-01T24:00:00Z',
      'yesterday',
      '1733000000',
    ])
      expect(parseInstant(bad)).toBeNull();
  });

  it('names the field of every refused filter as REST spells it', () => {
    const rules = listRules({
      status: statusRule(['PENDING', 'DONE'] as const).nullish(),
      amountMin: filterFields.amountMin,
      amountMax: filterFields.amountMax,
      metadata: filterFields.metadata,
      event: filterFields.event,
    });
    const refusal = (input: Record<string, unknown>) => {
      try {
        parseInput(rules, input);
      } catch (error) {
        return (error as GatewayError).detail;
      }
      return 'accepted';
    };
    expect(refusal({ status: 'LOST' })).toBe('status: must be one of PENDING, DONE');
    expect(refusal({ createdFrom: 'soon' })).toMatch(/^created_from: must be an ISO 8601/);
    expect(refusal({ createdFrom: '2026-12-02', createdTo: '2026-12-01' })).toBe(
      'created_from: must not be after created_to',
    );
    expect(refusal({ amountMin: -1 })).toBe('amount_min: must be 0 or more');
    expect(refusal({ amountMin: 5, amountMax: 4 })).toBe('amount_min: must not be more than amount_max');
    expect(refusal({ metadata: { key: 'a[b]', value: 'x' } })).toMatch(
      /^metadata: key "a\[b\]" must not hold brackets/,
    );
    expect(refusal({ metadata: { key: 'a', value: '' } })).toBe('metadata: the value must be 1 to 500 characters');
    expect(refusal({ event: 'Payment' })).toMatch(/^event: /);
    expect(refusal({ first: 101 })).toBe('first: must be between 1 and 100');
    expect(refusal({ unknown: 1 })).toMatch(/^body: |unknown/);
    expect(
      refusal({ status: 'DONE', createdFrom: '2026-12-01', amountMin: 0, metadata: { key: 'a', value: 'b' } }),
    ).toBe('accepted');
  });
});
