import type { EntityManager } from '@mikro-orm/postgresql';
import type { PaymentEngine } from './engine';
import { ACTIVE_STEPS } from './execution.entity';

/**
 * Takes over executions whose lease ran out (their process died or postponed them) and starts
 * advancing them with the same references. The claim is one statement with `for update skip
 * locked`, so instances sharing a database never take the same session. The runs are not awaited:
 * a core that hangs holds its session only, never the job (nor a shutdown waiting for the job).
 */
export async function recoverDue(root: EntityManager, engine: PaymentEngine, leaseMs: number, now = new Date(), batch = 20): Promise<string[]> {
  const room = Math.min(batch, engine.capacity());
  if (room <= 0) return [];
  const steps = ACTIVE_STEPS.map((step) => `'${step}'`).join(', ');
  const claimed: Array<{ session_id: string }> = await root.fork().execute(
    `update "payments"."payment_executions" set "lease_until" = ?
     where "session_id" in (
       select "session_id" from "payments"."payment_executions"
       where "step" in (${steps}) and "lease_until" <= ?
       order by "lease_until" limit ? for update skip locked)
     returning "session_id"`,
    [new Date(now.getTime() + leaseMs), now, room],
  );
  const ids = claimed.map((row) => row.session_id);
  for (const id of ids) void engine.advance(root, id);
  return ids;
}
