import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '@gateway/kernel';
import type { HeldOtpCheck } from './otp-guard.entity';

/** Refused OTPs one client (an address, an IPv6 /64) may have for a customer in a window, across every session, consent and mandate. */
export const OTP_GUARD_MAX_REFUSALS = 5;
export const OTP_GUARD_WINDOW_MS = 15 * 60_000;
/**
 * Refused OTPs a customer may have from all clients together in a short window: many times what
 * one client may have, so only guesses from many addresses at once (which an attacker cannot make
 * for free) reach it, and it holds the customer back minutes, not a quarter of an hour.
 */
export const OTP_GUARD_CUSTOMER_MAX_REFUSALS = 30;
export const OTP_GUARD_CUSTOMER_WINDOW_MS = 5 * 60_000;

/** A check to give back: the customer as given to take, and the check's id. */
export interface OtpSettlement {
  bankHandle: string;
  customerRef: string;
  attemptId: string;
}

/** Checks given back by one call at most (a batch of a busy instance's last moments). */
export const OTP_SETTLEMENTS_MAX = 500;

export type OtpAttemptVerdict =
  | {
      /** The check may go ahead: give it back (giveBack) when the bank accepts the OTP or never judges it. */
      attemptId: string;
      retryAfterSeconds: null;
      /**
       * The guess was already held (a double submit, a retry): this is the earlier call's check, and
       * only a caller that judges the guess may give it back (one that stops before the bank would
       * otherwise erase a refusal the earlier call kept).
       */
      repeated: boolean;
    }
  | {
      attemptId: null;
      /** Seconds until the customer may try again. */
      retryAfterSeconds: number;
      repeated?: undefined;
    };

/** A routing row of identity.aliases, as one SELECT the payer's take reads it with (alias.service.ts routingRowQuery). */
export interface AliasRowQuery {
  sql: string;
  params: unknown[];
}

/**
 * Limits OTP guesses per customer and client, not only per session: three wrong OTPs fail a
 * session, but a merchant (or TPP) could open new ones and keep guessing. The limit counts per
 * client first (OTP_GUARD_MAX_REFUSALS): wrong OTPs sent for a customer from one address, with no
 * credential (checkout is public), lock that address out for that customer, never the customer
 * paying from their own; only a burst from many addresses (OTP_GUARD_CUSTOMER_MAX_REFUSALS) holds
 * the customer back, briefly. Each check is taken before the bank is
 * asked, so a burst of parallel guesses cannot all pass before the first refusal is counted; a
 * check the bank accepted is given back, one it refused stays for the window. The same guess
 * again while it is held is the same check (its id is answered again): a double submit is no
 * second guess.
 *
 * A customer's held checks are one row of identity.otp_guards (OtpGuardEntity), so that both
 * take and giveBack are one statement each on the payment path, with no transaction around them:
 * the row lock of that statement is what makes concurrent checks of one customer count one by one.
 * A payer's take (takeForPayer) reads the payer's alias in that same statement. The give-backs a
 * take carries ride in its statement too, other customers' included (CARRIED_GIVE_BACKS).
 */
export class OtpGuardService {
  constructor(private readonly clock: () => Date = () => new Date()) {}

  /**
   * Takes a check for a customer; `settle`: checks the caller gives back with it (riding on this
   * call). They are given back in the take's own statement (issue 32): the customer's own in the
   * same row, other customers' only if nobody holds their row (CARRIED_GIVE_BACKS); `settled` answers
   * which were, and the caller sends the others again.
   */
  async take(
    em: EntityManager,
    bankHandle: string,
    customerRef: string,
    guess: string,
    client: string,
    settle: readonly OtpSettlement[] = [],
  ): Promise<OtpAttemptVerdict & { settled?: string[] }> {
    const now = this.clock().getTime();
    const check = newCheck(guess, now, client);
    const upsert = `insert into identity.otp_guards as guard (bank_handle, customer_ref, attempts)
         values (?, ?, ${NEW_CHECK})
       ${TAKE_ON_CONFLICT}
       returning bank_handle, customer_ref, attempts`;
    const params = [bankHandle, customerRef, ...check.params, ...takeLimits(now, settle)];
    if (settle.every((given) => sameCustomer(given, bankHandle, customerRef))) {
      // Only the taker's own (or none): its row alone, the plain upsert, every one given back.
      const [row] = await em.execute<Array<{ attempts: HeldOtpCheck[] }>>(upsert, params);
      const verdict = verdictOf(row!.attempts, check, client, now);
      return settle.length === 0 ? verdict : { ...verdict, settled: settle.map((given) => given.attemptId) };
    }
    const [row] = await em.execute<Array<{ attempts: HeldOtpCheck[]; settled: SettledKeys }>>(
      `with taken as (${upsert}), ${CARRIED_GIVE_BACKS(settle, '')}
       select (select attempts from taken) as attempts, ${SETTLED_KEYS} as settled`,
      [...params, ...carriedValues(settle)],
    );
    return { ...verdictOf(row!.attempts, check, client, now), settled: settledOf(settle, row!.settled) };
  }

