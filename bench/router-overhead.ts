/**
 * Issue 32: what the router itself costs a request in one process, without the noise of HTTP, a
 * database or a load generator sharing the machine. The router runs here on the real supergraph
 * (the four subgraphs' schema.graphql) with each subgraph's /graphql served in this process by a
 * stub that answers at once (kernel's serveInProcess); 50 callers then send rest-compat's alias
 * resolution (`GET /v1/identity/resolve`: public, limited per IP) through the router's in-process
 * edge, as rest-compat does in `npm start`: request id, admission (credentials, document checks,
 * rate limit), forwarding (variables checked, principal signed, in-flight sharing), metrics. The
 * same callers then call the stub directly with the signed principal: the hop alone. The
 * difference is the router's own CPU per request; CPU is the process's (process.cpuUsage), GC
 * threads included; so is the JS heap each call allocates (support/allocation.ts), with async hooks on as in the platform (an AsyncLocalStorage has run). The HTTP benchmarks (alias-resolution.ts, peers.ts) move by ±30 µs a request
 * between runs on a shared 2-core machine; this one by about ±1 µs, so it shows what a change to
 * the router's path is worth.
 *
 *   node -r ./scripts/register.js bench/router-overhead.ts      (DATABASE_URL: the router's vault there, else PGlite)
 *   BENCH_CALLS=60000 BENCH_ROUNDS=3 ...
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTestDatabase } from '@gateway/db/testing';
import {
  callGraphQL,
  newId,
  newSecret,
  PRINCIPAL_HEADER,
  serveInProcess,
  signPrincipal,
  type LocalRequest,
} from '@gateway/kernel';
import { startRouter } from '@gateway/router';
import { allocatedDuring } from './support/allocation';
import { median } from './support/peer-summary';
import { report } from './support/results';

process.env.LOG_LEVEL ??= 'error';
const CALLS = Number(process.env.BENCH_CALLS ?? 60_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 50;
const SUBGRAPHS = ['identity', 'payments', 'banks', 'open-banking'];
// rest-compat's operation for GET /v1/identity/resolve (rest-compat/src/routes/identity.ts), as it sends it.
const RESOLVE = `query ResolveAlias($alias: String, $phone: String, $iban: String) {
  resolveAlias(alias: $alias, phone: $phone, iban: $iban) { alias iban bankHandle institutionCode customerDisplayName }
}`;
const ANSWER = JSON.stringify({
  data: {
    resolveAlias: {
      alias: 'shop',
      iban: 'LY48770001000000000001001',
      bankHandle: 'benchbank',
      institutionCode: '770',
      customerDisplayName: 'S***',
    },
  },
});

async function main(): Promise<void> {
  // As in the platform, where MikroORM's transactions run in an AsyncLocalStorage: once one has
  // run, Node keeps async hooks on for every promise of the process, and each promise costs more.
  new AsyncLocalStorage<object>().run({}, () => undefined);
  const db = await openTestDatabase();
  const platformSecret = newSecret('pls_');
  // Addresses nothing listens on: the router reaches each subgraph through its in-process stub.
  const endpoints = SUBGRAPHS.map((name, index) => ({
    name,
    url: `http://127.0.0.1:${9 + index}/graphql`,
    sdl: readFileSync(join(__dirname, '..', 'subgraphs', name, 'schema.graphql'), 'utf8'),
  }));
  const stubs = endpoints.map(({ url }) =>
    serveInProcess(url, async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: ANSWER }), {
      enabled: true,
    }),
  );
  const router = await startRouter({
    db,
    subgraphs: endpoints,
    platformSecret,
    adminKey: newSecret('adm_'),
    production: true,
    rateLimits: { identity_resolve: { points: 1e9 } },
    inProcess: true,
  });
  try {
    const options = { timeoutMs: 15_000, failure: (_late: boolean, cause: unknown) => cause as Error };
    let calls = 0;
    /** rest-compat's call (rest-compat/src/headers.ts: routerCallHeaders), or the stub's with the principal the router signs. */
    const request = (direct: boolean): LocalRequest => {
      const requestId = newId('request');
      // Signed for the stub's subgraph and this request, as the router signs each hop (kernel's principal.ts).
      const principal = () =>
        signPrincipal({ kind: 'anonymous', ip: '127.0.0.1' }, platformSecret, {
          audience: endpoints[0]!.name,
          requestId,
        });
      return {
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-request-id': requestId,
          'x-forwarded-for': '127.0.0.1',
          ...(direct ? { [PRINCIPAL_HEADER]: principal() } : {}),
        },
        body: { query: RESOLVE, variables: { alias: `shop${calls++ % 200}` } },
        ip: '127.0.0.1',
      };
    };
    /** CPU (µs) and JS heap allocated (bytes) per call. */
    const run = async (direct: boolean, count: number): Promise<{ cpu: number; bytes: number }> => {
      const url = direct ? endpoints[0]!.url : router.graphqlUrl;
      const caller = async () => {
        for (let i = 0; i < count / CONCURRENCY; i += 1) {
          const answer = await callGraphQL(url, request(direct), options);
          if (answer.status !== 200 || !answer.body.includes('"iban"')) throw new Error(`answered ${answer.body}`);
        }
      };
      const before = process.cpuUsage();
      const bytes = await allocatedDuring(async () => {
        await Promise.all(Array.from({ length: CONCURRENCY }, caller));
      });
      const used = process.cpuUsage(before);
      return { cpu: (used.user + used.system) / count, bytes: bytes / count };
    };
    // Warm up both (JIT, the router's document caches), then alternate so drift hits both alike.
    await run(false, CALLS / 2);
    await run(true, CALLS / 2);
    const through: Array<{ cpu: number; bytes: number }> = [];
    const hop: Array<{ cpu: number; bytes: number }> = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      through.push(await run(false, CALLS));
      hop.push(await run(true, CALLS));
      const [mine, alone] = [through.at(-1)!, hop.at(-1)!];
      console.log(
        `round ${round}: through the router ${mine.cpu.toFixed(2)} us CPU and ${(mine.bytes / 1024).toFixed(1)} KB allocated per call, the hop alone ${alone.cpu.toFixed(2)} us and ${(alone.bytes / 1024).toFixed(1)} KB`,
      );
    }
    const own = median(through.map((value, index) => value.cpu - hop[index]!.cpu));
    const ownBytes = median(through.map((value, index) => value.bytes - hop[index]!.bytes));
    console.log(
      `\nthe router's own cost per request in one process (alias resolution, ${CONCURRENCY} callers, median of ${ROUNDS}, Node ${process.versions.node}): ${own.toFixed(2)} us CPU, ${(ownBytes / 1024).toFixed(1)} KB allocated`,
    );
    report({
      figure: "router's own heap allocated per request in one process (alias resolution, subgraphs stubbed)",
      value: ownBytes / 1024,
      unit: 'KB',
    });
    report({
      figure: "router's own CPU per request in one process (alias resolution, subgraphs stubbed)",
      value: own,
      unit: 'µs',
    });
  } finally {
    await router.stop();
    for (const stop of stubs) stop();
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
