import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Agent } from 'undici';
import { Counter, Histogram } from 'prom-client';
import { databaseReady, type Database } from '@gateway/db';
import { formatGatewayError } from '@gateway/federation';
import {
  createLogger,
  createMetricsRegistry,
  ERROR_CODES,
  GatewayError,
  newId,
  PRINCIPAL_HEADER,
  REQUEST_ID_HEADER,
  signPrincipal,
  type Logger,
  type Principal,
} from '@gateway/kernel';
import { openVaultOrm } from '@gateway/vault';
import { authenticate } from './authenticate';
import { composeSupergraph, type SubgraphEndpoint } from './compose';
import { inspectOperation } from './operation';
import { queryLimitRules } from './query-limits';
import { createRateLimiter, limitClassesOf, type LimitOverrides } from './rate-limit';
import { subgraphFetcher } from './subgraph-fetch';
import { tokenRequestClient } from './token-client';
import { routerSubscriptions } from './subscriptions';
import type { EventBus } from '@gateway/events';

export interface RouterOptions {
  db: Database;
  subgraphs: SubgraphEndpoint[];
  platformSecret: string;
  adminKey: string;
  production: boolean;
  host?: string;
  port?: number;
  logger?: Logger;
  rateLimits?: LimitOverrides;
  /** Share rate-limit counters through PostgreSQL (several router instances). */
  sharedRateLimits?: boolean;
  maxDepth?: number;
  maxFields?: number;
  /** Per subgraph call; a subgraph that does not answer in time gives 503, not a hang. */
  subgraphTimeoutMs?: number;
  /** The event bus: with it, the router serves graphql-ws subscriptions on /graphql. */
  bus?: EventBus;
  /** graphql-ws ping interval (a client missing a pong is dropped). */
  wsKeepAliveMs?: number;
  /** More /readyz checks from whoever runs the router (the launcher: demo seeded, not stopping). */
  readinessChecks?: () => Record<string, boolean>;
}

export interface RunningRouter {
  url: string;
  graphqlUrl: string;
  stop(): Promise<void>;
}

interface RouterContext {
  principal: Principal;
  requestId: string;
  signedPrincipal: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    gatewayPrincipal?: Principal;
    requestId: string;
  }
}

function sendError(reply: FastifyReply, requestId: string, error: GatewayError): FastifyReply {
  const status = ERROR_CODES[error.code].status;
  return reply.code(status).send({
    errors: [{ message: error.message, extensions: { code: error.code, status, detail: error.detail, requestId } }],
  });
}

