import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { FRAMES_PROTOCOL } from '@gateway/kernel';

/** How HAProxy health-checks every server (GET /readyz). */
export interface HealthCheck {
  intervalMs: number;
  /** Failed checks in a row before a server is out. */
  fall: number;
  /** Passed checks in a row before it is back. */
  rise: number;
}

export const DEFAULT_HEALTH_CHECK: HealthCheck = { intervalMs: 1000, fall: 2, rise: 2 };

export interface BalancedService {
  /** Backend name: `payments`, `router`, ... */
  name: string;
  /** Where HAProxy listens for this service. */
  frontendPort: number;
  servers: Array<{ name: string; port: number }>;
  /** The public frontend: X-Forwarded-For added for the services behind it. */
  public?: boolean;
  /**
   * Paths (`/payments/sessions`, `/recurring/mandates/{id}/charge`) whose POSTs the service
   * deduplicates by Idempotency-Key: with the header, they may be sent again (see haproxyConfig).
   */
  deduplicatedPaths?: string[];
}

/** One HAProxy regex for path templates: a `{param}` is one path segment. */
export function pathsRegex(paths: string[]): string {
  const one = (path: string) => path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return `^(${paths.map(one).join('|')})$`;
}

/**
 * The HAProxy configuration of the cluster: per service one frontend, balanced over its
 * instances, each health-checked on GET /readyz.
 *
 * Retries. HAProxy 2.6 does not look at the method before it replays a request: every `retry-on`
 * condition applies to a POST as to a GET, and its manual leaves replay protection to the
 * application ("retry-on", "http-request disable-l7-retry"). So the policy is written out here:
 * - `conn-failure` (refused or reset while connecting: nothing was sent) is retried on another
 *   instance for every method;
 * - `empty-response` (the connection closed after the request went out, before any answer: an
 *   instance dying or draining while it worked on it) and a 503 (an instance not ready, a router
 *   whose subgraphs are away, or one that gave up waiting while the work went on) may come from an
 *   instance that did the work. Those are retried only for requests that are safe to send twice:
 *   GET and HEAD, and a POST with an Idempotency-Key header to a path the service deduplicates
 *   (`deduplicatedPaths`: rest-compat's creating POSTs answer a replayed key with the first
 *   answer, or 409 IDEMPOTENCY_KEY_IN_USE while it still runs). Elsewhere the header proves
 *   nothing: rest-compat ignores it on other routes, and behind it every call is a POST /graphql
 *   (the key travels in the variables). Any other request — authorize included, where a wrong
 *   OTP sent twice counts two failures — gets the error, and the client decides:
 *   `http-request disable-l7-retry` keeps only the connection-failure retry for it.
 */
