import type { EntityManager } from '@mikro-orm/postgresql';
import type { PaymentEngine } from './engine';
import { executions } from './execution.repository';

/**
 * Takes over executions whose lease ran out (their process died or postponed them) and starts
 * advancing them with the same references. The claim (ExecutionRepository.claimDue) is one
 * statement with `for update skip locked`, so instances sharing a database never take the same
 * movement. The runs are not awaited: a core that hangs holds its movement only, never the job
 * (nor a shutdown waiting for the job).
 */
export async function recoverDue(
  root: EntityManager,
  engine: PaymentEngine,
  leaseMs: number,
  now = new Date(),
  batch = 20,
): Promise<Array<{ movementId: string; requestId: string | null }>> {
  const room = Math.min(batch, engine.capacity());
  if (room <= 0) return [];
  const claimed = await executions.claimDue(root.fork(), now, leaseMs, room);
  // The resumed run reads the execution, whose request id goes with every core call it makes.
  for (const { movementId } of claimed) engine.resume(root, movementId);
  return claimed;
}
