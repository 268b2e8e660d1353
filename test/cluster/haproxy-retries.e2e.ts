import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { framedHttp, pooledHttp, serveFrames } from '@gateway/kernel';
import { Haproxy, haproxyConfig, haproxyInstalled } from '../../scripts/cluster/haproxy';
import { freePort } from '../../scripts/launcher/service-process';

/** Which instance saw each request (by its x-test-id), in order. */
const seen = new Map<string, string[]>();

/**
 * An instance that fails the first attempt of a request the way `x-fail` says (`empty`: reads it
 * and closes the socket without a byte of answer, as an instance dying mid-request; `503`: answers
 * 503) and answers 200 with its name to any later attempt, wherever it lands.
 */
/** Upgrade requests that reached an instance, by instance. */
const upgrades = new Map<string, number>();

function instance(name: string): Server {
  const server = createServer((req, res) => {
    if (req.url === '/readyz') return void res.end('ready');
    const id = String(req.headers['x-test-id']);
    const attempts = seen.get(id) ?? [];
    attempts.push(name);
    seen.set(id, attempts);
    req.resume();
    req.on('end', () => {
      if (attempts.length === 1 && req.headers['x-fail'] === 'empty') return void req.socket.destroy();
      if (attempts.length === 1 && req.headers['x-fail'] === '503') return void res.writeHead(503).end('not ready');
      res.end(name);
    });
  });
  // Each instance grants the framed channel, as a subgraph does: only the balancer stands in its way.
  server.prependListener('upgrade', () => upgrades.set(name, (upgrades.get(name) ?? 0) + 1));
  serveFrames(server, '/graphql', async () => ({ status: 200, headers: {}, body: `${name} (framed)` }), {
    maxRequestBytes: 1024,
  });
  return server;
}

/** A request on a connection of its own (HAProxy answers 502 there, where it would close a reused one silently). */
function send(
  port: number,
  method: string,
  id: string,
  headers: Record<string, string> = {},
  path = '/work',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, agent: false, headers: { 'x-test-id': id, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? '{"amount":100}' : undefined);
  });
}

/**
 * The generated HAProxy configuration (scripts/cluster/haproxy.ts) in front of two instances: a
 * request that may have reached an instance is sent to the other one only when replaying it is
 * safe (GET/HEAD, or an Idempotency-Key on a path the service deduplicates it on); a connection
 * refused is retried for every method.
 */
(haproxyInstalled() || process.env.CI === 'true' ? describe : describe.skip)(
  'cluster HAProxy: which requests are retried',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-haproxy-retries-'));
    const servers = { 'app-1': instance('app-1'), 'app-2': instance('app-2') };
    let haproxy: Haproxy;
    let frontendPort: number;

    beforeAll(async () => {
      const ports: number[] = [];
      for (const server of Object.values(servers)) {
        const port = await freePort();
        await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
        ports.push(port);
      }
      frontendPort = await freePort();
      const statsPort = await freePort();
      haproxy = new Haproxy(join(dir, 'haproxy.cfg'), statsPort);
      const service = {
        name: 'app',
        frontendPort,
        servers: Object.keys(servers).map((name, index) => ({ name, port: ports[index]! })),
        public: true,
        deduplicatedPaths: ['/payments/sessions', '/recurring/mandates/{mandate_id}/charge'],
      };
      // Up after one check; out only after 20 failed ones (10 s): an instance that refuses
      // connections stays in rotation, as in the seconds before its checks fail.
      await haproxy.start(haproxyConfig([service], statsPort, { intervalMs: 500, fall: 20, rise: 1 }));
      await haproxy.waitUp('app', 'app-1');
      await haproxy.waitUp('app', 'app-2');
    });

    afterAll(async () => {
      await haproxy?.stop();
      for (const server of Object.values(servers)) {
        server.closeAllConnections();
        server.close();
      }
      rmSync(dir, { recursive: true, force: true });
    });

    it('never replays a POST without Idempotency-Key that got no answer: one attempt, the client gets 502', async () => {
      const answer = await send(frontendPort, 'POST', 'post-empty', { 'x-fail': 'empty' });
      expect(answer.status).toBe(502);
      expect(seen.get('post-empty')).toHaveLength(1);
    });

    it('never replays a POST without Idempotency-Key answered 503: the client gets that 503', async () => {
      const answer = await send(frontendPort, 'POST', 'post-503', { 'x-fail': '503' });
      expect(answer).toEqual({ status: 503, body: 'not ready' });
      expect(seen.get('post-503')).toHaveLength(1);
    });

    it('sends a GET that got no answer, or a 503, to the other instance', async () => {
      for (const fail of ['empty', '503']) {
        const answer = await send(frontendPort, 'GET', `get-${fail}`, { 'x-fail': fail });
        const attempts = seen.get(`get-${fail}`)!;
        expect(attempts).toHaveLength(2);
        expect(attempts[1]).not.toBe(attempts[0]);
        expect(answer).toEqual({ status: 200, body: attempts[1] });
      }
    });

    it('replays a POST with an Idempotency-Key on a path that deduplicates it, on the other instance', async () => {
      for (const [fail, path] of [
        ['empty', '/payments/sessions'],
        ['503', '/recurring/mandates/mdt_1/charge'],
      ] as const) {
        const answer = await send(
          frontendPort,
          'POST',
          `keyed-${fail}`,
          { 'x-fail': fail, 'idempotency-key': `key-${fail}` },
          path,
        );
        const attempts = seen.get(`keyed-${fail}`)!;
        expect(attempts).toHaveLength(2);
        expect(answer).toEqual({ status: 200, body: attempts[1] });
      }
    });

    it('never replays a POST whose path ignores the Idempotency-Key it carries (authorize)', async () => {
      const answer = await send(
        frontendPort,
        'POST',
        'keyed-authorize',
        { 'x-fail': 'empty', 'idempotency-key': 'key-authorize' },
        '/pay/ses_1/authorize',
      );
      expect(answer.status).toBe(502);
      expect(seen.get('keyed-authorize')).toHaveLength(1);
    });

    it('refuses the framed channel: a caller that asks for it stays on HTTP, balanced per request', async () => {
      const agent = new Agent();
      const framed = framedHttp(pooledHttp(agent));
      const bodies: string[] = [];
      try {
        for (const n of [1, 2, 3, 4]) {
          const request = { headers: { 'x-test-id': `framed-${n}` }, body: { query: '{ a }' }, ip: '' };
          bodies.push((await framed(`http://127.0.0.1:${frontendPort}/graphql`, request, 2000)).body);
          await new Promise((resolve) => setTimeout(resolve, 30)); // the handshakes were answered
        }
      } finally {
        await agent.close();
      }
      expect([...upgrades.values()]).toEqual([]);
      expect(bodies.sort()).toEqual(['app-1', 'app-1', 'app-2', 'app-2']);
    });

    it('retries any POST whose connection was refused (nothing was sent)', async () => {
      const gone = servers['app-1'];
      gone.closeAllConnections();
      await new Promise((resolve) => gone.close(resolve));
      // Round robin sends every other one to the closed instance, still in rotation.
      const answers = [];
      for (const n of [1, 2, 3, 4]) answers.push(await send(frontendPort, 'POST', `refused-${n}`));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect(answers.every((answer) => answer.body === 'app-2')).toBe(true);
    });
  },
);
