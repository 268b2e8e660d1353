import type { Database } from '@gateway/db';
import type { SandboxCores } from './cores';
import type { Driver } from './driver';
import { checkNetDebit, type CapSet, type NetDebitFindings, type PositionSampler } from './net-debit';
import { isQuiet, type OpenWork } from './quiet';
import type { WebhookReceiver } from './receiver';
import { checkRefunds, type RefundFindings } from './refund-invariants';
import type { SubscriptionSample } from './subscription-sample';

/** One invariant: a miss fails the run. `figure` is what was counted (printed after PASS/FAIL). */
export interface Check {
  name: string;
  ok: boolean;
  figure: string;
}

/** What the run left behind, to be checked once it is quiet. */
export interface RunRecord {
  driver: Driver;
  cores: SandboxCores;
  receiver: WebhookReceiver;
  subscriptions: SubscriptionSample;
  /** The cores' total balance before the first payment. */
  moneyBefore: number;
  /** The open work when the wait for quiet ended. */
  openWork: OpenWork;
  /** The net debit cap set at onboarding and the positions sampled while the run drove and waited for quiet. */
  netDebit: { cap: CapSet; sampler: PositionSampler };
}

/** The checks in the order they are printed, with the figures the evidence table reuses. */
export interface Findings {
  checks: Check[];
  moneyAfter: number;
  /** Core references debited more than once. */
  doubleDebits: number;
  /** Each session's stored status (a subscription must end on it). */
  storedStatus: Map<string, string>;
  /** The refunds' figures; undefined when the run drove none (a build without refunds). */
  refunds: RefundFindings | undefined;
  /** The net debit caps' figures (net-debit.ts). */
  netDebit: NetDebitFindings;
}

type Knex = Database['knex'];
interface Row {
  id: string;
  status: string;
}

const tally = (rows: readonly Row[]): Record<string, number> => {
  const byStatus: Record<string, number> = {};
  for (const row of rows) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
  return byStatus;
};

/** The invariants of docs/chaos.md, checked against the database, the cores' ledgers and what the receiver and the watchers saw. */
export async function checkInvariants(knex: Knex, run: RunRecord): Promise<Findings> {
  const { driver } = run;
  // Ids as one array parameter (`= any(?)`), not one parameter each: an hour's soak makes more
  // sessions than the 65,535 parameters PostgreSQL takes in a statement.
  const sessions: Row[] = await knex('payments.payment_sessions')
    .whereRaw('id = any(?)', [driver.sessionIds])
    .select('id', 'status');
  const attention = await knex('payments.payment_executions')
    .where({ step: 'attention' })
    .select('movement_id', 'kind');
  const checks = await movementsFinal(knex, driver, sessions, attention);
  const moneyAfter = await run.cores.totalBalance();
  checks.push({
    name: 'the sum of all balances unchanged (money conserved)',
    ok: moneyAfter === run.moneyBefore,
    figure: `before ${run.moneyBefore}, after ${moneyAfter}, difference ${moneyAfter - run.moneyBefore}`,
  });
  const debits = await debitedTwice(run.cores);
  checks.push(debits.check);
  checks.push(oneCompletedEvent(sessions, run.receiver));
  const refunds = driver.refunds
    ? await checkRefunds(knex, {
        answers: driver.refunds,
        received: run.receiver.received,
        order: run.receiver.order,
        attention: new Set(attention.map((row) => row.movement_id)),
      })
    : undefined;
  if (refunds) checks.push(...refunds.checks);
  const netDebit = await checkNetDebit(knex, {
    ...run.netDebit,
    refusedSessions: driver.capRefusedSessions,
    refusedCharges: driver.capRefusedCharges,
    orderIds: driver.orderIds,
  });
  checks.push(...netDebit.checks);
  checks.push(await outboxEmpty(knex));
  checks.push(await settledOnce(knex, run.cores));
  checks.push({
    name: 'quiet reached (nothing in flight)',
    ok: isQuiet(run.openWork),
    figure: JSON.stringify(run.openWork),
  });
  const webhooks = run.receiver.order;
  checks.push({
    name: 'webhooks in order per aggregate (API-CONTRACT "Webhook headers")',
    ok: webhooks.outOfOrder === 0,
    figure: `${webhooks.outOfOrder} out of order of ${webhooks.deliveries} deliveries`,
  });
  const { repeated, backwards, watched } = run.subscriptions;
  checks.push({
    name: 'subscription statuses never repeated or backwards',
    ok: repeated + backwards === 0,
    figure: `${repeated} repeated, ${backwards} backwards over ${watched.length} sessions watched`,
  });
  return {
    checks,
    moneyAfter,
    doubleDebits: debits.twice,
    storedStatus: new Map(sessions.map((s) => [s.id, s.status])),
    refunds: refunds?.findings,
    netDebit: netDebit.findings,
  };
}

