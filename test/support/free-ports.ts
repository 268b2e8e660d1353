import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer().once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** The first port the kernel hands out for port 0 and outgoing connections (Linux: 32768). */
function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A base port with base, base+1 and base+9 free: the demo's sandbox banks and receiver. Drawn below
 * the ephemeral range, because a launcher restarted on the same data directory listens on the same
 * ports again, and meanwhile any server listening on port 0 (other suites' test banks) may be given
 * one of the ephemeral ports (seen in CI: EADDRINUSE on the restart).
 */
export async function freePortBase(): Promise<number> {
  const top = ephemeralStart() - 10;
  for (;;) {
    const base = 10_000 + Math.floor(Math.random() * (top - 10_000));
    if ((await portFree(base)) && (await portFree(base + 1)) && (await portFree(base + 9))) return base;
  }
}
