import { raw, Utils, type EntityName, type FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { plainLock, plainUpdate, rowOf, tableOf } from './plain-update';
import { statementBatchOf, type Composed } from './statement-batch';

/** What run()'s column of an `answering` part's value ends in (part names are [a-z_]+: no part's count ends so). */
const ANSWER_SUFFIX = '$answer';

/** What a veto part's error message carries before its part's name. */
const VETO_MARKER = 'onestatement_veto:';

/**
 * Several writes sent as ONE SQL statement: data-modifying CTEs, which PostgreSQL applies all or
 * none. Why: a state move written as BEGIN, an UPDATE, an INSERT or three and COMMIT costs five or
 * six round trips, each one CPU on both sides (issue 15: statements per payment); as one statement
 * it is one, and just as atomic. A part may depend on an earlier one (`when`): it writes only if
 * that one changed a row, so a conditional move and the rows that belong to it (its outbox event,
 * the execution it starts) are written together or not at all. `run()` answers how many rows each
 * part changed.
 *
 * What one statement cannot do: read its own writes (every part sees the snapshot the statement
 * started with), so parts must not depend on each other's rows except through `when`; and the
 * ORM's identity map and flush events do not see the writes (callers keep their objects as the
 * rows now are, and wake whoever listens, such as the outbox relay).
 *
 * Columns and values come from the ORM's metadata and conversions (mapDataToFieldNames, the
 * platform's quoting), so the rows are the ones a flush would write.
 */
export class OneStatement {
  private readonly parts: Array<{ name: string; sql: string; bindings: readonly unknown[]; plainInsert?: boolean }> =
    [];
  /** Refusals of the veto parts, by part name: run() throws the one whose part fired. */
  private readonly vetoes = new Map<string, () => Error>();
  /** Parts whose returned column run() answers too (answered()), by part name: the column, then its value once run. */
  private readonly answers = new Map<string, { column: string; value?: string | null }>();
  /** composed('') once composed (a part added later forgets it). */
  private alone?: Composed;

  constructor(private readonly em: EntityManager) {}

  /** Updates the rows of `entity` matching `where` with `changes`, if part `when` changed a row. */
  update<T extends object>(
    name: string,
    entity: EntityName<T>,
    where: FilterQuery<T>,
    changes: Partial<T>,
    when?: string,
  ): this {
    const plain = plainUpdate(this.em, entity, where, changes, when ? this.changed(when) : undefined);
    if (plain) return this.add(name, plain.sql, plain.bindings);
    const qb = this.em
      .createQueryBuilder(entity)
      .update(changes as never)
      .where(where);
    if (when) qb.andWhere(this.changed(when));
    // The ORM adds `returning "column"` when a change is raw SQL (attempts + 1); the part answers its own.
    const { sql, bindings } = qb.getKnexQuery().toSQL();
    return this.add(name, `${sql.replace(/ returning "[\w"., ]+$/, '')} returning 1`, bindings);
  }

  /**
   * Locks the rows of `entity` matching `where` (select … for update) for the rest of the
   * statement: a later part conditional on this one (`when`) writes only if they still match,
   * and nobody moves them meanwhile. (An UPDATE that matched nothing cannot be undone by a later
   * part; a lock taken first makes "all parts or none" hold when two rows must both match.)
   */
  lock<T extends object>(name: string, entity: EntityName<T>, where: FilterQuery<T>): this {
    const plain = plainLock(this.em, entity, where);
    if (plain) return this.add(name, plain.sql, plain.bindings);
    // The query builder refuses a lock mode outside a transaction; the statement is one.
    const qb = this.em.createQueryBuilder(entity).select(raw('1')).where(where);
    const { sql, bindings } = qb.getKnexQuery().toSQL();
    return this.add(name, `${sql} for update`, bindings);
  }

  /**
   * Inserts one row of `entity` (its properties as the ORM maps them), if part `when` changed a row.
   * With `answering`, the inserted row's column of that name (one the database assigns, such as a
   * serial key) is read back: answered(name) after run().
   */
  insert<T extends object>(
    name: string,
    entity: EntityName<T>,
    data: Partial<T>,
    when?: string,
    answering?: string,
  ): this {
    const meta = this.em.getMetadata().get<T>(Utils.className(entity));
    const row = rowOf(this.em, meta, data);
    const columns = Object.keys(row);
    const table = this.tableOf(entity);
    const values = columns.map(() => '?').join(', ');
    const source = when ? `select ${values} where ${this.changed(when)}` : `values (${values})`;
    this.add(
      name,
      `insert into ${table} (${columns.map((column) => `"${column}"`).join(', ')}) ${source} returning ${answering ? `"${answering}"` : '1'}`,
      Object.values(row),
      !when,
    );
    if (answering) this.answers.set(name, { column: answering });
    return this;
  }

  /** The column an `answering` insert read back (as text), or null when the part wrote no row; only after run(). */
  answered(name: string): string | null {
    const answer = this.answers.get(name);
    if (!answer || answer.value === undefined) throw new Error(`OneStatement: part ${name} answers nothing (yet)`);
    return answer.value;
  }

  /** The quoted, schema-qualified table of `entity`, for a part of `sql()` that writes it. */
  tableOf<T extends object>(entity: EntityName<T>): string {
    return tableOf(this.em, this.em.getMetadata().get<T>(Utils.className(entity)));
  }

  /** Any other data-modifying SQL (with `?` bindings), ending in `returning …`, so its rows are counted. */
  sql(name: string, text: string, bindings: readonly unknown[] = []): this {
    return this.add(name, text, bindings);
  }

  /**
   * A part that undoes the whole statement when `condition` (SQL, over earlier parts) holds: run()
   * then throws `refusal()` and nothing of the statement is written. Why: a conditional UPDATE
   * that matched nothing cannot undo the parts before it (a claim already written), and a lock
   * taken first only helps when the part that must hold comes first. An error raised inside the
   * statement aborts all of it, whatever the order. The error is a cast of a marker that names
   * the part; clock_timestamp() keeps the planner from folding (and raising) it ahead of time, so
   * it is raised only when the condition holds.
   */
  veto(name: string, condition: string, refusal: () => Error): this {
    this.add(
      name,
      `select (${this.em.getPlatform().quoteValue(`${VETO_MARKER}${name}:`)} || left(clock_timestamp()::text, 0))::integer as "vetoed" where ${condition}`,
    );
    this.vetoes.set(name, refusal);
    return this;
  }

  /** The rows a part returned, as a relation later parts of `sql()` may select from (its `returning` columns). */
  rows(name: string): string {
    return this.ref(name);
  }

  /** SQL true when part `when` changed a row: the condition of a part of `sql()` that depends on it. */
  changed(when: string): string {
    return `exists (select 1 from ${this.ref(when)})`;
  }

  /**
   * Sends the statement: how many rows each part changed. A statement of inserts alone (no part
   * depends on another), outside a transaction, goes with the others of its shape sent in the
   * same turn of the event loop as one statement (statement-batch.ts); each still answers its own
   * counts, and is written all or none.
   */
  async run(): Promise<Record<string, number>> {
    if (this.parts.length === 0) return {};
    if (!this.em.getTransactionContext() && this.parts.every((part) => part.plainInsert))
      return statementBatchOf(this.em).run(this);
    return this.runAlone();
  }

  /** Sends the statement as a statement of its own. */
  async runAlone(): Promise<Record<string, number>> {
    const { ctes, columns, bindings } = this.composed('');
    const text = `with ${ctes}\nselect ${columns}`;
    try {
      const [row] = await this.em
        .getConnection()
        .execute<Array<Record<string, unknown>>>(text, bindings, 'all', this.em.getTransactionContext());
      return this.answer(row ?? {}, '');
    } catch (error) {
      throw this.vetoOf(error) ?? error;
    }
  }

  /**
   * The statement's parts and the columns that count them, each part's relation and column named
   * with `prefix` (several statements in one: statement-batch.ts). The values stay parameters
   * (the driver binds them): the same text for every payment, planned once.
   */
  composed(prefix: string): Composed {
    if (prefix === '' && this.alone) return this.alone;
    const counts = [
      ...this.parts.map(
        ({ name }) => `(select count(*) from ${this.ref(name, prefix)})::integer as "${prefix}${name}"`,
      ),
      ...[...this.answers].map(
        ([name, { column }]) =>
          `(select "${column}"::text from ${this.ref(name, prefix)} limit 1) as "${prefix}${name}${ANSWER_SUFFIX}"`,
      ),
    ];
    const composed = {
      ctes: this.parts.map(({ name, sql }) => `${this.ref(name, prefix)} as (${sql})`).join(',\n'),
      columns: counts.join(', '),
      bindings: this.parts.flatMap((part) => part.bindings),
    };
    // Composed once alone: the batch groups statements by it, and sends a statement alone with it.
    if (prefix === '') this.alone = composed;
    return composed;
  }

  /** run()'s answer, read from the columns of the statement's row named with `prefix`; the answering parts' values kept. */
  answer(row: Record<string, unknown>, prefix: string): Record<string, number> {
    const answered: Record<string, number> = {};
    for (const { name } of this.parts) answered[name] = row[`${prefix}${name}`] as number;
    for (const [name, answer] of this.answers)
      answer.value = (row[`${prefix}${name}${ANSWER_SUFFIX}`] as string | null | undefined) ?? null;
    return answered;
  }

  /** The refusal of the veto part that raised `error`, if one did. */
  private vetoOf(error: unknown): Error | undefined {
    const message = error instanceof Error ? error.message : String(error);
    const at = message.indexOf(VETO_MARKER);
    if (at < 0) return undefined;
    const name = /^[a-z_]+/.exec(message.slice(at + VETO_MARKER.length))?.[0];
    return name ? this.vetoes.get(name)?.() : undefined;
  }

  private add(name: string, sql: string, bindings: readonly unknown[] = [], plainInsert = false): this {
    if (!/^[a-z_]+$/.test(name) || this.parts.some((part) => part.name === name))
      throw new Error(`OneStatement: part name ${name} must be new and [a-z_]+`);
    this.parts.push({ name, sql, bindings, plainInsert });
    this.alone = undefined;
    return this;
  }

  /**
   * A part's relation. Only the statement's own parts and its count columns carry `prefix`: a
   * part's SQL names another part only through `when`, and a statement with one is never sent
   * with others.
   */
  private ref(name: string, prefix = ''): string {
    if (!this.parts.some((part) => part.name === name))
      throw new Error(`OneStatement: no part ${name} before this one`);
    return `"w_${prefix}${name}"`;
  }
}
