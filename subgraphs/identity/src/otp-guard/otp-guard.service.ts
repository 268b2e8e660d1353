import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '@gateway/kernel';
import { OtpAttemptEntity } from './otp-attempt.entity';

/** Refused OTPs one customer may have in a window, across every session, consent and mandate. */
export const OTP_GUARD_MAX_REFUSALS = 5;
export const OTP_GUARD_WINDOW_MS = 15 * 60_000;

export interface OtpAttemptVerdict {
  /** Set when the check may go ahead: give it back with `accepted` once the bank has answered. */
  attemptId: string | null;
  /** Seconds until the customer may try again, when refused. */
  retryAfterSeconds: number | null;
}

/**
 * Limits OTP guesses per customer, not only per session: three wrong OTPs fail a session, but a
 * merchant (or TPP) could open new ones and keep guessing. Each check is taken before the bank is
 * asked (a lock per customer makes concurrent takes count one by one), so a burst of parallel
 * guesses cannot all pass before the first refusal is counted; a check the bank accepted is given
 * back, one it refused stays for the window. The same guess again while it is held is the same
 * check (its id is answered again): a double submit is no second guess.
 */
export class OtpGuardService {
  constructor(private readonly clock: () => Date = () => new Date()) {}

  async take(em: EntityManager, bankHandle: string, customerRef: string, guess: string): Promise<OtpAttemptVerdict> {
    const now = this.clock();
    const since = new Date(now.getTime() - OTP_GUARD_WINDOW_MS);
    return em.transactional(async (tx) => {
      await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`identity:otp:${bankHandle}:${customerRef}`]);
      // One statement under the customer's lock (each check is on the payment path): drop what
      // left the window, find the same guess held (a double submit, a retry after a lost answer:
      // no new guess), read the last MAX held checks, and take a new one when neither stops it.
      // The parts share one snapshot, so each reads only rows inside the window.
      const [verdict] = await tx.execute<Array<{ same_id: string | null; new_id: string | null; held: number; oldest: Date | string | null }>>(
        `with purge as (delete from identity.otp_attempts where bank_handle = ? and customer_ref = ? and taken_at < ?),
           same as (select id from identity.otp_attempts where bank_handle = ? and customer_ref = ? and guess = ? and taken_at >= ? limit 1),
           held as (select taken_at from identity.otp_attempts where bank_handle = ? and customer_ref = ? and taken_at >= ? order by taken_at desc limit ?),
           taken as (insert into identity.otp_attempts (id, bank_handle, customer_ref, guess, taken_at)
             select ?, ?, ?, ?, ? where not exists (select 1 from same) and (select count(*) from held) < ? returning id)
         select (select id from same) as same_id, (select id from taken) as new_id, (select count(*)::int from held) as held, (select min(taken_at) from held) as oldest`,
        [
          ...[bankHandle, customerRef, since],
          ...[bankHandle, customerRef, guess, since],
          ...[bankHandle, customerRef, since, OTP_GUARD_MAX_REFUSALS],
          ...[newId('otpAttempt'), bankHandle, customerRef, guess, now, OTP_GUARD_MAX_REFUSALS],
        ],
      );
      const attemptId = verdict?.same_id ?? verdict?.new_id ?? null;
      if (attemptId) return { attemptId, retryAfterSeconds: null };
      // Open again when the oldest of the last MAX leaves the window.
      const reopensAt = new Date(verdict!.oldest!).getTime() + OTP_GUARD_WINDOW_MS;
      return { attemptId: null, retryAfterSeconds: Math.max(1, Math.ceil((reopensAt - now.getTime()) / 1000)) };
    });
  }

  /** The bank accepted the OTP (or never judged it): the check does not count against the customer. */
  async giveBack(em: EntityManager, attemptId: string): Promise<void> {
    await em.nativeDelete(OtpAttemptEntity, { id: attemptId });
  }
}