  /**
   * A payer's take: the alias row `payer` finds (alias.service.ts routingRowQuery) and, when it is
   * ACTIVE, a check taken for the customer that row names (its bank and `keyPrefix` +
   * bank_customer_ref), in one statement. The check's customer is the one resolved, never one the
   * caller names, so no caller can take a check for one customer while routing another. Null: no
   * such alias (nothing taken, nothing given back); `verdict` null: the alias is INACTIVE, nothing
   * taken. `settle`, as for take: given back in the same statement, the payer's own in their row,
   * the others' when nobody holds theirs; `settled` answers which.
   */
  async takeForPayer(
    em: EntityManager,
    payer: AliasRowQuery,
    keyPrefix: string,
    guess: string,
    client: string,
    settle: readonly OtpSettlement[] = [],
  ): Promise<{ alias: Record<string, unknown>; verdict: OtpAttemptVerdict | null; settled: string[] } | null> {
    const now = this.clock().getTime();
    const check = newCheck(guess, now, client);
    const carrying = settle.length > 0;
    type Row = Record<string, unknown> & { taken_attempts: HeldOtpCheck[] | null; settled_keys?: SettledKeys };
    const [row] = await em.execute<Row[]>(
      `with payer as (${payer.sql}),
       taken as (
         insert into identity.otp_guards as guard (bank_handle, customer_ref, attempts)
           select payer.bank_handle, ?::text || payer.bank_customer_ref, ${NEW_CHECK}
           from payer where payer.status = 'ACTIVE'
         ${TAKE_ON_CONFLICT}
         returning bank_handle, customer_ref, attempts)${
           // No payer row: the call fails (ALIAS_NOT_FOUND) and the caller keeps its give-backs, so none is applied.
           carrying ? `, ${CARRIED_GIVE_BACKS(settle, 'and exists (select 1 from payer)')}` : ''
         }
       select payer.*, (select attempts from taken) as taken_attempts${
         carrying ? `, ${SETTLED_KEYS} as settled_keys` : ''
       } from payer`,
      [...payer.params, keyPrefix, ...check.params, ...takeLimits(now, settle), ...carriedValues(settle)],
    );
    if (!row) return null;
    const { taken_attempts: held, settled_keys: settledKeys, ...alias } = row;
    return {
      alias,
      verdict: held ? verdictOf(held, check, client, now) : null,
      settled: settledOf(settle, settledKeys ?? []),
    };
  }

  /**
   * The bank accepted these OTPs (or never judged them): the checks do not count against their
   * customers. One UPDATE, however many checks and customers: each customer's row (found by its
   * key) waits for a concurrent take and loses the checks from its latest version, so neither
   * write is lost. Unknown ids change nothing. This is the batch a client sends when no take carried
   * its give-backs in time; it may wait for a take's row, never the reverse (a take skips the rows
   * others hold, and waits for its own holding none), so the two never wait on each other.
   */
  async giveBack(em: EntityManager, settlements: readonly OtpSettlement[]): Promise<void> {
    if (settlements.length === 0) return;
    const values = settlements.map(() => '(?::text, ?::text, ?::text)').join(', ');
    await em.execute(
      `update identity.otp_guards as guard set attempts = (
           select coalesce(jsonb_agg(entry order by position), '[]'::jsonb)
           from jsonb_array_elements(guard.attempts) with ordinality as checks(entry, position)
           where not (entry ->> 'id' = any(given.ids)))
         from (select bank_handle, customer_ref, array_agg(attempt_id) as ids
           from (values ${values}) as settled(bank_handle, customer_ref, attempt_id)
           group by bank_handle, customer_ref) as given
         where guard.bank_handle = given.bank_handle and guard.customer_ref = given.customer_ref`,
      settlements.flatMap((settlement) => [settlement.bankHandle, settlement.customerRef, settlement.attemptId]),
    );
  }
}

