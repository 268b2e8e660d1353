/**
 * A stock @apollo/gateway for bench/peers.ts, in a process of its own (its CPU is measured):
 * ApolloServer's standalone server and the gateway on the same supergraph SDL as our router, its
 * own RemoteGraphQLDataSource per subgraph. The one addition: the signed principal the client
 * sends (the one our router would forward) is passed on to the subgraphs, which refuse a call
 * without one. PEER_PORT, PEER_SUPERGRAPH (a file).
 */
import { readFileSync } from 'node:fs';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { PRINCIPAL_HEADER } from '@gateway/kernel';

interface Context {
  principal?: string;
}

void (async () => {
  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(process.env.PEER_SUPERGRAPH!, 'utf8'),
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource<Context>({
        url,
        willSendRequest({ request, context }) {
          if (context.principal) request.http?.headers.set(PRINCIPAL_HEADER, context.principal);
        },
      }),
  });
  const server = new ApolloServer<Context>({ gateway, csrfPrevention: false });
  const { url } = await startStandaloneServer(server, {
    listen: { port: Number(process.env.PEER_PORT), host: '127.0.0.1' },
    context: async ({ req }) => {
      const principal = req.headers[PRINCIPAL_HEADER];
      return { principal: Array.isArray(principal) ? principal[0] : principal };
    },
  });
  console.log(`peer listening ${url}`);
})();
