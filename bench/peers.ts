/**
 * Issue 32: our router beside its peers, in one run, on the same subgraphs. The four subgraphs in
 * their split layout (each its own process, HTTP, PostgreSQL), served to the same 50 clients by
 *   router            our router (router/src/main.ts), as the split layout starts it
 *   router, unshared  the same with ROUTER_SHARE_INFLIGHT_READS=off (what in-flight sharing changes)
 *   apollo            a stock @apollo/gateway (ApolloServer standalone, same supergraph SDL)
 *   hive              Hive Gateway (@graphql-hive/gateway's runtime, its defaults, same supergraph SDL)
 *   hive, rust planner
 *                     (hive-rust) the same with @graphql-hive/router-runtime: Hive Router's Rust
 *                     query planner and its executor in place of the JavaScript ones, Hive's fast mode
 *   floor             a bare Node proxy (bench/support/peers/bare-proxy.ts; one-subgraph operation
 *                     only): HTTP in, the body parsed, HTTP out to identity through our transport;
 *                     its CPU per request is what Node's HTTP costs any gateway here
 *   direct            the identity subgraph itself (one-subgraph operation only): the limit, and
 *                     its CPU per request is the subgraph's
 * Every gateway and the subgraphs run in processes of their own; each gateway's CPU per request is
 * its process's CPU over the phase / the requests answered (bench/support/cpu.ts).
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./scripts/register.js bench/peers.ts
 *   BENCH_DURATION_MS (default 10000 per run), BENCH_WARMUP_MS (3000 per gateway and case),
 *   BENCH_ROUNDS (2), BENCH_CONCURRENCY (50), BENCH_PEERS_GATEWAYS
 *   (router,router-unshared,apollo,hive,hive-rust,floor,direct),
 *   BENCH_PEERS_OPS (single,cross), BENCH_PEERS_KEYS (distinct,hot)
 *
 * Operations: `single` resolves an alias (identity answers it whole); `cross` resolves an alias with
 * its bank's public fields (identity, then banks). Both are public: our router signs the anonymous
 * caller's principal for each subgraph itself; the peers get the same signed principals from the
 * client and pass them on (the subgraphs refuse a call without one), so the subgraphs do the same
 * work behind each.
 * Key patterns: `distinct` (200 aliases, 4 of its own to each client) and `hot` (every client asks for
 * the same 3 aliases: a popular shop's alias), where sharing identical fetches in flight matters.
 * Rounds run every gateway once, in an order rotated each round, so drift over the run hits all;
 * across subgraphs with distinct keys, our router and Hive Gateway are then also offered one rate
 * (70 % of Hive Gateway's throughput, an open loop) for the p99 "at the same load";
 * each run's figures are printed, and per gateway the median with the range. Ratios (our router
 * against a peer, or against the direct subgraph) are comparable across machines; req/s and CPU
 * milliseconds are not. Reported to the summary of `npm run bench` (bench/support/results.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { openTestDatabase } from '@gateway/db/testing';
import { newId, PRINCIPAL_HEADER, REQUEST_ID_HEADER, signPrincipal } from '@gateway/kernel';
import { composeSupergraph } from '@gateway/router';
import { freePort, ServiceProcess } from '../scripts/launcher/service-process';
import { SUBGRAPHS } from '../scripts/launcher/split-layout';
import { processCpuSeconds } from './support/cpu';
import { printTable, runLoad, runOpenLoad } from './support/load';
import { HIVE_RUST, median, peerSummary, reportPeers, type PeerRun } from './support/peer-summary';
import { seedAliases } from './support/seed-aliases';
import { launchSplitPlatform } from './support/split-launcher';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const list = (name: string, all: string) => (process.env[name] ?? all).split(',').map((entry) => entry.trim());
const GATEWAYS = list('BENCH_PEERS_GATEWAYS', 'router,router-unshared,apollo,hive,hive-rust,floor,direct');
const OPS = list('BENCH_PEERS_OPS', 'single,cross');
const KEYS = list('BENCH_PEERS_KEYS', 'distinct,hot');
const ALIASES = 200;
const HOT = 3;
const RAISED_LIMITS = JSON.stringify({ identity_resolve: { points: 1e9 }, read: { points: 1e9 } });

/** Each operation, what a right answer has, and the subgraphs it reaches (a principal is signed for each). */
const OPERATIONS: Record<string, { query: string; check: (data: any) => boolean; subgraphs: string[] }> = {
  single: {
    query:
      'query Resolve($a: String) { resolveAlias(alias: $a) { alias iban bankHandle institutionCode customerDisplayName } }',
    check: (data) => Boolean(data?.resolveAlias?.iban),
    subgraphs: ['identity'],
  },
  cross: {
    query:
      'query ResolveWithBank($a: String) { resolveAlias(alias: $a) { alias iban customerDisplayName bank { handle displayName institutionCode status } } }',
    check: (data) => Boolean(data?.resolveAlias?.iban && data.resolveAlias.bank?.displayName),
    subgraphs: ['identity', 'banks'],
  },
};

