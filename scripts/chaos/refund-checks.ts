import type { Delivery } from './receiver';
import type { RefundDriver } from './refunds';

/*
 * The refunds' invariants as pure comparisons (no I/O, tested on their own in
 * test/chaos/refund-checks.spec.ts): the rows refund-invariants.ts reads once the run is quiet
 * (the refunds table, the sessions' amount_refunded, the cores' bookings, the engine's
 * executions) against each other and against what the client was answered and the merchant's
 * receiver got.
 */
/** A row of payments.refunds, as read. */
export interface RefundRow {
  id: string;
  session_id: string;
  status: string;
  amount: string | number;
  failure_code: string | null;
  debtor_bank: string;
  debtor_iban: string;
  creditor_bank: string;
  creditor_iban: string;
}

/** A booking at a sandbox core (bank_sandbox.transactions). */
export interface LedgerLine {
  bank_handle: string;
  operation: string;
  reference: string;
  iban: string;
  amount: string | number;
}

/** A session with refunds, as read. */
export interface RefundedSession {
  id: string;
  amount: string | number;
  amount_refunded: string | number;
}

const ibanKey = (iban: string): string => iban.replace(/\s+/g, '').toUpperCase();
const reversalOf = (refundId: string): string => `${refundId}:reversal`;
/** The first few of a list, for a figure. */
export const listed = (items: readonly string[]): string => (items.length ? ` (${items.slice(0, 5).join('; ')})` : '');

/** What the cores booked for refunds. */
export interface RefundMoney {
  /** Final refunds whose bookings were compared with their status. */
  checked: number;
  /** Refunds whose bookings do not match their status, or that booked at another account than theirs. */
  wrong: string[];
  /** Refunds an operator must resolve (their execution in `attention`): not compared. */
  leftToOperator: number;
  /** A (bank, operation, reference) booked more than once. */
  bookedTwice: string[];
  /** Bookings with a refund's reference for no refund of the table. */
  stray: string[];
}

/**
 * Each final refund against the cores' books, under its id (debit and credit) and
 * `<id>:reversal` (the debit given back): a COMPLETED one took exactly its amount from the
 * merchant's settlement account and gave it to the payer's account, nothing given back; a FAILED
 * one moved nothing net (the merchant's debit, if booked, given back; the payer credited nothing).
 */
export function refundMoneyAtCores(
  refunds: readonly RefundRow[],
  lines: readonly LedgerLine[],
  attention: ReadonlySet<string>,
): RefundMoney {
  const byRefund = new Map<string, LedgerLine[]>();
  const bookings = new Map<string, number>();
  for (const line of lines) {
    const refundId = line.reference.replace(/:reversal$/, '');
    byRefund.set(refundId, [...(byRefund.get(refundId) ?? []), line]);
    const key = `${line.bank_handle} ${line.operation} ${line.reference}`;
    bookings.set(key, (bookings.get(key) ?? 0) + 1);
  }
  const money: RefundMoney = {
    checked: 0,
    wrong: [],
    leftToOperator: 0,
    bookedTwice: [...bookings].filter(([, n]) => n > 1).map(([key, n]) => `${key} x${n}`),
    stray: [],
  };
  for (const refund of refunds) {
    const booked = byRefund.get(refund.id) ?? [];
    byRefund.delete(refund.id);
    const at = (line: LedgerLine, operation: string, reference: string, bank: string, iban: string) =>
      line.operation === operation &&
      line.reference === reference &&
      line.bank_handle === bank &&
      ibanKey(line.iban) === ibanKey(iban);
    const merchant = (line: LedgerLine, operation: string, reference: string) =>
      at(line, operation, reference, refund.debtor_bank, refund.debtor_iban);
    const payer = (line: LedgerLine) => at(line, 'CREDIT', refund.id, refund.creditor_bank, refund.creditor_iban);
    const sum = (which: (line: LedgerLine) => boolean) =>
      booked.filter(which).reduce((total, line) => total + Number(line.amount), 0);
    const debit = sum((line) => merchant(line, 'DEBIT', refund.id));
    const reversal = sum((line) => merchant(line, 'CREDIT', reversalOf(refund.id)));
    const credit = sum(payer);
    const elsewhere = booked.filter(
      (line) => !merchant(line, 'DEBIT', refund.id) && !merchant(line, 'CREDIT', reversalOf(refund.id)) && !payer(line),
    );
    for (const line of elsewhere)
      money.wrong.push(`${refund.id}: ${line.operation} ${line.reference} at ${line.bank_handle} ${line.iban}`);
    if (attention.has(refund.id)) {
      money.leftToOperator += 1;
      continue;
    }
    const amount = Number(refund.amount);
    const moved = `debit ${debit}, reversal ${reversal}, payer credited ${credit}`;
    if (refund.status === 'COMPLETED') {
      money.checked += 1;
      if (debit !== amount || credit !== amount || reversal !== 0)
        money.wrong.push(`${refund.id} COMPLETED ${amount}: ${moved}`);
    } else if (refund.status === 'FAILED') {
      money.checked += 1;
      if (debit !== reversal || credit !== 0) money.wrong.push(`${refund.id} FAILED: ${moved}`);
    }
  }
  money.stray = [...byRefund.keys()].map((id) => `${id} (${byRefund.get(id)!.length} bookings)`);
  return money;
}

