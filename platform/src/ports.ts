import { createServer } from 'node:net';

/** A start refused before anything was opened: a public port is not free. The message is the whole story. */
export class PortInUseError extends Error {
  override name = 'PortInUseError';
}

/** A port the platform listens on, and the variable that sets it. */
export interface NamedPort {
  variable: string;
  port: number;
}

/**
 * The public ports (REST_PORT, ROUTER_PORT), checked free on HOST before the database is opened,
 * migrated and seeded: a busy port used to fail only at the end of that half a minute, with
 * EADDRINUSE's stack and no word of what to set. Port 0 (any free port) needs no check. The
 * check opens and closes a listener, so a port taken between it and the real listen still
 * fails there, as before; this catches the usual case (another platform, or a dev server,
 * already on 8080).
 */
export async function assertPortsFree(host: string, ports: readonly NamedPort[]): Promise<void> {
  const fixed = ports.filter(({ port }) => port !== 0);
  for (const [index, { variable, port }] of fixed.entries()) {
    const twin = fixed.slice(0, index).find((other) => other.port === port);
    if (twin)
      throw new PortInUseError(
        `${twin.variable} and ${variable} are both ${port}: set ${variable} to another port (0 picks a free one)`,
      );
    const refusal = await listenOnce(host, port);
    if (refusal === 'EADDRINUSE')
      throw new PortInUseError(`port ${port} is in use: set ${variable} to another port (0 picks a free one)`);
    if (refusal === 'EACCES')
      throw new PortInUseError(
        `port ${port} needs privileges this process does not have: set ${variable} to another port (0 picks a free one)`,
      );
  }
}

/** Listens on host:port and closes at once: the error code of a refusal, or undefined when the port is free. */
function listenOnce(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'ERROR'));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}
