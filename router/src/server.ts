import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import Fastify from 'fastify';
import { Agent } from 'undici';
import { databaseReady, type Database } from '@gateway/db';
import { formatGatewayError } from '@gateway/federation';
import { createLogger, favicon, FAVICON_HEADERS, serveInProcess, type Logger } from '@gateway/kernel';
import { DpopNonces, openVaultOrm } from '@gateway/vault';
import type { EventBus } from '@gateway/events';
import type { Registry } from 'prom-client';
import { createAdmission } from './admission';
import { authenticate, type CredentialHeaders } from './authenticate';
import { composeSupergraphByName, type SubgraphEndpoint } from './compose';
import { chargingCoreCalls } from './core-cost';
import { documentLimits } from './document-limits';
import { createForwarding } from './forwarding';
import { registerGraphiQL, type GraphiQLOptions } from './graphiql';
import { useHttpEdge } from './http-edge';
import { createLocalEdge } from './local-edge';
import { MAX_TOKENS } from './operation';
import { createRateLimiter, type LimitOverrides } from './rate-limit';
import { createLimitCharges } from './rate-limit-charge';
import { useReadiness } from './readiness';
import { useRequestId } from './request-id';
import { routerContextOf, type RouterContext } from './router-context';
import { createRouterMetrics, useMetricsRoute } from './router-metrics';
import { SubgraphDataSource } from './subgraph-source';
import { routerSubscriptions } from './subscriptions';
import { withoutApolloTelemetry } from './apollo-telemetry';

export interface RouterOptions {
  db: Database;
  subgraphs: SubgraphEndpoint[];
  /** SUPERGRAPH_CACHE_DIR: where compositions are kept for the next start of the same schemas (compose.ts). */
  supergraphCacheDir?: string;
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
  /** Aliases per document (graphql-armor max-aliases); default MAX_ALIASES (document-limits.ts). */
  maxAliases?: number;
  /** Per subgraph call; a subgraph that does not answer in time gives 503, not a hang. */
  subgraphTimeoutMs?: number;
  /** The event bus: with it, the router serves graphql-ws subscriptions on /graphql. */
  bus?: EventBus;
  /** graphql-ws ping interval (a client missing a pong is dropped). */
  wsKeepAliveMs?: number;
  /** How often open graphql-ws sockets' credentials are verified again (default 2 s; tests shorten it). */
  subscriptionCredentialCheckMs?: number;
  /**
   * DPOP_NONCE_REQUIRED: every DPoP proof must carry a server nonce (RFC 9449 9). Default: in
   * production only (API-CONTRACT "Open Banking at FAPI 2.0"); nonces are handed out either way.
   */
  dpopNoncesRequired?: boolean;
  /** SUBSCRIPTION_MAX_LIFETIME_SECONDS (default 86400): a graphql-ws socket is closed this long after it was accepted. */
  subscriptionMaxLifetimeSeconds?: number;
  /** More /readyz checks from whoever runs the router (the launcher: demo seeded, not stopping). */
  readinessChecks?: () => Record<string, boolean>;
  /** GraphiQL at GET /graphql for browsers (never in production): what the editor is prefilled with. */
  graphiql?: GraphiQLOptions;
  /** Serve /graphql to callers in this process without HTTP (kernel's in-process.ts); default GRAPHQL_TRANSPORT. */
  inProcess?: boolean;
  /** METRICS_TOKEN: /metrics answers only a scrape sending it as a bearer token; unset, /metrics is open. */
  metricsToken?: string;
  /**
   * Every registry of the process (the launcher: each service's, this router's included), read at
   * each scrape: /metrics serves them all, so one process is one scrape target. Unset: its own.
   */
  scrape?: () => Registry[];
  /** ROUTER_SHARE_INFLIGHT_READS (default on): identical reads in flight share one subgraph call (in-flight.ts). */
  shareInFlightReads?: boolean;
}

export interface RunningRouter {
  url: string;
  /** The router's own metrics (its /metrics serves `scrape` instead when given). */
  metrics: Registry;
  graphqlUrl: string;
  stop(): Promise<void>;
}

/**
 * The federated entry point: authenticates, limits, plans and forwards to the subgraphs. The edge
 * runs in stages, each in its own module; this function only wires them: request id
 * (request-id.ts), admission (admission.ts) with rate limits (rate-limit-charge.ts), document
 * limits (document-limits.ts), forwarding (forwarding.ts), metrics (router-metrics.ts) and
 * readiness (readiness.ts), on HTTP (http-edge.ts) and in process (local-edge.ts) alike.
 */
