import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '@gateway/db';
import { log } from './log';
import { QUIET_SECONDS } from './settings';

/** Work still in flight, by kind (printed as is: the keys are the log's). All zero is quiet. */
export type OpenWork = Record<
  | 'open_sessions'
  | 'open_charges'
  | 'open_orders'
  | 'open_refunds'
  | 'open_executions'
  | 'outbox'
  | 'unsettled_positions'
  | 'unsettled_obligations',
  number
>;

type Knex = Database['knex'];
const counted = (rows: Array<{ count: string | number }>) => Number(rows[0]!.count);

async function openWork(knex: Knex, withMandates: boolean, withRefunds: boolean): Promise<OpenWork> {
  const open = await knex('payments.payment_sessions')
    .whereIn('status', ['PENDING', 'PROCESSING', 'SETTLEMENT_PENDING'])
    .count<{ count: string }[]>('* as count');
  const charges = withMandates
    ? await knex('payments.mandate_charges')
        .whereIn('status', ['PROCESSING', 'SETTLEMENT_PENDING'])
        .count<{ count: string }[]>('* as count')
    : [{ count: '0' }];
  const orders = await knex('open_banking.payment_orders')
    .where('status', 'PROCESSING')
    .count<{ count: string }[]>('* as count');
  // A cross-bank refund waits for the payer's bank's confirmation as SETTLEMENT_PENDING (shown PROCESSING).
  const refunds = withRefunds
    ? await knex('payments.refunds')
        .whereIn('status', ['PROCESSING', 'SETTLEMENT_PENDING'])
        .count<{ count: string }[]>('* as count')
    : [{ count: '0' }];
  const executions = await knex('payments.payment_executions')
    .whereIn('step', ['debit', 'credit', 'confirm', 'reverse', 'resolve_debit'])
    .count<{ count: string }[]>('* as count');
  const outbox = await knex('payments.outbox').whereNull('published_at').count<{ count: string }[]>('* as count');
  // A FAILED position waits for an operator's retry (documented); only PENDING ones are in flight.
  const positions = await knex('payments.settlement_positions')
    .where('status', 'PENDING')
    .count<{ count: string }[]>('* as count');
  const unsettled = await knex('payments.interbank_obligations')
    .whereNull('settlement_cycle_id')
    .count<{ count: string }[]>('* as count');
  return {
    open_sessions: counted(open),
    open_charges: counted(charges),
    open_orders: counted(orders),
    open_refunds: counted(refunds),
    open_executions: counted(executions),
    outbox: counted(outbox),
    unsettled_positions: counted(positions),
    unsettled_obligations: counted(unsettled),
  };
}

export const isQuiet = (work: OpenWork): boolean => Object.values(work).every((n) => n === 0);

/**
 * Waits (up to CHAOS_QUIET_SECONDS) until nothing is in flight and every webhook is delivered or
 * given up on; answers the open work as last counted (all zero unless the wait ran out).
 */
export async function waitForQuiet(knex: Knex, withMandates: boolean, withRefunds: boolean): Promise<OpenWork> {
  const quietDeadline = Date.now() + QUIET_SECONDS * 1000;
  let state = await openWork(knex, withMandates, withRefunds);
  for (;;) {
    const webhooksPending = await knex('payments.webhook_deliveries')
      .whereNotIn('status', ['DELIVERED', 'FAILED'])
      .count<{ count: string }[]>('* as count');
    const quiet = isQuiet(state) && Number(webhooksPending[0]!.count) === 0;
    if (quiet || Date.now() > quietDeadline) break;
    await sleep(2_000);
    state = await openWork(knex, withMandates, withRefunds);
    log(`waiting for quiet: ${JSON.stringify(state)}, webhooks pending ${webhooksPending[0]!.count}`);
  }
  return state;
}
