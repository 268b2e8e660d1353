import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { ID_PREFIX, newId, type IdKind } from '@gateway/kernel';
import type { RecordedStatement } from './statement-recorder';

/** A statement's text without literal values or parameters, so the same statement of two payments is one shape. */
export const shapeOf = (text: string): string =>
  text
    .replace(/\s+/g, ' ')
    .replace(/'[^']*'/g, "'…'")
    .replace(/\b\d+\b/g, 'N')
    .trim();

/**
 * The statements of one payment without the jobs' polling: for each transaction (or lone
 * statement) the quiet recording (`idle`, of the same length) holds k times, k of the payment's
 * like it are dropped, those that carry none of the ids the payment made first (a poll that found
 * this payment's rows did its work; the others found nothing). What is left is what the payment
 * itself costs, as bench/statements.ts counts it.
 */
export function withoutPolling(recorded: RecordedStatement[], idle: RecordedStatement[]): RecordedStatement[] {
  const minted = [...mintedIds(recorded)];
  const signature = (unit: RecordedStatement[]) => unit.map((statement) => shapeOf(statement.text)).join('\n');
  const polls = new Map<string, number>();
  for (const unit of units(idle)) polls.set(signature(unit), (polls.get(signature(unit)) ?? 0) + 1);
  const carriesMinted = (unit: RecordedStatement[]) =>
    unit.some((statement) =>
      statement.values.some((value) => value !== null && minted.some((id) => value.includes(id))),
    );
  const kept: RecordedStatement[][] = [];
  const dropped = new Map<string, number>();
  for (const unit of units(recorded)) {
    const key = signature(unit);
    if ((dropped.get(key) ?? 0) < (polls.get(key) ?? 0) && !carriesMinted(unit))
      dropped.set(key, (dropped.get(key) ?? 0) + 1);
    else kept.push(unit);
  }
  return kept.flat();
}

const KIND_OF = new Map(Object.entries(ID_PREFIX).map(([kind, prefix]) => [prefix as string, kind as IdKind]));
/** A platform id, or a secret's hash (a session token's: unique like an id). */
const ID = new RegExp(`\\b(?:(?:${Object.values(ID_PREFIX).join('|')})_[0-9A-Za-z]{24}|[0-9a-f]{64})\\b`, 'g');
/** Kinds a payment refers to but never makes: the merchant, the aliases, admin keys, consents, mandates. */
const STANDING = new Set<string>(
  (
    [
      'merchant',
      'alias',
      'tpp',
      'adminKey',
      'consent',
      'account',
      'accessToken',
      'refreshToken',
      'grant',
      'mandate',
      'settlementCycle',
    ] as const
  ).map((kind) => ID_PREFIX[kind]),
);

/** The ids in a statement, its text (the ORM writes many values into it) and its parameters. */
const idsIn = (statement: RecordedStatement): string[] =>
  [statement.text, ...statement.values].flatMap((value) => value?.match(ID) ?? []);

/**
 * Ids that appear first in a statement that inserts (a session, its events, movements, deliveries),
 * of a kind a payment makes: the rows the payment made, given fresh ids on each replay.
 */
export function mintedIds(recorded: RecordedStatement[]): Set<string> {
  const seen = new Set<string>();
  const minted = new Set<string>();
  for (const statement of recorded) {
    const inserting = /\binsert\s+into\b/i.test(statement.text);
    for (const id of idsIn(statement)) {
      if (!seen.has(id) && inserting && !STANDING.has(id.slice(0, id.indexOf('_')))) minted.add(id);
      seen.add(id);
    }
  }
  return minted;
}

/**
 * Transactions and lone statements in the order they began: what one connection sent between
 * BEGIN and COMMIT (or ROLLBACK) is one unit, sent again on one connection.
 */
export function units(recorded: RecordedStatement[]): RecordedStatement[][] {
  const open = new Map<number, RecordedStatement[]>();
  const out: RecordedStatement[][] = [];
  for (const statement of recorded) {
    const text = statement.text.trim().toUpperCase();
    const current = open.get(statement.connection);
    if (current) {
      current.push(statement);
      if (text.startsWith('COMMIT') || text.startsWith('ROLLBACK')) open.delete(statement.connection);
    } else if (text.startsWith('BEGIN') || text.startsWith('START TRANSACTION')) {
      const unit = [statement];
      open.set(statement.connection, unit);
      out.push(unit);
    } else out.push([statement]);
  }
  return out;
}

/** Runs one replayed statement on its connection (`run`), observing it. */
export type StatementProbe = (connection: object, shape: string, run: () => Promise<unknown>) => Promise<unknown>;

/**
 * One payment's statements sent again on `knex`'s pool, unit by unit, each on one connection: the
 * ids the recorded payment made are replaced by fresh ones of the same kind (a new session, new
 * events), so each replay writes rows of its own, as each payment does, and the payer's values by
 * the replaying worker's payer (the platform's 50 clients pay from 50 accounts, not one row).
 */
export function replayer(
  knex: Knex,
  recorded: RecordedStatement[],
  /** Milliseconds each statement took (waiting for a connection included), summed by shape. */
  spent = new Map<string, number>(),
  /** When given, each statement is run through it (bench/attribution.ts reads its backend's CPU around it). */
  around?: StatementProbe,
): (replaced?: Array<[string, string]>) => Promise<void> {
  const minted = [...mintedIds(recorded)];
  const pattern = minted.length
    ? new RegExp(minted.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')
    : null;
  // A LISTEN would stay on the pooled connection it was sent on: the platform's notification channel, not a payment's work.
  const plan = units(recorded.filter((statement) => !/^\s*(UN)?LISTEN\b/i.test(statement.text)));
  // `replaced`: values of the recorded payment to say otherwise in this one (its payer's alias, IBAN, customer).
  return async (replaced = []) => {
    const fresh = new Map(
      minted.map((id) => [
        id,
        id.includes('_') ? newId(KIND_OF.get(id.slice(0, id.indexOf('_')))!) : randomBytes(32).toString('hex'),
      ]),
    );
    const remap = (value: string | null) => {
      if (value === null) return value;
      let out = pattern ? value.replace(pattern, (id) => fresh.get(id)!) : value;
      for (const [from, to] of replaced) out = out.split(from).join(to);
      return out;
    };
    for (const unit of plan) {
      let t0 = performance.now();
      const connection = (await knex.client.acquireConnection()) as {
        query: (text: string, values: unknown[]) => Promise<unknown>;
      };
      try {
        for (const statement of unit) {
          const run = () => connection.query(remap(statement.text)!, statement.values.map(remap));
          await (around ? around(connection, shapeOf(statement.text), run) : run());
          const shape = shapeOf(statement.text).slice(0, 100);
          spent.set(shape, (spent.get(shape) ?? 0) + performance.now() - t0);
          t0 = performance.now();
        }
      } catch (error) {
        if (unit.length > 1) await connection.query('ROLLBACK', []).catch(() => undefined);
        throw error;
      } finally {
        await knex.client.releaseConnection(connection);
      }
    }
  };
}
