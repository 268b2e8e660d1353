import { randomInt } from 'node:crypto';
import type { Logger } from '@gateway/kernel';
import { BankError } from '../errors';
import type { MovementBook } from '../ledger/movements';
import type { SandboxTransaction } from '../ledger/views';
import type { GatewayLink } from './gateway-link';

export interface DelayRange {
  min: number;
  max: number;
}

const ATTEMPTS = 5;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/**
 * Sends the credit-confirmed callback for rail credits, after a delay that imitates the transfer
 * rail, without holding up the credit's own answer. Retries an unreachable or failing (5xx, 429)
 * gateway with exponential backoff; a 4xx is final. The state is kept on the transaction row, so
 * confirmations still PENDING when the bank stops are sent after its next start (or as soon as
 * the gateway is configured).
 */
export class CreditConfirmations {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<string>();
  private readonly abort = new AbortController();

  constructor(
    private readonly movements: MovementBook,
    private readonly gateway: GatewayLink,
    private readonly delay: DelayRange,
    private readonly logger: Logger,
  ) {}

  schedule(transaction: SandboxTransaction, delayMs = randomDelay(this.delay)): void {
    if (this.abort.signal.aborted || this.inFlight.has(transaction.transactionId)) return;
    this.inFlight.add(transaction.transactionId);
    this.later(delayMs, () => this.attempt(transaction, 1));
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
      outcome = answer.status < 300 ? 'CONFIRMED' : answer.status >= 500 || answer.status === 429 ? 'RETRY' : 'REJECTED';
      this.logger.info({ ...log, status: answer.status }, 'credit-confirmed sent');
    } catch (error) {
      if (this.abort.signal.aborted) return;
      outcome = 'RETRY';
      this.logger.warn({ ...log, reason: error instanceof BankError ? error.message : String(error) }, 'credit-confirmed failed');
    }
    if (outcome === 'RETRY' && attempt < ATTEMPTS) {
      await this.movements.recordConfirmation(transaction.transactionId, 'PENDING', attempt);
      const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
      this.later(randomInt(backoff / 2, backoff + 1), () => this.attempt(transaction, attempt + 1));
      return;
    }
    this.inFlight.delete(transaction.transactionId);
    await this.movements.recordConfirmation(transaction.transactionId, outcome === 'RETRY' ? 'FAILED' : outcome, attempt);
  }
}

function randomDelay({ min, max }: DelayRange): number {
  return min >= max ? min : randomInt(min, max + 1);
}
