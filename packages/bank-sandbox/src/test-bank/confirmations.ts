import type { Logger } from '@gateway/kernel';
import { CreditConfirmations, DEFAULT_CONFIRMATION_RETRY, type DelayRange } from '../gateway/confirmations';
import type { SandboxTransaction } from '../ledger/views';
import { inProcessLink, type ConfirmCredit } from './confirm-link';
import type { TestLedger } from './ledger';
import { testPayerByIban } from './payers';

/** Is this the payment of a late-confirm test payer (one of the IBANs its reference was debited from)? */
const isLateConfirm = (debitedIbans: string[]): boolean =>
  debitedIbans.some((iban) => testPayerByIban(iban)?.behaviour === 'late-confirm');

/**
 * The test bank's credit-confirmed callbacks: the sandbox's CreditConfirmations (state on the
 * transaction row, retries with backoff for hours) per handle, sent to the gateway in process.
 */
export class TestBankConfirmations {
  private readonly perHandle = new Map<string, CreditConfirmations>();

  constructor(
    private readonly ledger: TestLedger,
    private readonly confirm: ConfirmCredit,
    private readonly delay: DelayRange,
    private readonly lateDelayMs: number,
    private readonly logger: Logger,
    private readonly clock: () => Date,
  ) {}

  /**
   * Starts confirming a handle's rail credits, first those its ledger still has PENDING (booked before
   * a restart). Another process with a test bank on the same database may send one of those too: the
   * gateway deduplicates credit-confirmed by payment_reference.
   */
  register(handle: string): void {
    if (this.perHandle.has(handle)) return;
    const confirmations = new CreditConfirmations(
      this.ledger.of(handle).movements,
      inProcessLink(handle, this.confirm),
      this.delay,
      this.logger,
      DEFAULT_CONFIRMATION_RETRY,
      this.clock,
    );
    this.perHandle.set(handle, confirmations);
    this.resume(handle, confirmations).catch((error) =>
      this.logger.error({ err: error, bank_handle: handle }, 'test bank: pending confirmations not resumed'),
    );
  }

  /** A rail credit just booked: confirmed after the rail's delay, or after lateDelayMs for a late-confirm payer's payment. */
  schedule(handle: string, transaction: SandboxTransaction, debitedIbans: string[]): void {
    this.perHandle.get(handle)?.schedule(transaction, isLateConfirm(debitedIbans) ? this.lateDelayMs : undefined);
  }

  stop(): void {
    for (const confirmations of this.perHandle.values()) confirmations.stop();
  }

  private async resume(handle: string, confirmations: CreditConfirmations): Promise<void> {
    for (const transaction of await this.ledger.of(handle).movements.pendingConfirmations()) {
      // A late confirmation stays late across a restart: due lateDelayMs after its booking.
      const late = isLateConfirm(await this.ledger.debitedIbans(transaction.reference));
      confirmations.schedule(
        transaction,
        late ? Math.max(0, transaction.bookedAt.getTime() + this.lateDelayMs - this.clock().getTime()) : 0,
      );
    }
  }
}