/** The federated entry point: authenticates, limits, plans and forwards to the subgraphs. */
export async function startRouter(options: RouterOptions): Promise<RunningRouter> {
  const logger = options.logger ?? createLogger('router');
  const vaultOrm = await openVaultOrm(options.db);
  const limiter = await createRateLimiter(options.rateLimits, options.sharedRateLimits ? options.db.knex : undefined);
  const registry = createMetricsRegistry('router');
  const requests = new Counter({ name: 'router_requests_total', help: 'GraphQL requests by outcome', labelNames: ['outcome'], registers: [registry] });
  const duration = new Histogram({ name: 'router_request_duration_seconds', help: 'GraphQL request duration', registers: [registry] });

  const timeoutMs = options.subgraphTimeoutMs ?? 15_000;
  const subgraphAgent = new Agent({ keepAliveTimeout: 30_000, connections: 128 });
  const gateway = new ApolloGateway({
    supergraphSdl: composeSupergraph(options.subgraphs),
    buildService: ({ name, url }) =>
      new RemoteGraphQLDataSource<RouterContext>({
        url,
        fetcher: subgraphFetcher(name ?? 'subgraph', timeoutMs, subgraphAgent) as never,
        willSendRequest({ request, context }) {
          request.http?.headers.set(PRINCIPAL_HEADER, context.signedPrincipal);
          request.http?.headers.set(REQUEST_ID_HEADER, context.requestId);
        },
      }),
  });

  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, trustProxy: 'loopback' });
  app.decorateRequest('requestId', '');
  app.addHook('onRequest', async (request, reply) => {
    const incoming = request.headers[REQUEST_ID_HEADER];
    request.requestId = typeof incoming === 'string' && /^req_[0-9A-Za-z]{1,64}$/.test(incoming) ? incoming : newId('request');
    reply.header('x-request-id', request.requestId);
  });

  const subscriptions = options.bus
    ? routerSubscriptions({
        server: app.server,
        gateway,
        bus: options.bus,
        platformSecret: options.platformSecret,
        authenticate: (headers, ip) => authenticate(vaultOrm.em.fork(), headers, options.adminKey, ip, options.platformSecret),
        logger,
        registry,
        keepAliveMs: options.wsKeepAliveMs,
      })
    : undefined;
  const apollo = new ApolloServer<RouterContext>({
    gateway,
    introspection: !options.production,
    includeStacktraceInErrorResponses: false,
    csrfPrevention: true,
    // The process's main owns SIGINT/SIGTERM and stops everything in order. Apollo's own handler
    // (on by default) stopped each server by itself, out of that order, then re-sent the signal.
    stopOnTerminationSignals: false,
    validationRules: queryLimitRules(options.maxDepth ?? 12, options.maxFields ?? 500),
    formatError: formatGatewayError(logger),
    plugins: [fastifyApolloDrainPlugin(app)],
  });
  await apollo.start();
  await subscriptions?.start(apollo as never);

  // Authentication and rate limits run before Apollo, so a refused request costs no planning.
  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    const stop = duration.startTimer();
    reply.raw.once('finish', () => stop());
    try {
      const principal = await authenticate(vaultOrm.em.fork(), request.headers, options.adminKey, request.ip, options.platformSecret);
      request.gatewayPrincipal = principal;
      const operation = inspectOperation(request);
      if (!operation) return; // malformed: Apollo answers it with a validation error
      if (principal.kind === 'service') return; // platform-internal traffic is not a client's budget
      const classes = limitClassesOf(operation.type, operation.rootFields);
      // The OAuth client (TPP) a request is charged to: the token request's, or an access token's own TPP.
      const client = classes.includes('ob_token') ? await tokenRequestClient(vaultOrm.em.fork(), operation) : principal.kind === 'ob_token' ? principal.clientId : undefined;
      const verdict = await limiter.check(classes, principal, client);
      reply.header('x-ratelimit-limit', verdict.limit);
      reply.header('x-ratelimit-remaining', verdict.remaining);
      reply.header('x-ratelimit-reset', verdict.resetSeconds);
      if (!verdict.allowed) {
        reply.header('retry-after', verdict.resetSeconds);
        requests.inc({ outcome: 'rate_limited' });
        return sendError(reply, request.requestId, new GatewayError('RATE_LIMITED', `limit of ${verdict.limit} requests reached; retry in ${verdict.resetSeconds} s`));
      }
      requests.inc({ outcome: 'accepted' });
    } catch (error) {
      if (error instanceof GatewayError) {
        requests.inc({ outcome: 'unauthenticated' });
        return sendError(reply, request.requestId, error);
      }
      logger.error({ err: error, requestId: request.requestId }, 'edge authentication failed');
      return sendError(reply, request.requestId, new GatewayError('SERVICE_UNAVAILABLE', 'credential check unavailable'));
    }
  };
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.url === '/graphql') return guard(request, reply);
  });

  await app.register(fastifyApollo(apollo), {
    path: '/graphql',
    context: async (request) => {
      const principal = request.gatewayPrincipal ?? { kind: 'anonymous' as const, ip: request.ip };
      return { principal, requestId: request.requestId, signedPrincipal: signPrincipal(principal, options.platformSecret) };
    },
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const checks: Record<string, boolean> = { database: await databaseReady(options.db), ...options.readinessChecks?.() };
    await Promise.all(
      options.subgraphs.map(async ({ name, url }) => {
        checks[name] = await fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.ok,
          () => false,
        );
      }),
    );
    const ready = Object.values(checks).every(Boolean);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
  });
  app.get('/metrics', async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));

  const url = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  logger.info({ url }, 'router listening');
  return {
    url,
    graphqlUrl: `${url}/graphql`,
    async stop() {
      await subscriptions?.stop();
      // fastify closes the connections idle at close time; one whose request is still in flight
      // (a service call such as the webhook dispatcher's, racing the shutdown) would stay open
      // after its answer for the keep-alive timeout (72 s) and hold the close. Closed as they
      // go idle instead: in-flight requests still finish.
      const reaper = setInterval(() => app.server.closeIdleConnections(), 50);
      await app.close().finally(() => clearInterval(reaper));
      await subgraphAgent.close();
    },
  };
}
