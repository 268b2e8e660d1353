import type { EntityManager } from '@mikro-orm/postgresql';

/** A statement's parts, count columns and values, its names carrying a prefix (OneStatement.composed). */
export interface Composed {
  ctes: string;
  columns: string;
  bindings: unknown[];
}

/** What the batch needs of a OneStatement of inserts alone. */
export interface Batchable {
  composed(prefix: string): Composed;
  answer(row: Record<string, unknown>, prefix: string): Record<string, number>;
  runAlone(): Promise<Record<string, number>>;
}

interface Waiting {
  statement: Batchable;
  resolve(counts: Record<string, number>): void;
  reject(error: unknown): void;
}

/**
 * How many statements go in one: powers of two up to 16 (13 waiting: 8, 4 and 1). Each size is a
 * text of its own, prepared on every pooled connection, and PostgreSQL plans a prepared statement
 * anew for each of its first five runs on a connection before it settles on one plan: with every
 * size from 2 to 16, a fresh process spent twice the PostgreSQL CPU a session for its first
 * seconds of load. A larger batch saves little more.
 */
const SIZES = [16, 8, 4, 2, 1];

/**
 * OneStatements of inserts alone (a session created with its first event), sent outside a
 * transaction in the same turn of the event loop, go as ONE statement: their parts side by side,
 * each statement's relations and count columns prefixed. Why (issue 53): under load many requests
 * create rows in the same turn, and each statement is a round trip, a bind and a commit on both
 * sides; for inserts that depend on nothing, one statement of several is as correct as several.
 *
 * Only statements of the same text go together, so a batch's text is one of few (per shape and
 * size) and planned once. Inserts alone cannot touch the same row twice in one statement (what
 * PostgreSQL leaves undefined for updates), and they read nothing: each statement's answer is what
 * it would have been alone. One statement of the batch that fails (a key taken, a check refused)
 * fails them all, written nothing: each is then sent alone, and answers its own outcome.
 */
export class StatementBatch {
  private waiting = new Map<string, Waiting[]>();
  private scheduled = false;

  constructor(private readonly em: EntityManager) {}

  run(statement: Batchable): Promise<Record<string, number>> {
    return new Promise((resolve, reject) => {
      const shape = statement.composed('');
      const key = `${shape.ctes}\n${shape.columns}`;
      const same = this.waiting.get(key);
      if (same) same.push({ statement, resolve, reject });
      else this.waiting.set(key, [{ statement, resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        // After the turn's I/O callbacks: the requests read in this turn have all reached their insert.
        setImmediate(() => this.send());
      }
    });
  }

  private send(): void {
    const groups = [...this.waiting.values()];
    this.waiting = new Map();
    this.scheduled = false;
    for (const group of groups)
      for (let at = 0; at < group.length;) {
        const size = SIZES.find((candidate) => candidate <= group.length - at)!;
        void this.sendTogether(group.slice(at, at + size));
        at += size;
      }
  }

  private async sendTogether(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch;
      return only!.statement.runAlone().then(only!.resolve, only!.reject);
    }
    const parts = batch.map(({ statement }, index) => ({ prefix: `b${index}_`, ...statement.composed(`b${index}_`) }));
    const text = `with ${parts.map((part) => part.ctes).join(',\n')}\nselect ${parts.map((part) => part.columns).join(', ')}`;
    let row: Record<string, unknown>;
    try {
      [row = {}] = await this.em.getConnection().execute<Array<Record<string, unknown>>>(
        text,
        parts.flatMap((part) => part.bindings),
        'all',
      );
    } catch {
      // Nothing was written: each statement alone, to answer its own outcome.
      await Promise.all(batch.map(({ statement, resolve, reject }) => statement.runAlone().then(resolve, reject)));
      return;
    }
    batch.forEach(({ statement, resolve }, index) => resolve(statement.answer(row, parts[index]!.prefix)));
  }
}

/** Per ORM (its driver, which every fork shares): the batch of statements waiting for the next turn. */
const batches = new WeakMap<object, StatementBatch>();

export function statementBatchOf(em: EntityManager): StatementBatch {
  const driver = em.getDriver();
  let batch = batches.get(driver);
  if (!batch) {
    batch = new StatementBatch(em.fork());
    batches.set(driver, batch);
  }
  return batch;
}
