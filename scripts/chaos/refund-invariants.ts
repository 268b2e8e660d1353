import type { Database } from '@gateway/db';
import type { WebhookOrder } from './evidence';
import type { Check } from './invariants';
import type { Delivery } from './receiver';
import {
  listed,
  oneFinalRefundEvent,
  refundMoneyAtCores,
  refundsOnce,
  refundsWithinAmount,
  type LedgerLine,
  type RefundAnswers,
  type RefundedSession,
  type RefundMoney,
  type RefundRow,
} from './refund-checks';

/*
 * The refunds' invariants (docs/chaos.md), checked once the run is quiet: reads the refunds table,
 * the sessions' amount_refunded, the sandbox cores' bookings (read whole from the run's database:
 * the cores' /sandbox/ledger answers only the newest 500 lines) and the engine's executions, and
 * compares them (refund-checks.ts) with each other, with what the client was answered and with
 * what the merchant's receiver got.
 */

type Knex = Database['knex'];

/** The refunds' figures the report prints beside the checks. */
export interface RefundFindings {
  byStatus: Record<string, number>;
  /** FAILED refunds by failure_code. */
  failureCodes: Record<string, number>;
  money: RefundMoney;
  executedTwice: number;
  overAmount: number;
}

/** Reads what the run left and checks the refunds' invariants, in the order they are printed. */
export async function checkRefunds(
  knex: Knex,
  run: { answers: RefundAnswers; received: readonly Delivery[]; order: WebhookOrder; attention: ReadonlySet<string> },
): Promise<{ checks: Check[]; findings: RefundFindings }> {
  const refunds: RefundRow[] = await knex('payments.refunds').select(
    'id',
    'session_id',
    'status',
    'amount',
    'failure_code',
    'debtor_bank',
    'debtor_iban',
    'creditor_bank',
    'creditor_iban',
  );
  const byStatus: Record<string, number> = {};
  const failureCodes: Record<string, number> = {};
  for (const refund of refunds) {
    byStatus[refund.status] = (byStatus[refund.status] ?? 0) + 1;
    const code = refund.failure_code ?? 'none';
    if (refund.status === 'FAILED') failureCodes[code] = (failureCodes[code] ?? 0) + 1;
  }
  const open = refunds.filter((r) => r.status !== 'COMPLETED' && r.status !== 'FAILED' && !run.attention.has(r.id));
  const lines: LedgerLine[] = (
    await knex('bank_sandbox.transactions')
      .where('reference', 'like', 'rfd%')
      .select('bank_handle', 'operation', 'reference', 'iban', 'amount')
  ).filter((line: LedgerLine) => line.reference.startsWith('rfd_'));
  const money = refundMoneyAtCores(refunds, lines, run.attention);
  const sessions: RefundedSession[] = await knex('payments.payment_sessions')
    .where('amount_refunded', '>', 0)
    .orWhereIn('id', knex('payments.refunds').select('session_id'))
    .select('id', 'amount', 'amount_refunded');
  const within = refundsWithinAmount(sessions, refunds);
  const executionRows: Array<{ movement_id: string; count: string | number }> = await knex(
    'payments.payment_executions',
  )
    .where('kind', 'refund')
    .groupBy('movement_id')
    .select('movement_id')
    .count('* as count');
  const once = refundsOnce(refunds, run.answers, new Map(executionRows.map((r) => [r.movement_id, Number(r.count)])));
  const events = oneFinalRefundEvent(refunds, run.received);
  const order = run.order.of('refund_id');
  const executedTwice =
    once.unknown.length +
    once.executionsNotOne.length +
    run.answers.keysAnsweredTwice.length +
    money.bookedTwice.length;
  const checks: Check[] = [
    {
      name: 'every refund final or waiting for attention',
      ok: open.length === 0,
      figure: `${refunds.length} refunds ${JSON.stringify(byStatus)}, ${money.leftToOperator} needing attention, ${open.length} not final${listed(open.map((r) => `${r.id} ${r.status}`))}`,
    },
    {
      name: 'each refund moved its amount at the cores (COMPLETED: merchant to payer, exactly once; FAILED: nothing net)',
      ok: money.wrong.length === 0 && money.stray.length === 0,
      figure: `${money.checked} final refunds against ${lines.length} ledger lines, ${money.wrong.length} wrong${listed(money.wrong)}, ${money.stray.length} references booked for no refund${listed(money.stray)}, ${money.leftToOperator} left to an operator`,
    },
    {
      name: 'no refund executed twice',
      ok: executedTwice === 0 && once.lost.length === 0,
      figure: `${run.answers.refundIds.size} refunds answered to the client, ${once.unknown.length} sessions with refunds it never heard of${listed(once.unknown)}, ${run.answers.keysAnsweredTwice.length} Idempotency-Keys answered two refunds${listed(run.answers.keysAnsweredTwice)}, ${once.executionsNotOne.length} refunds without exactly one execution${listed(once.executionsNotOne)}, ${money.bookedTwice.length} core references booked twice${listed(money.bookedTwice)}, ${once.lost.length} answered but not stored${listed(once.lost)}`,
    },
    {
      name: 'refunds never exceed the session amount (amount_refunded = the refunds table)',
      ok: within.over.length === 0 && within.mismatched.length === 0,
      figure: `${within.sessions} sessions refunded, ${within.over.length} over their amount${listed(within.over)}, ${within.mismatched.length} whose amount_refunded differs from their refunds${listed(within.mismatched)}`,
    },
    {
      name: 'every final refund has exactly one refund.completed / refund.failed event id at the receiver',
      ok: events.missing.length + events.several.length + events.wrongKind.length + events.stray.length === 0,
      figure: `${events.final} final, ${events.missing.length} missing${listed(events.missing)}, ${events.several.length} with more than one id${listed(events.several)}, ${events.wrongKind.length} of the wrong kind${listed(events.wrongKind)}, ${events.stray.length} for refunds not final${listed(events.stray)}`,
    },
    {
      name: 'refund webhooks in order per refund aggregate',
      ok: order.outOfOrder === 0,
      figure: `${order.outOfOrder} out of order over ${order.aggregates} refunds`,
    },
  ];
  return {
    checks,
    findings: {
      byStatus,
      failureCodes,
      money,
      executedTwice,
      overAmount: within.over.length + within.mismatched.length,
    },
  };
}
