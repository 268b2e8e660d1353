import { Entity, PrimaryKey, Property, raw, type EntityName, type FilterQuery } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { openServiceOrm, type ServiceOrm } from './orm';
import type { Database } from './database';
import { openTestDatabase } from './testing';
import { OneStatement } from './one-statement';
import { plainLock, plainUpdate, rowOf } from './plain-update';
import { untracked } from './untracked';

const SCHEMA = 'onestatementtest';

@Entity({ tableName: 'orders' })
class Order {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  status!: string;

  @Property({ type: 'integer' })
  version = 0;
}

@Entity({ tableName: 'notes' })
class Note {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  orderId!: string;

  @Property({ type: 'json' })
  data!: Record<string, unknown>;

  @Property({ type: 'timestamptz' })
  at!: Date;
}

class CreateTables extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "${SCHEMA}"."orders" ("id" text primary key, "status" text not null, "version" integer not null default 0);`,
    );
    this.addSql(
      `create table "${SCHEMA}"."notes" ("id" text primary key, "order_id" text not null, "data" jsonb not null, "at" timestamptz not null, "number" serial);`,
    );
  }
}

describe('OneStatement: several writes, one statement, all or none', () => {
  let db: Database;
  let orm: ServiceOrm;
  const notes = async (orderId: string) => db.knex(`${SCHEMA}.notes`).where({ order_id: orderId });
  const order = async (id: string) => db.knex(`${SCHEMA}.orders`).where({ id }).first();
  /** The statements sent while `work` runs. */
  const statementsDuring = async (em: ReturnType<ServiceOrm['em']['fork']>, work: () => Promise<unknown>) => {
    const sent: string[] = [];
    const knex = em.getKnex();
    const count = (query: { sql: string }) => void sent.push(query.sql);
    knex.on('query', count);
    try {
      await work();
    } finally {
      knex.off('query', count);
    }
    return sent;
  };
  const noteIn = (em: ReturnType<ServiceOrm['em']['fork']>, id: string, orderId = 'b1') =>
    new OneStatement(em)
      .insert('note', Note, { id, orderId, data: { id }, at: new Date() }, undefined, 'number')
      .insert('order', Order, { id: `order_of_${id}`, status: 'NEW' });

  beforeAll(async () => {
    db = await openTestDatabase();
    orm = await openServiceOrm(db, {
      schema: SCHEMA,
      entities: [Order, Note],
      migrations: [{ name: 'CreateTables', class: CreateTables }],
    });
    await db.knex(`${SCHEMA}.orders`).insert([
      { id: 'o1', status: 'OPEN' },
      { id: 'o2', status: 'OPEN' },
      { id: 'o3', status: 'OPEN' },
    ]);
  });
  afterAll(async () => {
    await orm.close();
    await db.close();
  });

  it('writes the parts that depend on a conditional update only when it changed a row, and counts each part (values with ? and $1 kept as they are)', async () => {
    const em = orm.em.fork();
    const at = new Date('2026-11-24T10:00:00.000Z');
    const first = await new OneStatement(em)
      .update('moved', Order, { id: 'o1', status: 'OPEN' }, { status: 'PAID' })
      .insert('note', Note, { id: 'n1', orderId: 'o1', data: { said: "it's paid? yes\\? $1", n: 1 }, at }, 'moved')
      .run();
    expect(first).toEqual({ moved: 1, note: 1 });
    expect(await order('o1')).toMatchObject({ status: 'PAID' });
    const [note] = await notes('o1');
    expect(note).toMatchObject({ id: 'n1', data: { said: "it's paid? yes\\? $1", n: 1 } });
    expect(new Date(note.at).toISOString()).toBe(at.toISOString());

    // The same move again: the update matches nothing, so nothing that depends on it is written.
    const again = await new OneStatement(em)
      .update('moved', Order, { id: 'o1', status: 'OPEN' }, { status: 'PAID' })
      .insert('note', Note, { id: 'n2', orderId: 'o1', data: {}, at }, 'moved')
      .run();
    expect(again).toEqual({ moved: 0, note: 0 });
    expect(await notes('o1')).toHaveLength(1);
  });

  it('a lock first makes two conditional updates land together or not at all', async () => {
    const em = orm.em.fork();
    const move = (from: string, note: string) =>
      new OneStatement(em)
        .lock('locked', Order, { id: 'o2', status: from })
        .update('counted', Order, { id: 'o3' }, { version: 7 }, 'locked')
        .update('moved', Order, { id: 'o2', status: from }, { status: 'SHIPPED' }, 'counted')
        .insert('note', Note, { id: note, orderId: 'o2', data: {}, at: new Date() }, 'moved')
        .run();
    expect(await move('PAID', 'n3')).toEqual({ locked: 0, counted: 0, moved: 0, note: 0 });
    expect(await order('o3')).toMatchObject({ version: 0 });
    expect(await move('OPEN', 'n4')).toEqual({ locked: 1, counted: 1, moved: 1, note: 1 });
    expect(await order('o3')).toMatchObject({ version: 7 });
    expect(await order('o2')).toMatchObject({ status: 'SHIPPED' });
  });

  it('a veto part undoes every part before it when its condition holds, and throws its refusal', async () => {
    const em = orm.em.fork();
    await db.knex(`${SCHEMA}.orders`).insert([{ id: 'v1', status: 'OPEN' }]);
    const attempt = (limit: number) =>
      new OneStatement(em)
        .update('moved', Order, { id: 'v1', status: 'OPEN' }, { status: 'PAID' })
        .sql(
          'counted',
          `update "${SCHEMA}"."orders" set "version" = "version" + 1 where "id" = 'o1' and "version" < ? returning 1`,
          [limit],
        )
        .veto(
          'refused',
          `exists (select 1 from "w_moved") and not exists (select 1 from "w_counted")`,
          () => new Error('over the limit'),
        )
        .insert('note', Note, { id: `nv${limit}`, orderId: 'v1', data: {}, at: new Date() }, 'moved')
        .run();
    await expect(attempt(0)).rejects.toThrow('over the limit');
    expect(await order('v1')).toMatchObject({ status: 'OPEN' });
    expect(await notes('v1')).toHaveLength(0);
    expect(await attempt(100)).toEqual({ moved: 1, counted: 1, refused: 0, note: 1 });
    expect(await order('v1')).toMatchObject({ status: 'PAID' });
    // Nothing moved: the condition does not hold, nothing is refused.
    expect(await attempt(100)).toMatchObject({ moved: 0, refused: 0 });
  });

  it('answers a column the database assigned to an inserted row, or null when the part wrote none', async () => {
    const em = orm.em.fork();
    await db.knex(`${SCHEMA}.orders`).insert([{ id: 'a1', status: 'OPEN' }]);
    const move = (note: string) =>
      new OneStatement(em)
        .update('moved', Order, { id: 'a1', status: 'OPEN' }, { status: 'PAID' })
        .insert('note', Note, { id: note, orderId: 'a1', data: {}, at: new Date() }, 'moved', 'number');
    const first = move('na1');
    expect(() => first.answered('note')).toThrow('answers nothing');
    expect(await first.run()).toEqual({ moved: 1, note: 1 });
    const [written] = await notes('a1');
    expect(first.answered('note')).toBe(String(written.number));
    const second = move('na2');
    expect(await second.run()).toEqual({ moved: 0, note: 0 });
    expect(second.answered('note')).toBeNull();
  });

  it("writes an update of equalities and values with the query builder's text and bindings, and leaves any other to the builder", async () => {
    const em = orm.em.fork();
    const also = 'exists (select 1 from "w_moved")';
    const builders = <T extends object>(
      entity: EntityName<T>,
      where: FilterQuery<T>,
      changes: Partial<T>,
      and?: string,
    ) => {
      const qb = em
        .createQueryBuilder(entity)
        .update(changes as never)
        .where(where);
      if (and) qb.andWhere(and);
      const { sql, bindings } = qb.getKnexQuery().toSQL();
      // The builder returns the columns a raw change sets; OneStatement.update answers its own.
      return { sql: `${sql.replace(/ returning "[\w"., ]+$/, '')} returning 1`, bindings };
    };
    const at = new Date('2026-11-30T10:00:00.000Z');
    const shapes = [
      () => [Order, { id: 'o1', status: 'OPEN' }, { status: 'PAID', version: 3 }] as const,
      () => [Order, { id: 'o1', version: 0 }, { status: 'SHIPPED' }, also] as const,
      () => [Note, { id: 'n1', orderId: 'o1' }, { data: { said: 'a?', n: 1 }, at, orderId: 'o2' }, also] as const,
      () => [Order, { id: 'o1', status: 'OPEN' }, { status: 'PAID', version: raw('version + 1') as never }] as const,
      () => [Order, { id: 'o1' }, { version: raw('version + ?', [2]) as never, status: 'SHIPPED' }, also] as const,
    ];
    for (const shape of shapes) {
      const [entity, where, changes, and] = shape();
      const written = plainUpdate(em, entity as EntityName<object>, where, changes, and);
      expect(written).toBeDefined();
      expect(written).toEqual(builders(entity as EntityName<object>, where, changes, and));
    }
    // Operators, nulls and undefined values are the builder's.
    expect(plainUpdate(em, Order, { id: { $in: ['o1', 'o2'] } }, { status: 'PAID' })).toBeUndefined();
    expect(plainUpdate(em, Order, { id: 'o1', status: null as never }, { status: 'PAID' })).toBeUndefined();
    expect(plainUpdate(em, Order, { id: 'o1' }, { status: undefined })).toBeUndefined();
    // And the builder still writes them, as one statement.
    await db.knex(`${SCHEMA}.orders`).insert([
      { id: 'p1', status: 'OPEN' },
      { id: 'p2', status: 'OPEN' },
    ]);
    expect(
      await new OneStatement(em)
        .update('moved', Order, { id: 'p1', status: 'OPEN' }, { status: 'PAID' })
        .update('counted', Order, { id: { $in: ['p2'] } }, { version: raw('version + 1') as never }, 'moved')
        .run(),
    ).toEqual({ moved: 1, counted: 1 });
    expect(await order('p1')).toMatchObject({ status: 'PAID', version: 0 });
    expect(await order('p2')).toMatchObject({ status: 'OPEN', version: 1 });
    // A raw change written without the builder is SQL when sent, its own values bound.
    expect(
      await new OneStatement(em)
        .update('bumped', Order, { id: 'p1', status: 'PAID' }, { version: raw('version + ?', [5]) as never })
        .update('again', Order, { id: 'p2' }, { version: raw('version + 1') as never }, 'bumped')
        .run(),
    ).toEqual({ bumped: 1, again: 1 });
    expect(await order('p1')).toMatchObject({ status: 'PAID', version: 5 });
    expect(await order('p2')).toMatchObject({ version: 2 });
  });

  it("locks rows matched by equalities with the query builder's text less its table alias, and leaves any other to the builder", () => {
    const em = orm.em.fork();
    const where = { id: 'o2', status: 'OPEN' };
    const { sql, bindings } = em.createQueryBuilder(Order).select(raw('1')).where(where).getKnexQuery().toSQL();
    expect(plainLock(em, Order, where)).toEqual({
      sql: `${sql.replace(/ as "o\d+"/, '').replace(/"o\d+"\./g, '')} for update`,
      bindings,
    });
    expect(plainLock(em, Order, where)!.sql).toBe(
      'select 1 from "onestatementtest"."orders" where "id" = ? and "status" = ? for update',
    );
    expect(plainLock(em, Order, { id: { $in: ['o1', 'o2'] } })).toBeUndefined();
    expect(plainLock(em, Order, { id: 'o1', status: null as never })).toBeUndefined();
    expect(plainLock(em, Order, {})).toBeUndefined();
  });

  it("maps a row's properties to columns and values as the driver's mapping does, one property at a time", async () => {
    const em = orm.em.fork();
    const driver = em.getDriver();
    const at = new Date('2026-11-30T10:00:00.000Z');
    for (const [entity, data] of [
      [Note, { id: 'r1', orderId: 'o1', data: { said: 'a?', list: [1, 2] }, at }],
      [Note, { id: 'r2', orderId: 'o2', data: null, at: null }],
      [Order, { id: 'r3', status: 'OPEN', version: 2 }],
    ] as const) {
      const meta = em.getMetadata().get(entity.name);
      expect(rowOf(em, meta, data as never)).toEqual(
        driver.mapDataToFieldNames({ ...data }, true, meta.properties, true),
      );
    }
  });

  it('maps a raw row to the entity em.map makes of it, held by no identity map', async () => {
    await db.knex(`${SCHEMA}.notes`).insert({ id: 'u1', order_id: 'o1', data: { said: 'hi', n: 2 }, at: new Date(0) });
    const em = orm.em.fork();
    for (const [entity, sql] of [
      [Note, `select * from "${SCHEMA}"."notes" where "id" = 'u1'`],
      [Order, `select * from "${SCHEMA}"."orders" where "id" = 'o1'`],
    ] as const) {
      const [row] = await em.execute<Array<Record<string, unknown>>>(sql);
      const mapped = untracked(em, entity as EntityName<object>, { ...row! });
      expect(mapped).toBeInstanceOf(entity);
      expect(mapped).toEqual(em.fork().map(entity as EntityName<object>, { ...row! }));
    }
    expect(
      untracked(em, Note, (await em.execute(`select * from "${SCHEMA}"."notes" where "id" = 'u1'`))[0]!),
    ).toMatchObject({
      data: { said: 'hi', n: 2 },
      at: new Date(0),
    });
    expect(em.getUnitOfWork().getIdentityMap().values()).toHaveLength(0);
    // Not the caller's managed instance of the same row, refreshed and answered: one of its own.
    const managed = (await em.findOne(Order, { id: 'o1' }))!;
    const [row] = await em.execute<Array<Record<string, unknown>>>(
      `select * from "${SCHEMA}"."orders" where "id" = 'o1'`,
    );
    const copy = untracked(em, Order, { ...row!, status: 'CHANGED' });
    expect(copy).not.toBe(managed);
    expect(copy.status).toBe('CHANGED');
    expect(managed.status).not.toBe('CHANGED');
  });

  it('is one statement', async () => {
    const em = orm.em.fork();
    const sent = await statementsDuring(em, () =>
      new OneStatement(em)
        .update('moved', Order, { id: 'o3' }, { status: 'CLOSED' })
        .insert('note', Note, { id: 'n5', orderId: 'o3', data: {}, at: new Date() }, 'moved')
        .run(),
    );
    expect(sent).toHaveLength(1);
  });

  it('statements of inserts alone sent in one turn go as one statement, each answering its own counts and columns', async () => {
    const em = orm.em.fork();
    const ids = ['bn1', 'bn2', 'bn3', 'bn4'];
    const statements = ids.map((id) => noteIn(em, id));
    let counts: Array<Record<string, number>> = [];
    const sent = await statementsDuring(em, async () => {
      counts = await Promise.all(statements.map((statement) => statement.run()));
    });
    expect(sent).toHaveLength(1);
    expect(counts).toEqual(ids.map(() => ({ note: 1, order: 1 })));
    const written = await notes('b1');
    const numbers = statements.map((statement) => Number(statement.answered('note')));
    expect(new Set(numbers).size).toBe(4);
    for (const [index, id] of ids.entries())
      expect(written.find((row: { id: string }) => row.id === id)).toMatchObject({
        data: { id },
        number: numbers[index],
      });
    expect(await order('order_of_bn2')).toMatchObject({ status: 'NEW' });
  });

  it('one statement of a batch that fails fails alone: the others are written, it writes nothing and throws its own error', async () => {
    const em = orm.em.fork();
    await noteIn(em, 'bf1').run(); // bf1's order row is taken: a second bf1 fails on its primary key
    const statements = [noteIn(em, 'bf2'), noteIn(em, 'bf1', 'elsewhere'), noteIn(em, 'bf3')];
    const outcomes = await Promise.allSettled(statements.map((statement) => statement.run()));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/duplicate key/);
    expect((await notes('b1')).map((row: { id: string }) => row.id)).toEqual(
      expect.arrayContaining(['bf1', 'bf2', 'bf3']),
    );
    expect(await notes('elsewhere')).toEqual([]);
  });

  it('batches in sizes of powers of two (13 at once: 8, 4 and 1), and never a statement with a conditional part or in a transaction', async () => {
    const em = orm.em.fork();
    const thirteen = Array.from({ length: 13 }, (_, index) => noteIn(em, `bp${index}`));
    const sent = await statementsDuring(em, () => Promise.all(thirteen.map((statement) => statement.run())));
    expect(sent).toHaveLength(3);
    expect((await notes('b1')).filter((row: { id: string }) => row.id.startsWith('bp'))).toHaveLength(13);

    const conditional = () =>
      new OneStatement(em)
        .insert('order', Order, { id: `bc_${Math.random()}`, status: 'NEW' })
        .insert('note', Note, { id: `bcn_${Math.random()}`, orderId: 'bc', data: {}, at: new Date() }, 'order');
    expect(await statementsDuring(em, () => Promise.all([conditional().run(), conditional().run()]))).toHaveLength(2);

    const inTransaction = await statementsDuring(em, () =>
      em.transactional((tx) => Promise.all([noteIn(tx, 'bt1').run(), noteIn(tx, 'bt2').run()])),
    );
    expect(inTransaction.filter((text) => text.includes('insert'))).toHaveLength(2);
  });
});