export async function startRouter(options: RouterOptions): Promise<RunningRouter> {
  const logger = options.logger ?? createLogger('router');
  const vaultOrm = await openVaultOrm(options.db);
  const vaultEm = () => vaultOrm.em.fork();
  const dpopNonces = new DpopNonces(options.platformSecret, options.dpopNoncesRequired ?? options.production);
  const authenticateCaller = (headers: CredentialHeaders, ip: string) =>
    authenticate(vaultEm, headers, options.adminKey, ip, options.platformSecret, dpopNonces);
  const charges = createLimitCharges(
    await createRateLimiter(options.rateLimits, options.sharedRateLimits ? options.db.knex : undefined),
    vaultEm,
  );
  const metrics = createRouterMetrics();

  const timeoutMs = options.subgraphTimeoutMs ?? 15_000;
  const subgraphAgent = new Agent({ keepAliveTimeout: 30_000, connections: 128 });
  const shared = (options.shareInFlightReads ?? true) ? metrics.countSharedFetch : undefined;
  // Composed by name (the forwarder and the gateway's services map names to the running URLs).
  const supergraphSdl = composeSupergraphByName(options.subgraphs, options.supergraphCacheDir);
  const urlOf = new Map(options.subgraphs.map(({ name, url }) => [name, url]));
  withoutApolloTelemetry();
  const gateway = new ApolloGateway({
    supergraphSdl,
    buildService: ({ name }) => new SubgraphDataSource(name, urlOf.get(name)!, timeoutMs, subgraphAgent, shared),
  });

  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, trustProxy: 'loopback' });
  useRequestId(app);

  const subscriptions = options.bus
    ? routerSubscriptions({
        server: app.server,
        gateway,
        bus: options.bus,
        platformSecret: options.platformSecret,
        authenticate: authenticateCaller,
        logger,
        registry: metrics.registry,
        keepAliveMs: options.wsKeepAliveMs,
        charge: charges.subscribe,
        credentialCheckMs: options.subscriptionCredentialCheckMs,
        maxLifetimeSeconds: options.subscriptionMaxLifetimeSeconds,
      })
    : undefined;
  const limits = documentLimits(options);
  const formatError = formatGatewayError(logger);
  const forwardWhole = createForwarding({
    ...options,
    supergraphSdl,
    validationRules: limits.validationRules,
    timeoutMs,
    agent: subgraphAgent,
    formatError,
    metrics,
    shared,
  });
  const apollo = new ApolloServer<RouterContext>({
    gateway,
    introspection: !options.production,
    includeStacktraceInErrorResponses: false,
    allowBatchedHttpRequests: false,
    parseOptions: { maxTokens: MAX_TOKENS },
    csrfPrevention: true,
    // Automatic persisted queries would run a stored document from its hash alone, a request the
    // edge cannot read to charge its cost; every request sends its document.
    persistedQueries: false,
    // The process's main owns SIGINT/SIGTERM and stops everything in order. Apollo's own handler
    // (on by default) stopped each server by itself, out of that order, then re-sent the signal.
    stopOnTerminationSignals: false,
    validationRules: limits.validationRules,
    formatError,
    // Apollo's landing page loads Apollo Sandbox from a CDN; browsers get GraphiQL instead (graphiql.ts).
    plugins: [
      fastifyApolloDrainPlugin(app),
      ApolloServerPluginLandingPageDisabled(),
      ...limits.plugins,
      metrics.outcomePlugin,
    ],
  });
  await apollo.start();
  await subscriptions?.start(apollo as never);

  // Authentication and rate limits run before Apollo, so a refused request costs no planning.
  // One admission for both transports: HTTP (http-edge.ts) and in process (local-edge.ts).
  const edge = {
    // An operation is priced by the bank-core calls it selects (@cost in the supergraph) before it is charged.
    admit: createAdmission({
      authenticate: authenticateCaller,
      charges: chargingCoreCalls(charges, supergraphSdl),
      dpopNonce: () => dpopNonces.current(),
      metrics,
      logger,
    }),
    forwardWhole,
    contextOf: routerContextOf.bind(null, options.platformSecret),
    timed: metrics.timed,
  };
  useHttpEdge(app, edge);
  if (!options.production) registerGraphiQL(app, options.graphiql);
  await app.register(fastifyApollo(apollo), {
    path: '/graphql',
    context: async (request) => edge.contextOf(request.gatewayPrincipal, request.requestId, request.labels, request.ip),
  });
  useReadiness(app, {
    databaseReady: () => databaseReady(options.db),
    subgraphs: options.subgraphs,
    readinessChecks: options.readinessChecks,
  });
  useMetricsRoute(app, options.scrape ?? (() => [metrics.registry]), options.metricsToken);
  // Browsers ask for it on every page they open here (GraphiQL): an icon, not a 404 in their console.
  app.get('/favicon.ico', (_request, reply) => reply.headers(FAVICON_HEADERS).send(favicon()));

  const url = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  logger.info({ url }, 'router listening');
  const stopServingInProcess = serveInProcess(`${url}/graphql`, createLocalEdge(apollo, edge), {
    enabled: options.inProcess,
  });
  return {
    url,
    graphqlUrl: `${url}/graphql`,
    metrics: metrics.registry,
    async stop() {
      stopServingInProcess();
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