interface Target {
  name: string;
  url: string;
  /** The process whose CPU is the gateway's (the identity subgraph's for the direct one). */
  pid?: number;
  /** The signed principal goes with each request (peers and the subgraph; our router signs its own). */
  signed: boolean;
  /** Our router's /metrics, for the subgraph fetches it saved. */
  metricsUrl?: string;
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.error('bench/peers.ts runs the split layout on PostgreSQL: set DATABASE_URL.');
    process.exit(2);
  }
  const own = await openTestDatabase(); // a fresh database, dropped at the end
  process.env.DATABASE_URL = own.url;
  const platform = await launchSplitPlatform({ RATE_LIMITS: RAISED_LIMITS });
  const extra: ServiceProcess[] = [];
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  try {
    const { layout, common } = platform.split!;
    const aliases = await seedAliases(platform, agent, ALIASES);
    const subgraphUrl = (name: string) => `http://127.0.0.1:${layout.ports[name as 'banks'][0]}/graphql`;
    const dir = mkdtempSync(join(tmpdir(), 'gw-bench-peers-'));
    const supergraphFile = join(dir, 'supergraph.graphql');
    writeFileSync(
      supergraphFile,
      composeSupergraph(
        SUBGRAPHS.map((name) => ({
          name,
          url: subgraphUrl(name),
          sdl: readFileSync(join(__dirname, '..', 'subgraphs', name, 'schema.graphql'), 'utf8'),
        })),
      ),
    );
    const started = async (
      name: string,
      entry: string,
      env: Record<string, string>,
      ready: (port: number) => string,
    ) => {
      const port = await freePort();
      const instance = new ServiceProcess(
        { name, service: name, entry, env: { ...env, PEER_PORT: String(port) }, port, readyUrl: ready(port) },
        common,
      );
      extra.push(instance);
      await instance.start();
      return { port, pid: instance.child!.pid!, output: () => instance.lastOutput() };
    };
    const typename = (port: number) => `http://127.0.0.1:${port}/graphql?query=%7B__typename%7D`;
    const router = layout.of('router')[0]!;
    const targets: Target[] = [];
    for (const name of GATEWAYS) {
      if (name === 'router')
        targets.push({
          name: 'router',
          url: `${platform.routerUrl}/graphql`,
          pid: router.child!.pid,
          signed: false,
          metricsUrl: `${platform.routerUrl}/metrics`,
        });
      else if (name === 'router-unshared') {
        const port = await freePort();
        const unshared = new ServiceProcess(
          {
            ...router.spec,
            name: 'router-unshared',
            env: { ...router.spec.env, ROUTER_PORT: String(port), ROUTER_SHARE_INFLIGHT_READS: 'off' },
            port,
            readyUrl: `http://127.0.0.1:${port}/readyz`,
          },
          common,
        );
        extra.push(unshared);
        await unshared.start();
        targets.push({
          name: 'router, unshared',
          url: `http://127.0.0.1:${port}/graphql`,
          pid: unshared.child!.pid,
          signed: false,
        });
      } else if (name === 'apollo') {
        const peer = await started(
          'apollo-gateway',
          'bench/support/peers/apollo-gateway.ts',
          { PEER_SUPERGRAPH: supergraphFile },
          typename,
        );
        targets.push({ name: 'apollo', url: `http://127.0.0.1:${peer.port}/graphql`, pid: peer.pid, signed: true });
      } else if (name === 'hive') {
        const peer = await started(
          'hive-gateway',
          'bench/support/peers/hive-gateway.ts',
          { PEER_SUPERGRAPH: supergraphFile },
          typename,
        );
        targets.push({ name: 'hive', url: `http://127.0.0.1:${peer.port}/graphql`, pid: peer.pid, signed: true });
      } else if (name === 'hive-rust') {
        const peer = await started(
          'hive-gateway-rust',
          'bench/support/peers/hive-gateway.ts',
          { PEER_SUPERGRAPH: supergraphFile, PEER_HIVE_ROUTER_RUNTIME: '1' },
          typename,
        );
        // The ready check's query loaded the supergraph: had the router runtime not been taken up,
        // this run would measure the JavaScript planner a second time under another name.
        if (!peer.output().includes('the Rust query planner handles the supergraph'))
          throw new Error(`hive-rust: the router runtime did not load:\n${peer.output()}`);
        targets.push({
          name: HIVE_RUST,
          url: `http://127.0.0.1:${peer.port}/graphql`,
          pid: peer.pid,
          signed: true,
        });
      } else if (name === 'floor') {
        const peer = await started(
          'bare-proxy',
          'bench/support/peers/bare-proxy.ts',
          { PEER_TARGET: subgraphUrl('identity') },
          (port) => `http://127.0.0.1:${port}/`,
        );
        targets.push({ name: 'floor', url: `http://127.0.0.1:${peer.port}/graphql`, pid: peer.pid, signed: true });
      } else if (name === 'direct')
        // Its CPU per request is the identity subgraph's (the first instance, the one subgraphUrl names).
        targets.push({
          name: 'direct',
          url: subgraphUrl('identity'),
          pid: layout.of('identity')[0]!.child!.pid,
          signed: true,
        });
      else throw new Error(`BENCH_PEERS_GATEWAYS: unknown gateway ${name}`);
    }

    // What our router forwards for an anonymous caller on loopback, and the request id the peers
    // pass on with it. A principal is signed for one subgraph (its audience), as our router signs
    // each hop: PRINCIPAL_HEADER carries identity's (what the bare proxy and the direct subgraph
    // take), and `x-bench-principal-<subgraph>` each one the operation reaches, for the gateways
    // that pick the principal of the subgraph they call (bench/support/peers/hive-gateway.ts).
    const signed = (subgraphs: string[]) => {
      const requestId = newId('request');
      const headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestId };
      for (const audience of subgraphs)
        headers[`x-bench-principal-${audience}`] = signPrincipal(
          { kind: 'anonymous', ip: '127.0.0.1' },
          platform.platformSecret,
          { audience, requestId },
        );
      headers[PRINCIPAL_HEADER] = headers['x-bench-principal-identity']!;
      return headers;
    };
    const work = (target: Target, op: string, keys: string) => {
      const { query, check, subgraphs } = OPERATIONS[op]!;
      // Distinct: each client goes round aliases of its own, so no two clients ever ask the same one
      // at once (a shared one would let our router and Hive Gateway save fetches the direct row cannot).
      const own = Math.max(1, Math.floor(aliases.length / CONCURRENCY));
      const aliasOf = (worker: number, i: number) =>
        aliases[keys === 'hot' ? (worker + i) % HOT : (worker * own + (i % own)) % aliases.length]!;
      return async (worker: number, i: number) => {
        const response = await request(target.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(target.signed ? signed(subgraphs) : {}),
          },
          body: JSON.stringify({ query, variables: { a: aliasOf(worker, i) } }),
          dispatcher: agent,
        });
        const body = (await response.body.json()) as { data?: unknown; errors?: unknown[] };
        if (response.statusCode !== 200 || body.errors?.length || !check(body.data))
          throw new Error(`${target.name}: ${response.statusCode} ${JSON.stringify(body).slice(0, 300)}`);
      };
    };
    const savedFetches = async (target: Target): Promise<number> => {
      if (!target.metricsUrl) return NaN;
      const text = await (await request(target.metricsUrl, { dispatcher: agent })).body.text();
      return text
        .split('\n')
        .filter((line) => line.startsWith('router_subgraph_fetches_shared_total{'))
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    };

    /**
     * Issue 32 asks for p99 "at the same load": after the closed-loop rounds, our router and Hive
     * Gateway are offered one rate (an open loop: arrivals do not wait for answers), 70 % of Hive
     * Gateway's closed-loop throughput, so that both are below saturation and the latencies compare.
     */
    const sameLoad = async (done: PeerRun[], here: Target[], op: string, keys: string): Promise<PeerRun[]> => {
      const pair = here.filter((target) => target.name === 'router' || target.name === 'hive');
      const hive = done.filter((run) => run.op === op && run.keys === keys && run.gateway === 'hive');
      if (pair.length < 2 || !hive.length) return [];
      const rate = Math.max(10, Math.round((0.7 * median(hive.map((run) => run.result.perSecond))) / 10) * 10);
      const offered: PeerRun[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const target of round % 2 ? [...pair].reverse() : pair) {
          const send = work(target, op, keys);
          let sent = 0;
          const cpuBefore = processCpuSeconds(target.pid);
          const result = await runOpenLoad(
            `${op}, ${keys}, ${rate}/s offered: ${target.name} #${round + 1}`,
            rate,
            DURATION_MS,
            CONCURRENCY * 10,
            () => {
              sent += 1;
              return send(sent % CONCURRENCY, Math.floor(sent / CONCURRENCY));
            },
          );
          offered.push({
            op,
            keys: `${keys}, ${rate}/s offered`,
            gateway: target.name,
            round,
            result,
            cpuMsPerRequest: (1000 * (processCpuSeconds(target.pid) - cpuBefore)) / result.requests,
            savedPerRequest: NaN,
          });
        }
      }
      return offered;
    };

    const runs: PeerRun[] = [];
    for (const op of OPS) {
      if (!OPERATIONS[op]) throw new Error(`BENCH_PEERS_OPS: unknown operation ${op}`);
      for (const keys of KEYS) {
        // The direct subgraph and the bare proxy in front of it answer the one-subgraph operation only.
        const here = targets.filter((target) => !['direct', 'floor'].includes(target.name) || op === 'single');
        for (const target of here) {
          const warm = await runLoad(
            `${target.name} (warm-up)`,
            { concurrency: CONCURRENCY, durationMs: WARMUP_MS },
            work(target, op, keys),
          );
          if (warm.requests === 0)
            throw new Error(`${target.name} answered nothing in the warm-up of ${op}/${keys}: ${warm.firstError}`);
        }
        for (let round = 0; round < ROUNDS; round += 1) {
          const order = here.map((_, i) => here[(i + round) % here.length]!);
          for (const target of order) {
            const cpuBefore = processCpuSeconds(target.pid);
            const savedBefore = await savedFetches(target);
            const result = await runLoad(
              `${op}, ${keys}: ${target.name} #${round + 1}`,
              { concurrency: CONCURRENCY, durationMs: DURATION_MS },
              work(target, op, keys),
            );
            const cpuMs = (1000 * (processCpuSeconds(target.pid) - cpuBefore)) / result.requests;
            const saved = ((await savedFetches(target)) - savedBefore) / result.requests;
            runs.push({
              op,
              keys,
              gateway: target.name,
              round,
              result,
              cpuMsPerRequest: cpuMs,
              savedPerRequest: saved,
            });
          }
        }
        if (op === 'cross' && keys === 'distinct') runs.push(...(await sameLoad(runs, here, op, keys)));
      }
    }

    console.log(
      `\npeers, split layout, ${CONCURRENCY} concurrent clients, ${DURATION_MS / 1000} s per run, PostgreSQL`,
    );
    printTable(runs.map((run) => run.result));
    console.log(peerSummary(runs));
    reportPeers(runs);
  } finally {
    await agent.close();
    await Promise.all(extra.map((instance) => instance.terminate(10_000)));
    await platform.stop();
    await own.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
