import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Gauge, type Registry } from 'prom-client';
import { databaseReady, type Database } from '@gateway/db';
import {
  BoundHistogram,
  createMetricsRegistry,
  inRequestSpan,
  metricsAnswer,
  newId,
  OperationLabels,
  REQUEST_ID_HEADER,
  inProcessTransportEnabled,
  serveFrames,
  serveInProcess,
  tagRequestSpan,
  type LocalHandler,
  type Logger,
  type Principal,
} from '@gateway/kernel';
import type { SubgraphContext } from './context';
import { formatGatewayError } from './errors';
import { leanGraphQL, type LeanRequest } from './lean-graphql';
import { completeAnswer } from './local-answer';
import { localCaller, useSignedCaller } from './signed-caller';

declare module 'fastify' {
  interface FastifyRequest {
    /** X-Request-Id as the router sent it (one is made for a request that came without). */
    requestId: string;
  }
}

export interface SubgraphServerOptions {
  /** The subgraph's name as the router knows it (`banks`, `open-banking`, ...): the audience of the principals it accepts. */
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
  /**
   * The registry /metrics serves, when the service made it first (its modules register their
   * metrics at construction, e.g. the bank-core client's); default a new one named after the service.
   */
  registry?: Registry;
  /** Adds the service's own metrics to the registry /metrics serves. */
  metrics?: (registry: Registry) => void;
  /** Extra HTTP routes the subgraph serves besides /graphql (none for most). */
  routes?: (app: FastifyInstance) => void | Promise<void>;
  /** More /readyz checks from whoever runs the service (a process that is stopping answers not ready). */
  readinessChecks?: () => Record<string, boolean>;
  /**
   * Serve /graphql to callers in this process without HTTP (kernel's in-process.ts), and to other
   * processes as frames on upgraded connections (kernel's framed-serving.ts); default
   * GRAPHQL_TRANSPORT (`http`: neither).
   */
  inProcess?: boolean;
  /** METRICS_TOKEN: /metrics answers only a scrape sending it as a bearer token; unset, /metrics is open. */
  metricsToken?: string;
  /**
   * Answer known documents without Apollo's request pipeline (lean-graphql.ts); default yes. Off
   * only for lean-graphql.spec.ts, which compares the answers with stock Apollo's.
   */
  lean?: boolean;
}

export interface RunningService {
  /** Base URL, e.g. http://127.0.0.1:4001 */
  url: string;
  /** What its /metrics serves: the launcher shows it on the process's scrape target (rest-compat's and the router's /metrics). */
  metrics: Registry;
  /** GraphQL endpoint */
  graphqlUrl: string;
  stop(): Promise<void>;
}

const BODY_LIMIT_BYTES = 1024 * 1024;

/** The subgraphs this process serves, by /graphql URL: a test calling one directly signs for its name (testing.ts). */
const servedNames = new Map<string, string>();

/** The name of the subgraph this process serves at `graphqlUrl` (the audience its principals need), if any. */
export function subgraphNameAt(graphqlUrl: string): string | undefined {
  return servedNames.get(graphqlUrl.replace(/\/+$/, ''));
}

