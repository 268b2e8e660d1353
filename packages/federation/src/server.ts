import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Histogram, type Registry } from 'prom-client';
import { databaseReady, type Database } from '@gateway/db';
import { createMetricsRegistry, newId, PRINCIPAL_HEADER, REQUEST_ID_HEADER, verifyPrincipal, type Logger } from '@gateway/kernel';
import type { SubgraphContext } from './context';
import { formatGatewayError } from './errors';

export interface SubgraphServerOptions {
  name: string;
  schema: GraphQLSchema;
  orm: MikroORM;
  db: Database;
  logger: Logger;
  /** Verifies the principal the router forwards. */
  platformSecret: string;
  production: boolean;
  host?: string;
  port?: number;
  /** Adds the service's own metrics to the registry /metrics serves. */
  metrics?: (registry: Registry) => void;
  /** Extra HTTP routes the subgraph serves besides /graphql (none for most). */
  routes?: (app: FastifyInstance) => void | Promise<void>;
}

export interface RunningService {
  /** Base URL, e.g. http://127.0.0.1:4001 */
  url: string;
  /** GraphQL endpoint */
  graphqlUrl: string;
  stop(): Promise<void>;
}

/** One subgraph as an HTTP service: POST /graphql, /healthz, /readyz, /metrics. */
export async function startSubgraphServer(options: SubgraphServerOptions): Promise<RunningService> {
  const { logger } = options;
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  const registry = createMetricsRegistry(options.name);
  options.metrics?.(registry);
  const duration = new Histogram({
    name: 'subgraph_request_duration_seconds',
    help: 'GraphQL request duration by operation',
    labelNames: ['operation'],
    registers: [registry],
  });

  const apollo = new ApolloServer<SubgraphContext>({
    schema: options.schema,
    introspection: !options.production,
    includeStacktraceInErrorResponses: false,
    formatError: formatGatewayError(logger),
    // The process's main owns SIGINT/SIGTERM and stops everything in order. Apollo's own handler
    // (on by default) stopped each server by itself, out of that order, then re-sent the signal.
    stopOnTerminationSignals: false,
    plugins: [
      // Federated tracing is for Apollo's hosted studio, which this platform does not report to.
      ApolloServerPluginInlineTraceDisabled(),
      fastifyApolloDrainPlugin(app),
      {
        async requestDidStart() {
          const stop = duration.startTimer();
          return {
            async willSendResponse(ctx) {
              stop({ operation: ctx.operationName ?? 'anonymous' });
              // Bad variable values (a float for an Int) are answered 400 by Apollo; the router's
              // gateway turns any non-2xx subgraph answer into an opaque INTERNAL_ERROR. A 200
              // with the GraphQL errors lets it pass the VALIDATION_ERROR and its detail on.
              if (ctx.response.http.status === 400 && ctx.errors?.length) ctx.response.http.status = 200;
            },
          };
        },
      },
    ],
  });
  await apollo.start();
  await app.register(fastifyApollo(apollo), {
    path: '/graphql',
    context: async (request) => {
      const requestId = (request.headers[REQUEST_ID_HEADER] as string | undefined) ?? newId('request');
      const principal = verifyPrincipal(request.headers[PRINCIPAL_HEADER] as string | undefined, options.platformSecret);
      let child: Logger | undefined;
      return {
        principal,
        requestId,
        em: options.orm.em.fork(),
        // Most requests never log: build the child logger on first use.
        get logger() {
          return (child ??= logger.child({ requestId }));
        },
      };
    },
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ok = await databaseReady(options.db);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable', checks: { database: ok } });
  });
  app.get('/metrics', async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
  await options.routes?.(app);

  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  logger.info({ url: address }, `${options.name} subgraph listening`);
  return {
    url: address,
    graphqlUrl: `${address}/graphql`,
    async stop() {
      await app.close();
    },
  };
}
