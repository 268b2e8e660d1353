import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { openDatabase, openServiceOrm, type Database } from './index';

@Entity({ tableName: 'notes' })
class Note {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'bigint' })
  amount!: bigint;
}

class CreateNotes extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "dbtest"."notes" ("id" text primary key, "amount" bigint not null);');
  }
}

const options = { schema: 'dbtest', entities: [Note], migrations: [{ name: 'CreateNotes', class: CreateNotes }] };

describe('database layer', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-db-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs committed migrations once and keeps embedded data across restarts', async () => {
    const open = async (): Promise<Database> => openDatabase({ url: process.env.DATABASE_URL, dataDir: dir });
    let db = await open();
    await db.knex.raw('drop schema if exists dbtest cascade');
    let orm = await openServiceOrm(db, options);
    await orm.em.fork().transactional(async (em) => {
      em.persist(Object.assign(new Note(), { id: 'n1', amount: 9_007_199_254_740_993n }));
    });
    await db.close();

    db = await open();
    orm = await openServiceOrm(db, options); // migrations already applied: a no-op
    const note = await orm.em.fork().findOneOrFail(Note, 'n1');
    expect(note.amount).toBe(9_007_199_254_740_993n);
    const applied = await db.knex.raw('select name from dbtest.mikro_orm_migrations');
    expect(applied.rows.map((r: { name: string }) => r.name)).toEqual(['CreateNotes']);
    await db.knex.raw('drop schema dbtest cascade');
    await db.close();
  });

  it('rolls back a failed transaction completely', async () => {
    const db = await openDatabase({ url: process.env.DATABASE_URL });
    await db.knex.raw('drop schema if exists dbtest cascade');
    const orm = await openServiceOrm(db, options);
    await expect(
      orm.em.fork().transactional(async (em) => {
        em.persist(Object.assign(new Note(), { id: 'n2', amount: 1n }));
        await em.flush();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await orm.em.fork().findOne(Note, 'n2')).toBeNull();
    await db.knex.raw('drop schema dbtest cascade');
    await db.close();
  });
});

// Separate processes sharing one database exist only on PostgreSQL (PGlite has one owner
// process); CI always sets DATABASE_URL, so this runs there.
const onPostgres = process.env.DATABASE_URL ? it : it.skip;

describe('migrations under concurrent starts', () => {
  onPostgres('lets several services migrate one schema at the same time without a race', async () => {
    const db = await openDatabase({ url: process.env.DATABASE_URL });
    await db.knex.raw('drop schema if exists dbtest_race cascade');
    const raceOptions = {
      ...options,
      schema: 'dbtest_race',
      migrations: [{ name: 'CreateNotes', class: CreateNotesIn('dbtest_race') }],
    };
    // Separate pools, as separate processes would have.
    const others = await Promise.all([1, 2, 3].map(() => openDatabase({ url: db.url })));
    await Promise.all(others.map((other) => openServiceOrm(other, raceOptions)));
    const applied = await db.knex.raw('select name from dbtest_race.mikro_orm_migrations');
    expect(applied.rows).toHaveLength(1);
    await db.knex.raw('drop schema dbtest_race cascade');
    await Promise.all(others.map((other) => other.close()));
    await db.close();
  });
});

function CreateNotesIn(schema: string) {
  return class extends Migration {
    override async up(): Promise<void> {
      this.addSql(`create table "${schema}"."notes" ("id" text primary key, "amount" bigint not null);`);
    }
  };
}
