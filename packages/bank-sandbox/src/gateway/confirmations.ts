import { randomInt } from 'node:crypto';
import type { Logger } from '@gateway/kernel';
import { BankError } from '../errors';
import type { MovementBook } from '../ledger/movements';
import type { SandboxTransaction } from '../ledger/views';
import type { GatewayLink } from './gateway-link';

/**
 * Where credit-confirmed goes: the gateway over HTTP (GatewayLink, for the sandbox banks), or the
 * gateway in process (the built-in test bank). A thrown error is retried like an unreachable gateway.
 */
export type ConfirmationLink = Pick<GatewayLink, 'configured' | 'confirmCredit'>;

export interface DelayRange {
  min: number;
  max: number;
}

/** How long and how often a credit-confirmed is retried. */
export interface ConfirmationRetry {
  /** Delay after the first failed attempt; doubles after each one. Default 500 ms. */
  firstDelayMs: number;
  /** Cap on the delay between attempts. Default 60 s. */
  maxDelayMs: number;
  /** Keep trying until this long after the credit was booked, then give up (FAILED). Default 24 h. */
  horizonMs: number;
}

export const DEFAULT_CONFIRMATION_RETRY: ConfirmationRetry = {
  firstDelayMs: 500,
  maxDelayMs: 60_000,
  horizonMs: 24 * 60 * 60 * 1000,
};

/**
 * Sends the credit-confirmed callback for rail credits, after a delay that imitates the transfer
 * rail, without holding up the credit's own answer. Retries an unreachable or failing (5xx, 429)
 * gateway as a real bank does: exponential backoff capped at maxDelayMs, for hours (horizonMs
 * after the booking), since the payment stays unfinished at the gateway until it hears. A 4xx is
 * final. The state is kept on the transaction row, so confirmations still PENDING when the bank
 * stops are sent after its next start (or as soon as the gateway is configured).
 */
export class CreditConfirmations {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<string>();
  private readonly abort = new AbortController();

  constructor(
    private readonly movements: MovementBook,
    private readonly gateway: ConfirmationLink,
    private readonly delay: DelayRange,
    private readonly logger: Logger,
    private readonly retry: ConfirmationRetry = DEFAULT_CONFIRMATION_RETRY,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  schedule(transaction: SandboxTransaction, delayMs = randomDelay(this.delay)): void {
    if (this.abort.signal.aborted || this.inFlight.has(transaction.transactionId)) return;
    this.inFlight.add(transaction.transactionId);
    // After a restart the count goes on from what the row says.
    this.later(delayMs, () => this.attempt(transaction, transaction.confirmationAttempts + 1));
  }

  /** Picks up confirmations left PENDING (a restart, or a gateway configured late). */
  async resume(): Promise<void> {
    if (!this.gateway.configured()) return;
    for (const transaction of await this.movements.pendingConfirmations()) this.schedule(transaction, 0);
  }

  stop(): void {
    this.abort.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private later(ms: number, run: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run().catch((error) => this.logger.error({ err: error }, 'credit confirmation crashed'));
    }, ms);
    this.timers.add(timer);
  }

  private async attempt(transaction: SandboxTransaction, attempt: number): Promise<void> {
    if (this.abort.signal.aborted) return;
    const log = { transaction_id: transaction.transactionId, reference: transaction.reference, attempt };
    if (!this.gateway.configured()) {
      // Stays PENDING; resume() sends it once the gateway is configured.
      this.inFlight.delete(transaction.transactionId);
      this.logger.warn(log, 'rail credit booked but no gateway configured: confirmation left pending');
      return;
    }
    let outcome: 'CONFIRMED' | 'REJECTED' | 'RETRY';
    try {
      const answer = await this.gateway.confirmCredit(
        {
          payment_reference: transaction.reference,
          session_id: transaction.sessionId ?? transaction.reference,
          creditor_iban: transaction.iban,
          amount: transaction.amount,
          currency: transaction.currency,
          rrn: transaction.rrn ?? '',
        },
        this.abort.signal,
      );
      outcome =
        answer.status < 300 ? 'CONFIRMED' : answer.status >= 500 || answer.status === 429 ? 'RETRY' : 'REJECTED';
      this.logger.info({ ...log, status: answer.status }, 'credit-confirmed sent');
    } catch (error) {
      if (this.abort.signal.aborted) return;
      outcome = 'RETRY';
      this.logger.warn(
        { ...log, reason: error instanceof BankError ? error.message : String(error) },
        'credit-confirmed failed',
      );
    }
    const giveUpAt = transaction.bookedAt.getTime() + this.retry.horizonMs;
    if (outcome === 'RETRY' && this.clock().getTime() < giveUpAt) {
      await this.movements.recordConfirmation(transaction.transactionId, 'PENDING', attempt);
      // 2 ** attempt overflows nothing: the exponent stops growing once the cap is reached.
      const backoff = Math.max(
        1,
        Math.min(this.retry.maxDelayMs, this.retry.firstDelayMs * 2 ** Math.min(attempt - 1, 40)),
      );
      const wait = Math.min(
        randomInt(Math.floor(backoff / 2), backoff + 1),
        Math.max(0, giveUpAt - this.clock().getTime()),
      );
      this.later(wait, () => this.attempt(transaction, attempt + 1));
      return;
    }
    if (outcome === 'RETRY') this.logger.error(log, 'credit-confirmed still failing at the retry horizon: given up');
    this.inFlight.delete(transaction.transactionId);
    await this.movements.recordConfirmation(
      transaction.transactionId,
      outcome === 'RETRY' ? 'FAILED' : outcome,
      attempt,
    );
  }
}

function randomDelay({ min, max }: DelayRange): number {
  return min >= max ? min : randomInt(min, max + 1);
}
