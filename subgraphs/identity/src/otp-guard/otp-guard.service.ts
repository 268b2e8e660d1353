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
      await tx.nativeDelete(OtpAttemptEntity, { bankHandle, customerRef, takenAt: { $lt: since } });
      // A guess already held (a double submit, a retry after a lost answer) is no new guess.
      const same = await tx.findOne(OtpAttemptEntity, { bankHandle, customerRef, guess }, { fields: ['id'] });
      if (same) return { attemptId: same.id, retryAfterSeconds: null };
      const held = await tx.find(OtpAttemptEntity, { bankHandle, customerRef }, { orderBy: { takenAt: 'desc' }, limit: OTP_GUARD_MAX_REFUSALS, fields: ['takenAt'] });
      if (held.length >= OTP_GUARD_MAX_REFUSALS) {
        // Open again when the oldest of the last MAX leaves the window.
        const reopensAt = held[OTP_GUARD_MAX_REFUSALS - 1]!.takenAt.getTime() + OTP_GUARD_WINDOW_MS;
        return { attemptId: null, retryAfterSeconds: Math.max(1, Math.ceil((reopensAt - now.getTime()) / 1000)) };
      }
      const id = newId('otpAttempt');
      await tx.insert(OtpAttemptEntity, { id, bankHandle, customerRef, guess, takenAt: now });
      return { attemptId: id, retryAfterSeconds: null };
    });
  }

  /** The bank accepted the OTP (or never judged it): the check does not count against the customer. */
  async giveBack(em: EntityManager, attemptId: string): Promise<void> {
    await em.nativeDelete(OtpAttemptEntity, { id: attemptId });
  }
}
