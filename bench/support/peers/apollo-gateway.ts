/**
 * A stock @apollo/gateway for bench/peers.ts, in a process of its own (its CPU is measured):
 * ApolloServer's standalone server and the gateway on the same supergraph SDL as our router, its
 * own RemoteGraphQLDataSource per subgraph. The one addition: the signed principal the client
 * sends (the one our router would forward) and the request id it is signed for are passed on to
 * the subgraphs, which refuse a call without them. PEER_PORT, PEER_SUPERGRAPH (a file).
 */
import { readFileSync } from 'node:fs';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { PRINCIPAL_HEADER, REQUEST_ID_HEADER } from '@gateway/kernel';

interface Context {
  principal?: string;
  requestId?: string;
}

void (async () => {
  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(process.env.PEER_SUPERGRAPH!, 'utf8'),
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource<Context>({
        url,
        willSendRequest({ request, context }) {
          if (context.principal) request.http?.headers.set(PRINCIPAL_HEADER, context.principal);
          if (context.requestId) request.http?.headers.set(REQUEST_ID_HEADER, context.requestId);
        },
      }),
  });
  const server = new ApolloServer<Context>({ gateway, csrfPrevention: false });
  const { url } = await startStandaloneServer(server, {
    listen: { port: Number(process.env.PEER_PORT), host: '127.0.0.1' },
    context: async ({ req }) => {
      const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
      return { principal: first(req.headers[PRINCIPAL_HEADER]), requestId: first(req.headers[REQUEST_ID_HEADER]) };
    },
  });
  console.log(`peer listening ${url}`);
})();
