/**
 * Hive Gateway (@graphql-hive/gateway's runtime, its defaults) for bench/peers.ts, in a process of
 * its own (its CPU is measured), on the same supergraph SDL as our router. The one addition: the
 * signed principal the client sends (the one our router would forward) and the request id it is
 * signed for are propagated to the subgraphs, which refuse a call without them. PEER_PORT,
 * PEER_SUPERGRAPH (a file).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway';
import { PRINCIPAL_HEADER, REQUEST_ID_HEADER } from '@gateway/kernel';

const gateway = createGatewayRuntime({
  supergraph: readFileSync(process.env.PEER_SUPERGRAPH!, 'utf8'),
  logging: 'error',
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }) => {
      const principal = request.headers.get(PRINCIPAL_HEADER);
      const requestId = request.headers.get(REQUEST_ID_HEADER);
      return principal && requestId ? { [PRINCIPAL_HEADER]: principal, [REQUEST_ID_HEADER]: requestId } : {};
    },
  },
});
createServer(gateway).listen(Number(process.env.PEER_PORT), '127.0.0.1', () =>
  console.log(`peer listening http://127.0.0.1:${process.env.PEER_PORT}/graphql`),
);
