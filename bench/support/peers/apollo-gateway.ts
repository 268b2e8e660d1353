/**
 * A stock @apollo/gateway for bench/peers.ts, in a process of its own (its CPU is measured):
 * ApolloServer's standalone server and the gateway on the same supergraph SDL as our router, its
 * own RemoteGraphQLDataSource per subgraph. The one addition: the signed principals the client
 * sends (those our router would forward, one per subgraph as `x-bench-principal-<subgraph>`, as a
 * principal names its audience) and the request id they are signed for are passed on to the
 * subgraphs, which refuse a call without them. PEER_PORT, PEER_SUPERGRAPH (a file).
 */
import { readFileSync } from 'node:fs';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { PRINCIPAL_HEADER, REQUEST_ID_HEADER } from '@gateway/kernel';

const BENCH_PRINCIPAL = 'x-bench-principal-';

interface Context {
  /** By subgraph name: the principal signed for it. */
  principals: Record<string, string | undefined>;
  requestId?: string;
}

void (async () => {
  // As our router does (router/src/apollo-telemetry.ts): no cloud metadata probe, no export to Apollo.
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(process.env.PEER_SUPERGRAPH!, 'utf8'),
    buildService: ({ name, url }) =>
      new RemoteGraphQLDataSource<Context>({
        url,
        willSendRequest({ request, context }) {
          const principal = context.principals?.[name];
          if (principal) request.http?.headers.set(PRINCIPAL_HEADER, principal);
          if (context.requestId) request.http?.headers.set(REQUEST_ID_HEADER, context.requestId);
        },
      }),
  });
  const server = new ApolloServer<Context>({ gateway, csrfPrevention: false });
  const { url } = await startStandaloneServer(server, {
    listen: { port: Number(process.env.PEER_PORT), host: '127.0.0.1' },
    context: async ({ req }) => {
      const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
      const principals = Object.fromEntries(
        Object.keys(req.headers)
          .filter((header) => header.startsWith(BENCH_PRINCIPAL))
          .map((header) => [header.slice(BENCH_PRINCIPAL.length), first(req.headers[header])]),
      );
      return { principals, requestId: first(req.headers[REQUEST_ID_HEADER]) };
    },
  });
  console.log(`peer listening ${url}`);
})();
