/**
 * Hive Gateway (@graphql-hive/gateway's runtime, its defaults) for bench/peers.ts, in a process of
 * its own (its CPU is measured), on the same supergraph SDL as our router. The one addition: the
 * signed principals the client sends (those our router would forward, one per subgraph, as a
 * principal names its audience) and the request id they are signed for are propagated to the
 * subgraphs, which refuse a call without them. PEER_PORT, PEER_SUPERGRAPH (a file),
 * PEER_HIVE_ROUTER_RUNTIME=1: plan and execute with @graphql-hive/router-runtime (Hive Router's
 * Rust query planner) instead of the default JavaScript planner.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { PRINCIPAL_HEADER, REQUEST_ID_HEADER } from '@gateway/kernel';

const routerRuntime = process.env.PEER_HIVE_ROUTER_RUNTIME === '1';

const gateway = createGatewayRuntime({
  supergraph: readFileSync(process.env.PEER_SUPERGRAPH!, 'utf8'),
  logging: 'error',
  // The router runtime runs the same plugins around each subgraph call (onSubgraphExecute, onFetch),
  // so the headers are propagated the same way with either planner.
  propagateHeaders: {
    // bench/peers.ts sends the principal signed for each subgraph as `x-bench-principal-<subgraph>`.
    fromClientToSubgraphs: ({ request, subgraphName }) => {
      const principal = request.headers.get(`x-bench-principal-${subgraphName}`);
      const requestId = request.headers.get(REQUEST_ID_HEADER);
      return principal && requestId ? { [PRINCIPAL_HEADER]: principal, [REQUEST_ID_HEADER]: requestId } : {};
    },
  },
  ...(routerRuntime
    ? {
        // Once per supergraph load, not per request: the figures measured stay the runtime's own.
        unifiedGraphHandler: async (opts: Parameters<typeof unifiedGraphHandler>[0]) => {
          const handled = await unifiedGraphHandler(opts);
          // bench/peers.ts looks for this line: the Rust planner was really used, not just asked for.
          console.log('router runtime: the Rust query planner handles the supergraph');
          return handled;
        },
      }
    : {}),
});
createServer(gateway).listen(Number(process.env.PEER_PORT), '127.0.0.1', () =>
  console.log(`peer listening http://127.0.0.1:${process.env.PEER_PORT}/graphql`),
);
