import {
  assertSameWorld,
  findBooking,
  type BankCoreClient,
  type BookingEvidence,
  type CoreMovement,
} from '@gateway/bank-core-client';
import { worldOf, type Currency, type ErrorCode, type Logger } from '@gateway/kernel';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { Directory } from '@gateway/federation';
import type { EngineSettings } from './engine.settings';
import type { PaymentExecutionEntity } from './execution.entity';
import { outcomeOf } from './outcome';

/** One movement at one core, as the engine asks for it (the reference makes every call of it the same call). */
export interface MovementCall {
  bank: string;
  /** The moving object's world: it picks the core (a test object's go to test cores only). */
  livemode: boolean;
  iban: string;
  reference: string;
  amount: number;
  currency: Currency;
  direction: 'DEBIT' | 'CREDIT';
  description: string;
}

/**
 * What the settler needs to know of a movement's history: the request it belongs to, whether its
 * last call left the outcome unknown (and how many calls since), and when it started. A payment
 * execution is one; a settlement position is another.
 */
export type MovementProgress = Pick<PaymentExecutionEntity, 'requestId' | 'unknownSince' | 'replays' | 'createdAt'>;

/**
 * What is known about a movement after one more call:
 * - booked: the core booked it (now, or before: a duplicate-reference answer or its statement)
 * - refused: it was surely not booked (a refusal of a first call, or a statement without it)
 * - later: still unknown (or nothing reached the core): call again after the retry delay,
 *   recording `unknown` so the next call counts as a replay
 * - given_up: unknown past the deadline: an operator must decide
 */
export type Settled =
  | { kind: 'booked'; movement: CoreMovement | null }
  | { kind: 'refused'; code: ErrorCode; detail: string }
  | {
      kind: 'later';
      code: ErrorCode;
      detail: string;
      unknown: Pick<PaymentExecutionEntity, 'unknownSince' | 'replays'>;
    }
  | { kind: 'given_up'; detail: string };

/**
 * Establishes the truth of a movement before the engine acts on it. A refusal answered to a
 * replay proves nothing (the first call may have booked and a core's deduplication answers in
 * many ways), and an unusable answer proves nothing either: after `replayLimit` calls, or at once
 * on a refused replay, the core's statement is read for the reference. Money is never credited
 * back unless the statement shows it was taken, and never kept when it shows it was.
 */
export class MovementSettler {
  constructor(
    private readonly directory: Directory,
    private readonly cores: BankCorePool,
    private readonly settings: EngineSettings,
    private readonly logger: Logger,
  ) {}

  async settle(movement: MovementCall, execution: MovementProgress): Promise<Settled> {
    const requestId = execution.requestId ?? undefined;
    const outcome = await outcomeOf(async () => {
      const core = await this.core(movement, requestId);
      const input = {
        iban: movement.iban,
        amount: movement.amount,
        currency: movement.currency,
        reference: movement.reference,
        description: movement.description,
        ...(requestId ? { requestId } : {}),
      };
      return movement.direction === 'DEBIT' ? core.debit(input) : core.credit(input);
    }, this.logger);
    if (outcome.ok) return { kind: 'booked', movement: outcome.value };

    const replay = execution.unknownSince !== null;
    if (!replay && outcome.kind === 'refused') return { kind: 'refused', code: outcome.code, detail: outcome.detail };
    const now = new Date();
    if (!replay && outcome.kind === 'unavailable') {
      // Nothing reached the core, so nothing was booked: past the deadline that is the answer.
      if (now.getTime() - execution.createdAt.getTime() >= this.settings.outcomeDeadlineMs)
        return { kind: 'refused', code: outcome.code, detail: outcome.detail };
      return { kind: 'later', code: outcome.code, detail: outcome.detail, unknown: { unknownSince: null, replays: 0 } };
    }

    const since = execution.unknownSince ?? now;
    const replays = execution.replays + 1;
    if (outcome.kind === 'refused' || replays >= this.settings.replayLimit) {
      const evidence = await this.statementSays(movement, since, requestId);
      this.logger.warn(
        { request_id: requestId, reference: movement.reference, bank: movement.bank, code: outcome.code, evidence },
        'movement outcome unknown: reconciled against the core statement',
      );
      if (evidence === 'booked') return { kind: 'booked', movement: null };
      if (evidence === 'absent') {
        return {
          kind: 'refused',
          code: outcome.code,
          detail: `${outcome.detail}; the statement of ${movement.bank} shows no ${movement.direction.toLowerCase()} ${movement.reference}`,
        };
      }
    }
    if (now.getTime() - since.getTime() >= this.settings.outcomeDeadlineMs) {
      return {
        kind: 'given_up',
        detail: `what ${movement.bank} did with ${movement.direction.toLowerCase()} ${movement.reference} is unknown since ${since.toISOString()} (${replays} calls; last: ${outcome.code}: ${outcome.detail})`,
      };
    }
    return { kind: 'later', code: outcome.code, detail: outcome.detail, unknown: { unknownSince: since, replays } };
  }

  /** The core's statement around `since`; unavailable or unreadable statements decide nothing. */
  async statementSays(movement: MovementCall, since: Date, requestId?: string): Promise<BookingEvidence> {
    try {
      const core = await this.core(movement, requestId);
      const day = 86_400_000;
      const statement = await core.listTransactions(
        movement.iban,
        isoDate(since.getTime() - day),
        isoDate(Date.now() + day),
        requestId ? { requestId } : {},
      );
      return findBooking(statement, movement);
    } catch (error) {
      this.logger.warn(
        { err: error, reference: movement.reference, bank: movement.bank },
        'core statement unavailable for reconciliation',
      );
      return 'undecidable';
    }
  }

  /**
   * The core of the movement's bank in the movement's world, checked once more where money
   * moves. A started movement is work in flight: it finishes at a bank suspended meanwhile (new
   * work was refused before it started: checkout, charges, orders).
   */
  private async core(movement: MovementCall, requestId?: string): Promise<BankCoreClient> {
    const bank = await this.directory.bankInFlight({ handle: movement.bank }, requestId);
    const core = this.cores.for(bank, worldOf(movement));
    assertSameWorld(core, movement, `${movement.direction.toLowerCase()} ${movement.reference}`, this.logger);
    return core;
  }
}

const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