/** The check a take appends: its id, the guess, when and from whom (the VALUES of NEW_CHECK). */
function newCheck(guess: string, now: number, client: string) {
  const id = newId('otpAttempt');
  return { id, guess, params: [id, guess, now, client] };
}

/**
 * A customer's held checks as one jsonb array holding the new check alone (NEW_CHECK), and what
 * a take does when the customer already has a row (TAKE_ON_CONFLICT, with takeLimits' values).
 * A customer's first check inserts their row with the new check alone. Later ones conflict:
 * PostgreSQL then locks the row and computes the SET from its latest committed version (a
 * concurrent take waits for ours and sees our check), so no advisory lock is needed. The SET reads
 * only that row (never the table, whose snapshot would be stale): it drops the checks that left the
 * window and those the take gives back for this customer (its settle list: given back before the
 * new guess is judged, as a giveBack statement before it would); keeps the array as it is when the same guess is held (a double submit, a retry after a
 * lost answer: no new guess) or MAX are held; else appends the new check (`excluded.attempts`, the
 * proposed row's one entry). The caller reads the verdict from the row it gets back. Checks kept
 * before clients were recorded count as client 'unknown'.
 */
const NEW_CHECK = `jsonb_build_array(jsonb_build_object('id', ?::text, 'guess', ?::text, 'taken_at', ?::bigint, 'client', ?::text))`;
const TAKE_ON_CONFLICT = `on conflict (bank_handle, customer_ref) do update set attempts = (
         select case
             when held @> jsonb_build_array(jsonb_build_object('guess', excluded.attempts -> 0 -> 'guess')) then held
             when (select count(*) from jsonb_array_elements(held) as mine(entry)
                   where coalesce(entry ->> 'client', 'unknown') = excluded.attempts -> 0 ->> 'client') >= ? then held
             when (select count(*) from jsonb_array_elements(held) as recent(entry)
                   where (entry ->> 'taken_at')::bigint >= ?) >= ? then held
             else held || excluded.attempts
           end
         from (select coalesce(jsonb_agg(entry order by position), '[]'::jsonb) as held
           from jsonb_array_elements(guard.attempts) with ordinality as checks(entry, position)
           where (entry ->> 'taken_at')::bigint >= ?
             and not (entry ->> 'id' = any(coalesce((select array_agg(given.attempt_id)
               from jsonb_to_recordset(?::jsonb) as given(bank_handle text, customer_ref text, attempt_id text)
               where given.bank_handle = guard.bank_handle and given.customer_ref = guard.customer_ref), '{}'::text[])))
         ) as window_checks)`;
/** TAKE_ON_CONFLICT's values; `settle`: the checks given back with the take (only the taker's own apply in it). */
const takeLimits = (now: number, settle: readonly OtpSettlement[]) => [
  OTP_GUARD_MAX_REFUSALS,
  now - OTP_GUARD_CUSTOMER_WINDOW_MS,
  OTP_GUARD_CUSTOMER_MAX_REFUSALS,
  now - OTP_GUARD_WINDOW_MS,
  JSON.stringify(
    settle.map((given) => ({
      bank_handle: given.bankHandle,
      customer_ref: given.customerRef,
      attempt_id: given.attemptId,
    })),
  ),
];

/**
 * The give-backs a take carries, applied in the take's statement (issue 32: no statement of their
 * own), after a CTE `taken` (the take, answering its row's key) and with `when` (a condition for
 * applying any); its values: carriedValues. `carried`: the checks by customer (VALUES, whose row
 * count the planner knows: it reads their rows by key, never the whole table); `given_back`: the
 * rows that lost them.
 *
 * Why no deadlock: a take waits for one row only, its customer's, and it waits there before it
 * holds any (reading `taken` runs the take, and every other row is locked only after that, by the
 * anti-join on `taken` below the lock). Other customers' rows are locked `for update skip locked`:
 * one another call holds (its take, a batch) is skipped, never waited for, so two takes carrying
 * each other's give-backs both finish. A skipped one is not in the answer (SETTLED_KEYS), and the
 * caller sends it again (on its next take, or in its batch). The taker's own row is left to `taken`
 * (one statement must not update a row twice). The SET reads the row's latest version (a row that
 * changed since the statement began is read again once locked), so no concurrent write is lost.
 */