/** One subgraph as an HTTP service: POST /graphql (for signed callers only: signed-caller.ts), /healthz, /readyz, /metrics. */
export async function startSubgraphServer(options: SubgraphServerOptions): Promise<RunningService> {
  const { logger } = options;
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES });
  const registry = options.registry ?? createMetricsRegistry(options.name);
  options.metrics?.(registry);
  const duration = new BoundHistogram({
    name: 'subgraph_request_duration_seconds',
    help: 'GraphQL request duration by operation',
    labelNames: ['operation'],
    registers: [registry],
  });
  // The router names the operations of its query plans after the client's: as many as the clients choose.
  const operations = new OperationLabels();

  const formatError = formatGatewayError(logger);
  const apollo = new ApolloServer<SubgraphContext>({
    schema: options.schema,
    introspection: !options.production,
    includeStacktraceInErrorResponses: false,
    formatError,
    // The process's main owns SIGINT/SIGTERM and stops everything in order. Apollo's own handler
    // (on by default) stopped each server by itself, out of that order, then re-sent the signal.
    stopOnTerminationSignals: false,
    plugins: [
      // Federated tracing is for Apollo's hosted studio, which this platform does not report to.
      ApolloServerPluginInlineTraceDisabled(),
      fastifyApolloDrainPlugin(app),
      {
        async requestDidStart() {
          const started = performance.now();
          return {
            async willSendResponse(ctx) {
              duration.series(operations.label(ctx.operationName)).observeSince(started);
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
  // The router forwards the request id and the signed principal (signed-caller.ts verified it); both transports build the same context.
  const contextOf = (requestId: string, principal: Principal): SubgraphContext => {
    let child: Logger | undefined;
    let em: EntityManager | undefined;
    return {
      principal,
      requestId,
      // Forked on first use: a request refused before its resolver (or answered without the database) needs none.
      get em() {
        return (em ??= options.orm.em.fork());
      },
      // Most requests never log: build the child logger on first use.
      get logger() {
        // An operator's request names the admin key on every line it logs.
        return (child ??= logger.child({
          request_id: requestId,
          ...(principal.kind === 'admin' && principal.name ? { admin_key_name: principal.name } : {}),
        }));
      },
    };
  };
  app.decorateRequest('requestId', '');
  app.addHook('onRequest', async (request) => {
    request.requestId = (request.headers[REQUEST_ID_HEADER] as string | undefined) ?? newId('request');
    tagRequestSpan(options.name, request.requestId);
  });
  useSignedCaller(app, options.platformSecret, options.name);
  // Both transports try the lean path first; it answers as Apollo would, or leaves the request to Apollo.
  const lean =
    (options.lean ?? true) ? leanGraphQL<SubgraphContext>({ schema: options.schema, formatError }) : undefined;
  // Without async frames of their own, here and in `local` below: each costs a request promises,
  // and in-process calls are most of a one-process platform's (issue 32).
  const answerLean = (request: LeanRequest, context: () => SubgraphContext) => {
    if (!lean) return undefined;
    const started = performance.now();
    return lean(request, context).then((answer) => {
      if (answer) duration.series(operations.label(answer.operationName)).observeSince(started);
      return answer;
    });
  };
  const apolloRoute = fastifyApolloHandler(apollo, {
    context: async (request) => contextOf(request.requestId, request.caller),
  });
  // The routes @as-integrations/fastify's plugin registers, POST with the lean path in front.
  app.route({ method: ['GET', 'OPTIONS'], url: '/graphql', handler: apolloRoute });
  app.post<{ Reply: string }>('/graphql', async function (request, reply) {
    const answer = await answerLean(
      { body: request.body, contentType: request.headers['content-type'], accept: request.headers.accept },
      () => contextOf(request.requestId, request.caller),
    );
    if (!answer) return apolloRoute.call(this, request, reply);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  // The same request without HTTP: for the router (or a service) in this process, and as frames for routers elsewhere.
  const local: LocalHandler = ({ headers, body }) => {
    const requestId = headers[REQUEST_ID_HEADER] ?? newId('request');
    return inRequestSpan(
      options.name,
      requestId,
      () => {
        try {
          const caller = localCaller(headers, options.platformSecret, options.name, requestId);
          if ('status' in caller) return Promise.resolve(caller);
          const viaApollo = () =>
            apollo
              .executeHTTPGraphQLRequest({
                httpGraphQLRequest: {
                  method: 'POST',
                  headers: new HeaderMap([['content-type', 'application/json'], ...Object.entries(headers)]),
                  search: '',
                  body,
                },
                context: async () => contextOf(requestId, caller),
              })
              .then(completeAnswer);
          const leaning = answerLean(
            { body, contentType: headers['content-type'] ?? 'application/json', accept: headers.accept },
            () => contextOf(requestId, caller),
          );
          // A lean answer is handed on as made: its body is written only if this caller reads it (kernel's jsonAnswer).
          return leaning ? leaning.then((answer) => answer ?? viaApollo()) : viaApollo();
        } catch (error) {
          return Promise.reject(error); // a handler answers with a promise, whatever fails
        }
      },
      headers,
    );
  };
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const checks = { database: await databaseReady(options.db), ...options.readinessChecks?.() };
    const ok = Object.values(checks).every(Boolean);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable', checks });
  });
  app.get('/metrics', async (request, reply) => {
    const answer = await metricsAnswer(
      registry,
      { authorization: request.headers.authorization, requestId: request.requestId },
      options.metricsToken,
    );
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  await options.routes?.(app);

  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  logger.info({ url: address }, `${options.name} subgraph listening`);
  const stopServingInProcess = serveInProcess(`${address}/graphql`, local, { enabled: options.inProcess });
  servedNames.set(`${address}/graphql`, options.name);
  const frames =
    (options.inProcess ?? inProcessTransportEnabled())
      ? serveFrames(app.server, '/graphql', local, { maxRequestBytes: BODY_LIMIT_BYTES })
      : undefined;
  new Gauge({
    name: 'subgraph_framed_connections',
    help: 'Framed-channel connections open to this subgraph (callers in other processes: routers, services)',
    registers: [registry],
    collect() {
      this.set(frames?.connections() ?? 0);
    },
  });
  return {
    url: address,
    graphqlUrl: `${address}/graphql`,
    metrics: registry,
    async stop() {
      stopServingInProcess();
      if (servedNames.get(`${address}/graphql`) === options.name) servedNames.delete(`${address}/graphql`);
      // Framed connections first: the HTTP server's close waits for every socket, theirs included.
      await frames?.stop();
      await app.close();
    },
  };
}