export function haproxyConfig(
  services: BalancedService[],
  statsPort: number,
  check: HealthCheck = DEFAULT_HEALTH_CHECK,
  host = '127.0.0.1',
): string {
  const lines = [
    '# Written by scripts/cluster (npm run start:cluster): every start writes it again.',
    'global',
    '  maxconn 4096',
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    // Above rest-compat's router timeout (20 s) and the router's per-subgraph one (15 s): they answer first.
    '  timeout server 60s',
    '  timeout http-request 10s',
    '  timeout queue 10s',
    // graphql-ws subscriptions through rest-compat and the router.
    '  timeout tunnel 1h',
    '  retries 3',
    // Every retry to another instance, not the one that just failed.
    '  option redispatch 1',
    `  default-server inter ${check.intervalMs}ms fall ${check.fall} rise ${check.rise}`,
    // A check's own deadline (else it is `inter`): /readyz asks the database and, for rest-compat and
    // the router, the services behind them; a busy second must not take a healthy instance out.
    '  timeout check 3s',
    '',
    'frontend stats',
    `  bind 127.0.0.1:${statsPort}`,
    '  stats enable',
    '  stats uri /stats',
    '',
  ];
  for (const service of services) {
    lines.push(
      `frontend ${service.name}_in`,
      `  bind ${service.public ? host : '127.0.0.1'}:${service.frontendPort}`,
      ...(service.public ? ['  option forwardfor'] : []),
      // The framed channel (kernel's framed-transport.ts) would tunnel many calls through one
      // upgraded connection to one instance, out of reach of the per-request balancing, health
      // checks and retries here: refused, its callers stay on HTTP through the balancer.
      `  http-request deny deny_status 400 if { req.hdr(upgrade) -i ${FRAMES_PROTOCOL} }`,
      `  default_backend ${service.name}`,
      '',
      `backend ${service.name}`,
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  retry-on conn-failure empty-response 503',
      ...(service.deduplicatedPaths?.length
        ? [
            '  acl idempotency_key req.hdr(idempotency-key) -m found',
            `  acl deduplicated_path path_reg ${pathsRegex(service.deduplicatedPaths)}`,
            // METH_GET is GET or HEAD; two ACLs side by side must both match.
            '  http-request disable-l7-retry unless METH_GET || METH_POST idempotency_key deduplicated_path',
          ]
        : ['  http-request disable-l7-retry unless METH_GET']),
      ...service.servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port} check`),
      '',
    );
  }
  return lines.join('\n');
}

/** HAProxy (Debian's package: /usr/sbin/haproxy) in the foreground, owned by the cluster. */
export class Haproxy {
  private child: ChildProcess | null = null;
  private output = '';

  constructor(
    private readonly configFile: string,
    private readonly statsPort: number,
  ) {}

  get statsUrl(): string {
    return `http://127.0.0.1:${this.statsPort}/stats`;
  }

  async start(config: string): Promise<void> {
    writeFileSync(this.configFile, config);
    const child = spawn(HAPROXY_BINARY, ['-db', '-f', this.configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-10_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const spawned = await new Promise<Error | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', resolve);
    });
    if (spawned)
      throw new Error(
        `haproxy could not be started (${spawned.message}): install Debian's haproxy package (apt-get install haproxy) or set HAPROXY`,
      );
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await this.status().catch(() => undefined))) {
      if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`haproxy did not answer on its stats port:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Each server's state as HAProxy sees it, by `backend/server`: UP, DOWN, `UP 1/2` (rising), ... */
  async status(): Promise<Record<string, string>> {
    return this.column('status', String);
  }

  /** One column of the stats page per server, by `backend/server`. */
  private async column<T>(name: string, read: (cell: string) => T): Promise<Record<string, T>> {
    const response = await fetch(`http://127.0.0.1:${this.statsPort}/stats;csv`, { signal: AbortSignal.timeout(2000) });
    const [header, ...rows] = (await response.text()).trim().split('\n');
    const columns = header!.replace(/^# /, '').split(',');
    const at = (name: string) => columns.indexOf(name);
    const values: Record<string, T> = {};
    for (const row of rows) {
      const cells = row.split(',');
      const server = cells[at('svname')]!;
      if (server === 'FRONTEND' || server === 'BACKEND') continue;
      values[`${cells[at('pxname')]}/${server}`] = read(cells[at(name)]!);
    }
    return values;
  }

  /** Requests each server was sent so far, by `backend/server` (HAProxy's cumulative `stot`). */
  async sent(): Promise<Record<string, number>> {
    return this.column('stot', Number);
  }

  /** Waits until HAProxy sends requests to `backend/server` again (its checks passed `rise` times). */
  async waitUp(backend: string, server: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // A busy machine can keep the stats page past status()'s 2 s: a slow or failed poll is retried
      // until the deadline, like a server that is not up yet (a fresh-clone CI failed on one).
      const state = await this.status().then(
        (status) => status[`${backend}/${server}`],
        (error: Error) => `unanswered (${error.message})`,
      );
      if (state === 'UP') return;
      if (Date.now() > deadline) throw new Error(`haproxy still sees ${backend}/${server} as ${state ?? 'absent'}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/** The haproxy binary the cluster runs (HAPROXY, else `haproxy` on PATH). */
export const HAPROXY_BINARY = process.env.HAPROXY ?? 'haproxy';

/** Whether HAProxy can run here (tests without it skip, except under CI, which installs it). */
export function haproxyInstalled(): boolean {
  try {
    execFileSync(HAPROXY_BINARY, ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