/** Every session, mandate charge and payment order the run made is final, or waits for an operator (an execution in `attention`). */
async function movementsFinal(
  knex: Knex,
  driver: Driver,
  sessions: Row[],
  attention: Array<{ movement_id: string }>,
): Promise<Check[]> {
  const checks: Check[] = [];
  const attentionIds = new Set(attention.map((row) => row.movement_id));
  const notFinal = sessions.filter(
    (s) => !['COMPLETED', 'FAILED', 'EXPIRED'].includes(s.status) && !attentionIds.has(s.id),
  );
  checks.push({
    name: 'every session final or waiting for attention',
    ok: notFinal.length === 0 && sessions.length === driver.sessionIds.length,
    figure: `${sessions.length} sessions ${JSON.stringify(tally(sessions))}, ${attention.length} needing attention, ${notFinal.length} not final${notFinal.length ? ` (${notFinal.slice(0, 5).map((s) => `${s.id} ${s.status}`)})` : ''}`,
  });
  if (driver.withMandates) {
    const charges: Row[] = await knex('payments.mandate_charges')
      .whereRaw('id = any(?)', [driver.chargeIds])
      .select('id', 'status');
    const open = charges.filter((c) => !['COMPLETED', 'FAILED'].includes(c.status) && !attentionIds.has(c.id));
    checks.push({
      name: 'every mandate charge final or waiting for attention',
      ok: open.length === 0,
      figure: `${charges.length} charges ${JSON.stringify(tally(charges))}, ${open.length} not final`,
    });
  }
  const orders: Row[] = await knex('open_banking.payment_orders')
    .whereRaw('id = any(?)', [driver.orderIds])
    .select('id', 'status');
  const openOrders = orders.filter(
    (o) => !['COMPLETED', 'FAILED', 'REJECTED'].includes(o.status) && !attentionIds.has(o.id),
  );
  checks.push({
    name: 'every payment order final or waiting for attention',
    ok: openOrders.length === 0 && orders.length === driver.orderIds.length,
    figure: `${orders.length} orders ${JSON.stringify(tally(orders))}, ${openOrders.length} not final`,
  });
  return checks;
}

/** No debit reference appears twice in a core's ledger (a payment debited once, whatever was retried or taken over). */
export async function debitedTwice(cores: SandboxCores): Promise<{ check: Check; twice: number }> {
  const debits = new Map<string, number>();
  let lines = 0;
  for (const bank of cores.banks) {
    const ledger = await cores.ledger(bank);
    for (const line of ledger.transactions) {
      lines += 1;
      if (line.credit_debit_indicator !== 'DEBIT' || !line.reference) continue;
      const key = `${bank.handle} ${line.reference}`;
      debits.set(key, (debits.get(key) ?? 0) + 1);
    }
  }
  const twice = [...debits].filter(([, n]) => n > 1);
  const check = {
    name: 'no core reference debited twice',
    ok: twice.length === 0,
    figure: `${debits.size} references debited over ${lines} ledger lines, ${twice.length} debited more than once${twice.length ? ` (${twice.slice(0, 5).map(([k, n]) => `${k} x${n}`)})` : ''}`,
  };
  return { check, twice: twice.length };
}

/** Each COMPLETED session's payment.completed reached the merchant under one event id (redeliveries share it), and no other session's did. */
function oneCompletedEvent(sessions: Row[], receiver: WebhookReceiver): Check {
  const { received } = receiver;
  const completed = sessions.filter((s) => s.status === 'COMPLETED').map((s) => s.id);
  const completedEvents = new Map<string, Set<string>>();
  for (const w of received) {
    if (w.event !== 'payment.completed' || !w.sessionId) continue;
    completedEvents.set(w.sessionId, (completedEvents.get(w.sessionId) ?? new Set()).add(w.id));
  }
  const missing = completed.filter((id) => !completedEvents.has(id));
  const several = completed.filter((id) => (completedEvents.get(id)?.size ?? 0) > 1);
  const stray = [...completedEvents.keys()].filter((id) => !completed.includes(id));
  return {
    name: 'every COMPLETED session has exactly one payment.completed event id at the receiver',
    ok: missing.length === 0 && several.length === 0 && stray.length === 0,
    figure: `${completed.length} completed, ${received.length} deliveries received (${received.filter((w) => w.event === 'payment.completed').length} payment.completed), ${missing.length} missing, ${several.length} with more than one id, ${stray.length} for sessions not COMPLETED`,
  };
}

async function outboxEmpty(knex: Knex): Promise<Check> {
  const outbox = await knex('payments.outbox').whereNull('published_at').count<{ count: string }[]>('* as count');
  const outboxTotal = await knex('payments.outbox').count<{ count: string }[]>('* as count');
  return {
    name: 'outbox empty (every event published)',
    ok: Number(outbox[0]!.count) === 0,
    figure: `${outbox[0]!.count} unpublished of ${outboxTotal[0]!.count}`,
  };
}

/** No settlement position's core reference is booked more than once (a FAILED one waits for an operator's retry). */
async function settledOnce(knex: Knex, cores: SandboxCores): Promise<Check> {
  const positions = await knex('payments.settlement_positions').select('bank_handle', 'core_reference', 'status');
  let settledTwice = 0;
  let settled = 0;
  for (const position of positions) {
    const bank = cores.banks.find((b) => b.handle === position.bank_handle)!;
    const ledger = await cores.ledger(bank);
    const booked = ledger.transactions.filter(
      (line: { reference: string }) => line.reference === position.core_reference,
    ).length;
    if (position.status === 'SETTLED') settled += 1;
    if (booked > 1) settledTwice += 1;
  }
  return {
    name: 'no settlement position settled twice',
    ok: settledTwice === 0,
    figure: `${positions.length} positions, ${settled} SETTLED, ${positions.filter((p: { status: string }) => p.status === 'FAILED').length} FAILED (waiting for an operator), ${settledTwice} booked more than once`,
  };
}