/** What a refund takes of its session: all its amount unless FAILED, and a FAILED one's while an operator checks whether the payer got it. */
const takes = (refund: RefundRow): boolean =>
  refund.status !== 'FAILED' || refund.failure_code === 'CBS_OUTCOME_UNKNOWN';

/**
 * Refunds never exceed their session: per session, the refunds not FAILED add up to at most its
 * amount, and amount_refunded is exactly what the refunds table says is taken.
 */
export function refundsWithinAmount(
  sessions: readonly RefundedSession[],
  refunds: readonly RefundRow[],
): { sessions: number; over: string[]; mismatched: string[] } {
  const over: string[] = [];
  const mismatched: string[] = [];
  for (const session of sessions) {
    const own = refunds.filter((refund) => refund.session_id === session.id);
    const notFailed = own.filter((r) => r.status !== 'FAILED').reduce((n, r) => n + Number(r.amount), 0);
    const taken = own.filter(takes).reduce((n, r) => n + Number(r.amount), 0);
    const amount = Number(session.amount);
    const refunded = Number(session.amount_refunded);
    if (notFailed > amount || refunded > amount)
      over.push(`${session.id}: amount ${amount}, refunds not FAILED ${notFailed}, amount_refunded ${refunded}`);
    if (refunded !== taken) mismatched.push(`${session.id}: amount_refunded ${refunded}, refunds taking ${taken}`);
  }
  return { sessions: sessions.length, over, mismatched };
}

/** What the client was answered for its refund requests (refunds.ts). */
export type RefundAnswers = Pick<RefundDriver, 'refundIds' | 'unanswered' | 'keysAnsweredTwice'>;

/**
 * No refund executed twice: every stored refund is one the client was answered (a retried request
 * that made a second refund would be a refund nobody heard of; only a session with a request left
 * unanswered may hold as many as it had), one Idempotency-Key was never answered two refunds, and
 * each refund has exactly one execution of the engine.
 */
export function refundsOnce(
  refunds: readonly RefundRow[],
  answers: RefundAnswers,
  executions: ReadonlyMap<string, number>,
): { unknown: string[]; lost: string[]; executionsNotOne: string[] } {
  const unknownBySession = new Map<string, string[]>();
  for (const refund of refunds)
    if (!answers.refundIds.has(refund.id))
      unknownBySession.set(refund.session_id, [...(unknownBySession.get(refund.session_id) ?? []), refund.id]);
  const unknown = [...unknownBySession]
    .filter(([sessionId, ids]) => ids.length > (answers.unanswered.get(sessionId) ?? 0))
    .map(([sessionId, ids]) => `${sessionId}: ${ids.join(', ')}`);
  const stored = new Set(refunds.map((refund) => refund.id));
  const lost = [...answers.refundIds.keys()].filter((id) => !stored.has(id));
  const executionsNotOne = refunds
    .filter((refund) => executions.get(refund.id) !== 1)
    .map((refund) => `${refund.id} x${executions.get(refund.id) ?? 0}`);
  return { unknown, lost, executionsNotOne };
}

/**
 * Each final refund's event reached the merchant under one event id (redeliveries share it), of
 * its kind (refund.completed for COMPLETED, refund.failed for FAILED), and none for a refund not final.
 */
export function oneFinalRefundEvent(
  refunds: readonly RefundRow[],
  deliveries: readonly Pick<Delivery, 'id' | 'event' | 'refundId'>[],
): { final: number; missing: string[]; several: string[]; wrongKind: string[]; stray: string[] } {
  const events = new Map<string, Map<string, string>>();
  for (const delivery of deliveries) {
    if (!delivery.event?.startsWith('refund.') || !delivery.refundId) continue;
    const ids = events.get(delivery.refundId) ?? new Map<string, string>();
    events.set(delivery.refundId, ids.set(delivery.id, delivery.event));
  }
  const final = refunds.filter((refund) => refund.status === 'COMPLETED' || refund.status === 'FAILED');
  const result = { final: final.length, missing: [] as string[], several: [] as string[], wrongKind: [] as string[] };
  for (const refund of final) {
    const ids = events.get(refund.id);
    events.delete(refund.id);
    if (!ids) result.missing.push(refund.id);
    else if (ids.size > 1) result.several.push(`${refund.id} x${ids.size}`);
    else if ([...ids.values()][0] !== (refund.status === 'COMPLETED' ? 'refund.completed' : 'refund.failed'))
      result.wrongKind.push(`${refund.id} ${refund.status}: ${[...ids.values()][0]}`);
  }
  return { ...result, stray: [...events.keys()] };
}