const CARRIED_GIVE_BACKS = (settle: readonly OtpSettlement[], when: string) => `carried as (
         select bank_handle, customer_ref, array_agg(attempt_id) as ids
         from (values ${settle.map(() => '(?::text, ?::text, ?::text)').join(', ')}) as given(bank_handle, customer_ref, attempt_id)
         group by bank_handle, customer_ref),
       given_back as (
         update identity.otp_guards as guard set attempts = (
             select coalesce(jsonb_agg(entry order by position), '[]'::jsonb)
             from jsonb_array_elements(guard.attempts) with ordinality as checks(entry, position)
             where not (entry ->> 'id' = any(free.ids)))
         from (select locked.bank_handle, locked.customer_ref, carried.ids
             from carried join identity.otp_guards as locked
               on locked.bank_handle = carried.bank_handle and locked.customer_ref = carried.customer_ref
             where not exists (select 1 from taken
                 where taken.bank_handle = carried.bank_handle and taken.customer_ref = carried.customer_ref)
               ${when}
             for update of locked skip locked) as free
         where guard.bank_handle = free.bank_handle and guard.customer_ref = free.customer_ref
         returning guard.bank_handle, guard.customer_ref)`;

const carriedValues = (settle: readonly OtpSettlement[]) =>
  settle.flatMap((given) => [given.bankHandle, given.customerRef, given.attemptId]);

/**
 * The customers whose carried checks the statement gave back: the taker's (in `taken`), the rows
 * of `given_back`, and any with no row at all (nothing to give back: never sent again).
 */
const SETTLED_KEYS = `(select coalesce(jsonb_agg(jsonb_build_array(bank_handle, customer_ref)), '[]'::jsonb) from (
           select bank_handle, customer_ref from taken
           union all select bank_handle, customer_ref from given_back
           union all select bank_handle, customer_ref from carried where not exists (
             select 1 from identity.otp_guards as kept
             where kept.bank_handle = carried.bank_handle and kept.customer_ref = carried.customer_ref)
         ) as settled)`;
type SettledKeys = Array<[bankHandle: string, customerRef: string]>;

/** The ids of `settle` whose customers SETTLED_KEYS names. */
function settledOf(settle: readonly OtpSettlement[], keys: SettledKeys): string[] {
  const settled = new Set(keys.map((key) => JSON.stringify(key)));
  return settle
    .filter((given) => settled.has(JSON.stringify([given.bankHandle, given.customerRef])))
    .map((given) => given.attemptId);
}

const sameCustomer = (given: OtpSettlement, bankHandle: string, customerRef: string) =>
  given.bankHandle === bankHandle && given.customerRef === customerRef;

/** The verdict on a take, read from the customer's checks as the take left them. */
function verdictOf(
  held: HeldOtpCheck[],
  check: { id: string; guess: string },
  client: string,
  now: number,
): OtpAttemptVerdict {
  // Our guess in the row: either the check it already was, or the one just appended.
  const taken = held.find((entry) => entry.guess === check.guess);
  if (taken) return { attemptId: taken.id, retryAfterSeconds: null, repeated: taken.id !== check.id };
  const takenAt = (checks: HeldOtpCheck[]) => checks.map((entry) => Number(entry.taken_at)).sort((a, b) => b - a);
  // Refused for this client: open again when the oldest of its last MAX leaves the window.
  const mine = takenAt(held.filter((entry) => (entry.client ?? 'unknown') === client));
  if (mine.length >= OTP_GUARD_MAX_REFUSALS)
    return refusedUntil(mine[OTP_GUARD_MAX_REFUSALS - 1]! + OTP_GUARD_WINDOW_MS, now);
  // Refused for the customer: open again when the oldest of the last CUSTOMER_MAX leaves the short window.
  return refusedUntil(takenAt(held)[OTP_GUARD_CUSTOMER_MAX_REFUSALS - 1]! + OTP_GUARD_CUSTOMER_WINDOW_MS, now);
}

function refusedUntil(reopensAt: number, now: number): OtpAttemptVerdict {
  return { attemptId: null, retryAfterSeconds: Math.max(1, Math.ceil((reopensAt - now) / 1000)) };
}
