import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, type Answer, type Client } from './client';
import { isRetryable } from './evidence';
import type { Merchant } from './onboarding';
import { between, random } from './random';

/** The share of the paid sessions the run's merchant refunds (once they are COMPLETED). */
export const REFUND_SHARE = 0.4;
/** The share of the sessions that are the thin merchant's (onboarding.ts), every one refunded: most of those refunds fail. */
export const THIN_MERCHANT_SHARE = 0.1;
/** The longest wait for a refunded session to be COMPLETED (cross bank: the payee's bank confirms the credit). */
const COMPLETION_WAIT_MS = 90_000;

/** Refunds asked for, by kind (printed as is: the keys are the log's). */
export interface RefundsDriven {
  /** Sessions refunded (one to three requests each). */
  sessions: number;
  requests: number;
  /** Without an amount: all that is left. */
  full: number;
  partial: number;
  /** Sessions with two refunds sent at once (different Idempotency-Keys), which together ask for more than the amount. */
  raced: number;
  /** Sessions with one refund sent twice at once under the same Idempotency-Key (one refund, answered twice). */
  replayed: number;
  /** Requests whose payer is at the bank of the merchant's settlement account (internal), or at another one (the rail). */
  same_bank: number;
  cross_bank: number;
}

/** A session paid by the driver, offered for a refund. */
export interface PaidSession {
  id: string;
  amount: number;
  payerBank: string;
  /** The session's merchant, who refunds it. */
  merchant: Merchant;
}

/** Whether this build routes refunds (an older one is driven without them). */
export async function refundsRouted(client: Client, rest: string): Promise<boolean> {
  const openApi = await client.ok('GET', `${rest}/openapi.json`);
  return Boolean(openApi.paths?.['/payments/sessions/{session_id}/refunds']?.post);
}

/**
 * Refunds a share of the sessions the driver paid, as their merchant would, through the public
 * REST API and under the same faults: each waits until its session is COMPLETED, then asks for a full
 * refund, a partial one (then, half the time, the rest), two at once that together exceed the
 * amount, or the same one twice at once under one Idempotency-Key. Every call retries through the
 * chaos with the same body and key (client.ts). What the platform answered is kept for the
 * invariants (refund-invariants.ts): which refund ids the client was told of, and whether one key
 * was ever answered with two refunds.
 */
export class RefundDriver {
  readonly driven: RefundsDriven = {
    sessions: 0,
    requests: 0,
    full: 0,
    partial: 0,
    raced: 0,
    replayed: 0,
    same_bank: 0,
    cross_bank: 0,
  };
  /** Answers by refund status (COMPLETED, PROCESSING, FAILED) or refusal (REFUND_AMOUNT_EXCEEDED, ...). */
  readonly answers: Record<string, number> = {};
  /** Every refund id the client was answered, with its session. */
  readonly refundIds = new Map<string, string>();
  /** Idempotency-Keys answered with more than one refund id (a request executed twice). */
  readonly keysAnsweredTwice: string[] = [];
  /** Sessions with a refund request left unanswered after every retry: a refund the client never heard of may exist there. */
  readonly unanswered = new Map<string, number>();
  /** Sessions offered that never became COMPLETED (FAILED or EXPIRED instead), or not within the wait. */
  notCompleted = 0;
  private readonly answeredByKey = new Map<string, string>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly client: Client,
    private readonly rest: string,
    private readonly note: (what: string) => void,
  ) {}

  /** A session just authorized: refunded (in the background, beside the payments) for a `share` of them. */
  offer(session: PaidSession, share = REFUND_SHARE): void {
    if (random() >= share) return;
    const task: Promise<void> = this.refundOnceCompleted(session)
      .catch((error: unknown) => this.note(`refund ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  /** Resolves when every refund offered so far has its answers. */
  async settled(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  private async refundOnceCompleted(session: PaidSession): Promise<void> {
    if (!(await this.completed(session))) {
      this.notCompleted += 1;
      return;
    }
    this.driven.sessions += 1;
    const roll = random();
    if (roll < 0.35) {
      await this.refund(session, undefined);
    } else if (roll < 0.65) {
      await this.refund(session, between(1, session.amount - 1));
      if (random() < 0.5) await this.refund(session, undefined);
    } else if (roll < 0.85) {
      // Two at once that cannot both be taken: both the whole amount, or both 60 % of it.
      this.driven.raced += 1;
      const amount = random() < 0.5 ? undefined : Math.ceil(session.amount * 0.6);
      await Promise.all([this.refund(session, amount), this.refund(session, amount)]);
    } else {
      // One request sent twice at once: the second waits on the key (409 IDEMPOTENCY_KEY_IN_USE, retried), then is answered the first's refund.
      this.driven.replayed += 1;
      const key = newKey();
      const amount = random() < 0.5 ? undefined : between(1, session.amount);
      await Promise.all([this.refund(session, amount, key), this.refund(session, amount, key)]);
    }
  }

  /** Polls the session as its merchant until it is final: whether it is COMPLETED. */
  private async completed(session: PaidSession): Promise<boolean> {
    const deadline = Date.now() + COMPLETION_WAIT_MS;
    while (Date.now() < deadline) {
      const read = await this.client.retrying('refund: session status', () =>
        call('GET', `${this.rest}/payments/sessions/${session.id}`, undefined, authOf(session)),
      );
      const status = read.status === 200 ? String(read.body?.status) : undefined;
      if (status === 'COMPLETED') return true;
      if (status === 'FAILED' || status === 'EXPIRED') return false;
      await sleep(1_500);
    }
    return false;
  }

  /** One refund request (retried through the chaos with its body and key): its answer kept. */
  private async refund(session: PaidSession, amount: number | undefined, key = newKey()): Promise<Answer> {
    const driven = this.driven;
    driven.requests += 1;
    driven[amount === undefined ? 'full' : 'partial'] += 1;
    driven[session.payerBank === session.merchant.bank ? 'same_bank' : 'cross_bank'] += 1;
    const body = { ...(amount === undefined ? {} : { amount }), reason: 'chaos', reference: `chaos-${key.slice(-8)}` };
    const answer = await this.client.retrying('refund', () =>
      call('POST', `${this.rest}/payments/sessions/${session.id}/refunds`, body, {
        ...authOf(session),
        'idempotency-key': key,
      }),
    );
    if (answer.status === 201) {
      const refundId = String(answer.body.refund_id);
      this.count(String(answer.body.status));
      this.refundIds.set(refundId, session.id);
      const before = this.answeredByKey.get(key);
      if (before !== undefined && before !== refundId) this.keysAnsweredTwice.push(`${key}: ${before} and ${refundId}`);
      this.answeredByKey.set(key, refundId);
    } else if (isRetryable(answer)) {
      this.count('unanswered');
      this.unanswered.set(session.id, (this.unanswered.get(session.id) ?? 0) + 1);
    } else {
      const code = answer.body?.error?.code ?? '';
      this.count(code || String(answer.status));
      // Racing refunds meet what the other took: an answer, not a refusal of the platform.
      if (code !== 'REFUND_AMOUNT_EXCEEDED') this.note(`refund ${answer.status} ${code}`.trim());
    }
    return answer;
  }

  private count(what: string): void {
    this.answers[what] = (this.answers[what] ?? 0) + 1;
  }
}

const authOf = (session: PaidSession) => ({ authorization: `Bearer ${session.merchant.key}` });
const newKey = (): string => `chaos-r-${randomBytes(8).toString('hex')}`;
