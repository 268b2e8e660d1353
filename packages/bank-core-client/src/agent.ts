import { Agent, type Dispatcher } from 'undici';

let shared: Agent | undefined;

/**
 * One keep-alive connection pool per bank core origin, shared by every client in the process
 * (undici's Agent keeps a Pool per origin): a gateway instance talks to a handful of cores all
 * day, so reusing TLS connections matters more than isolating clients.
 */
export function sharedBankCoreAgent(): Dispatcher {
  shared ??= new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connections: 128,
    // Per-attempt deadlines come from the client's AbortSignal; these only bound what it cannot see.
    connect: { timeout: 10_000 },
  });
  return shared;
}

/** Closes the shared pool (graceful shutdown, end of a test run). A later call opens a new one. */
export async function closeBankCoreAgent(): Promise<void> {
  const agent = shared;
  shared = undefined;
  await agent?.close();
}
