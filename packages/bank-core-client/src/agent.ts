import { Agent, type Dispatcher } from 'undici';
import { guardedLookup, type EgressPolicy } from '@gateway/kernel';

/** One pool per egress policy: unguarded (no policy given), private targets closed, or open. */
type PoolKey = 'unguarded' | 'public' | 'private';
const shared = new Map<PoolKey, Agent>();

const keyOf = (egress: EgressPolicy | undefined): PoolKey =>
  egress === undefined ? 'unguarded' : egress.privateTargets ? 'private' : 'public';

/**
 * One keep-alive connection pool per bank core origin, shared by every client in the process
 * (undici's Agent keeps a Pool per origin): a gateway instance talks to a handful of cores all
 * day, so reusing TLS connections matters more than isolating clients. With an egress policy the
 * pool resolves names through the guarded lookup (kernel egress-lookup), as webhook deliveries
 * do: the address actually connected to is the one checked, at every new connection.
 */
export function sharedBankCoreAgent(egress?: EgressPolicy): Dispatcher {
  const key = keyOf(egress);
  let agent = shared.get(key);
  if (!agent) {
    agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      connections: 128,
      // Per-attempt deadlines come from the client's AbortSignal; these only bound what it cannot see.
      connect: { timeout: 10_000, ...(egress ? { lookup: guardedLookup(egress) } : {}) },
    });
    shared.set(key, agent);
  }
  return agent;
}

/** Closes the shared pools (graceful shutdown, end of a test run). A later call opens new ones. */
export async function closeBankCoreAgent(): Promise<void> {
  const agents = [...shared.values()];
  shared.clear();
  await Promise.all(agents.map((agent) => agent.close()));
}
