import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer, HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import { Agent } from 'undici';
import { Counter, Histogram } from 'prom-client';
import { databaseReady, type Database } from '@gateway/db';
import { completeAnswer, formatGatewayError } from '@gateway/federation';
import {
  createLogger,
  createMetricsRegistry,
  ERROR_CODES,
  GatewayError,
  inRequestSpan,
  isErrorCode,
  metricsText,
  newId,
  OperationLabels,
  REQUEST_ID_HEADER,
  serveInProcess,
  signPrincipal,
  tagRequestSpan,
  type LocalHandler,
  type LocalRequest,
  type LocalResponse,
  type Logger,
  type Principal,
} from '@gateway/kernel';
import { openVaultOrm } from '@gateway/vault';
import { authenticate, type CredentialHeaders } from './authenticate';
import { composeSupergraph, type SubgraphEndpoint } from './compose';
import { registerGraphiQL, type GraphiQLOptions } from './graphiql';
import { carriesNul, inspectOperation, MAX_TOKENS, unknownOperationName, type OperationSource } from './operation';
import { queryLimitRules } from './query-limits';
import { createRateLimiter, limitClassesOf, limitCostsOf, type LimitOverrides } from './rate-limit';
import { createForwarder } from './forward';
import { SubgraphDataSource } from './subgraph-source';
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
  /** Aliases per document (graphql-armor max-aliases); default MAX_ALIASES. */
  maxAliases?: number;
  /** Per subgraph call; a subgraph that does not answer in time gives 503, not a hang. */
  subgraphTimeoutMs?: number;
  /** The event bus: with it, the router serves graphql-ws subscriptions on /graphql. */
  bus?: EventBus;
  /** graphql-ws ping interval (a client missing a pong is dropped). */
  wsKeepAliveMs?: number;
  /** More /readyz checks from whoever runs the router (the launcher: demo seeded, not stopping). */
  readinessChecks?: () => Record<string, boolean>;
  /** GraphiQL at GET /graphql for browsers (never in production): what the editor is prefilled with. */
  graphiql?: GraphiQLOptions;
  /** Serve /graphql to callers in this process without HTTP (kernel's in-process.ts); default GRAPHQL_TRANSPORT. */
  inProcess?: boolean;
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
  /** Records how an HTTP request ended (ok or the first error's code), for the latency histogram; absent for subscriptions' operations. */
  reportOutcome?(outcome: string): void;
}

/** A request's labels in router_request_duration_seconds. */
interface RequestLabels {
  operation: string;
  outcome?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    gatewayPrincipal?: Principal;
    requestId: string;
    labels?: RequestLabels;
  }
}

/**
 * Document shape caps (graphql-armor), on top of the per-class costs the edge charges: aliases are
 * what let one request multiply a root field, so they are capped well below any class's budget.
 */
export const MAX_ALIASES = 30;
const MAX_DIRECTIVES = 50;
/** graphql-armor's static cost (objects 2, scalars 1, ×1.5 per level): a bound on planning and fan-out work. */
const MAX_STATIC_COST = 5000;

/** The answer to a request the edge refused: one GraphQL error with the spec's code and status. */
function errorBody(requestId: string, error: GatewayError) {
  const status = ERROR_CODES[error.code].status;
  return { errors: [{ message: error.message, extensions: { code: error.code, status, detail: error.detail, requestId } }] };
}

function sendError(reply: FastifyReply, requestId: string, error: GatewayError): FastifyReply {
  return reply.code(ERROR_CODES[error.code].status).send(errorBody(requestId, error));
}

/** What the edge decided before Apollo: the caller and the headers to answer with, or a refusal. */
interface Admission {
  principal?: Principal;
  refusal?: GatewayError;
  headers: Record<string, string>;
}

/** The GraphQL parameters of an HTTP request: a POST's JSON body, a GET's query string. */
function sourceOf(request: FastifyRequest): OperationSource | undefined {
  return (request.method === 'GET' ? request.query : request.body) as OperationSource | undefined;
}

/** The caller's request id when well formed (rest-compat and services send theirs), else a new one. */
function requestIdOf(incoming: unknown): string {
  return typeof incoming === 'string' && /^req_[0-9A-Za-z]{1,64}$/.test(incoming) ? incoming : newId('request');
}

/** A request's outcome when no GraphQL answer said it (Apollo refused the HTTP request itself). */
function outcomeOfStatus(status: number): string {
  return status < 400 ? 'ok' : `http_${status}`;
}

/**
 * How a GraphQL request ended, as the client sees it: ok, or the spec code of its first error
 * (formatGatewayError has mapped every error to one by then). The code set is the spec's table,
 * so the label stays bounded.
 */
const outcomePlugin: ApolloServerPlugin<RouterContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, contextValue }) {
        const errors = response.body.kind === 'single' ? response.body.singleResult.errors : response.body.initialResult.errors;
        const code = errors?.[0]?.extensions?.code;
        contextValue.reportOutcome?.(!errors?.length ? 'ok' : isErrorCode(code) ? code : 'INTERNAL_ERROR');
      },
    };
  },
};

/** The federated entry point: authenticates, limits, plans and forwards to the subgraphs. */
export async function startRouter(options: RouterOptions): Promise<RunningRouter> {
  const logger = options.logger ?? createLogger('router');
  const vaultOrm = await openVaultOrm(options.db);
  const limiter = await createRateLimiter(options.rateLimits, options.sharedRateLimits ? options.db.knex : undefined);
  const registry = createMetricsRegistry('router');
  const requests = new Counter({ name: 'router_requests_total', help: 'GraphQL requests by outcome', labelNames: ['outcome'], registers: [registry] });
  const duration = new Histogram({
    name: 'router_request_duration_seconds',
    help: 'GraphQL request duration by operation name and outcome (ok, or the spec error code of the first error)',
    labelNames: ['operation', 'outcome'],
    registers: [registry],
  });
  const operations = new OperationLabels();
  const forwardedTotal = new Counter({
    name: 'router_forwarded_total',
    help: 'Operations one subgraph answered whole, sent to it past the gateway (forward.ts), by subgraph',
    labelNames: ['subgraph'],
    registers: [registry],
  });

  const timeoutMs = options.subgraphTimeoutMs ?? 15_000;
  const subgraphAgent = new Agent({ keepAliveTimeout: 30_000, connections: 128 });
  const supergraphSdl = composeSupergraph(options.subgraphs);
  const gateway = new ApolloGateway({
    supergraphSdl,
    buildService: ({ name, url }) => new SubgraphDataSource(name ?? 'subgraph', url!, timeoutMs, subgraphAgent),
  });

  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, trustProxy: 'loopback' });
  app.decorateRequest('requestId', '');
  app.addHook('onRequest', async (request, reply) => {
    request.requestId = requestIdOf(request.headers[REQUEST_ID_HEADER]);
    tagRequestSpan('router', request.requestId);
    reply.header('x-request-id', request.requestId).header('x-content-type-options', 'nosniff');
  });

  const subscriptions = options.bus
    ? routerSubscriptions({
        server: app.server,
        gateway,
        bus: options.bus,
        platformSecret: options.platformSecret,
        authenticate: (headers, ip) => authenticate(() => vaultOrm.em.fork(), headers, options.adminKey, ip, options.platformSecret),
        logger,
        registry,
        keepAliveMs: options.wsKeepAliveMs,
        // One `read` point per subscribe (its selection runs at once); events pushed afterwards
        // are the platform's work, not the subscriber's requests, and cost nothing.
        charge: async (principal) => {
          if (principal.kind === 'service') return undefined;
          const verdict = await limiter.check({ read: 1 }, principal);
          return verdict.allowed ? undefined : new GatewayError('RATE_LIMITED', `limit of ${verdict.limit} requests reached; retry in ${verdict.resetSeconds} s`);
        },
      })
    : undefined;
  // graphql-armor for Apollo Server: alias, token, directive and static-cost caps refused in
  // validation (BAD_USER_INPUT, which formatGatewayError answers as 400 VALIDATION_ERROR); in
  // production "Did you mean …" field suggestions are masked, as introspection is off there.
  // Depth and field count stay with queryLimitRules (they count through fragments). The token cap
  // is graphql's own parser option instead of armor's max-tokens plugin: that one throws from
  // parsingDidStart, which Apollo Server 5 answers with a 500.
  const armor = new ApolloArmor({
    maxAliases: { n: options.maxAliases ?? MAX_ALIASES },
    maxTokens: { enabled: false },
    maxDirectives: { n: MAX_DIRECTIVES },
    costLimit: { maxCost: MAX_STATIC_COST },
    maxDepth: { enabled: false },
    blockFieldSuggestion: { enabled: options.production },
  }).protect();
  const validationRules = [...queryLimitRules(options.maxDepth ?? 12, options.maxFields ?? 500, !options.production), ...armor.validationRules];
  const formatError = formatGatewayError(logger);
  // An operation one subgraph answers whole skips the gateway (forward.ts); the rest goes through Apollo.
  const forward = createForwarder({
    supergraphSdl,
    subgraphs: options.subgraphs,
    // Apollo adds its own refusal of introspection in production: the forwarder checks it too.
    validationRules: [...(options.production ? [NoSchemaIntrospectionCustomRule] : []), ...validationRules],
    maxTokens: MAX_TOKENS,
    timeoutMs,
    agent: subgraphAgent,
    formatError,
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
    validationRules,
    formatError,
    // Apollo's landing page loads Apollo Sandbox from a CDN; browsers get GraphiQL instead (graphiql.ts).
    plugins: [fastifyApolloDrainPlugin(app), ApolloServerPluginLandingPageDisabled(), ...armor.plugins, outcomePlugin],
  });
  await apollo.start();
  await subscriptions?.start(apollo as never);

  // Authentication and rate limits run before Apollo, so a refused request costs no planning.
  // One admission for both transports: HTTP (the preHandler below) and in process (`local`).
  const admit = async (headers: CredentialHeaders, ip: string, source: OperationSource | undefined, requestId: string, labels: RequestLabels): Promise<Admission> => {
    const answerHeaders: Record<string, string> = {};
    const refuse = (error: GatewayError): Admission => ({ refusal: error, headers: answerHeaders });
    try {
      const principal = await authenticate(() => vaultOrm.em.fork(), headers, options.adminKey, ip, options.platformSecret);
      if (carriesNul(source)) {
        const text = 'text must not contain the NUL character (U+0000)';
        return refuse(new GatewayError('VALIDATION_ERROR', text, text));
      }
      const unknownOperation = unknownOperationName(source);
      if (unknownOperation !== undefined) {
        const text = `Unknown operation named "${unknownOperation}".`;
        return refuse(new GatewayError('VALIDATION_ERROR', text, text));
      }
      const operation = inspectOperation(source);
      if (!operation) return { principal, headers: answerHeaders }; // malformed: Apollo answers it with a validation error
      // Callers without credentials add names from a smaller allowance of the bounded set.
      labels.operation = operations.label(operation.name, principal.kind !== 'anonymous');
      if (operation.type === 'subscription') {
        // The gateway cannot execute one over HTTP (it threw, answered 500): say where they run.
        const text = 'Subscriptions run over graphql-ws (a WebSocket on this same /graphql path), not over HTTP.';
        return refuse(new GatewayError('VALIDATION_ERROR', text, text));
      }
      if (principal.kind === 'service') return { principal, headers: answerHeaders }; // platform-internal traffic is not a client's budget
      const classes = limitClassesOf(operation.type, operation.rootFields);
      // The OAuth client (TPP) a request is charged to: the token request's, or an access token's own TPP.
      const client = classes.includes('ob_token') ? await tokenRequestClient(vaultOrm.em.fork(), operation) : principal.kind === 'ob_token' ? principal.clientId : undefined;
      // Charged before validation and planning: a document costs what it asks for (one point per
      // root field selection), and one asking more than is left is refused whole, unexecuted.
      const verdict = await limiter.check(limitCostsOf(operation.type, operation.fields), principal, client);
      answerHeaders['x-ratelimit-limit'] = String(verdict.limit);
      answerHeaders['x-ratelimit-remaining'] = String(verdict.remaining);
      answerHeaders['x-ratelimit-reset'] = String(verdict.resetSeconds);
      if (!verdict.allowed) {
        answerHeaders['retry-after'] = String(verdict.resetSeconds);
        requests.inc({ outcome: 'rate_limited' });
        const detail =
          verdict.cost && verdict.cost > 1
            ? `this operation costs ${verdict.cost} points of the ${verdict.limitClass} limit (one per root field, aliases included); ` +
              (verdict.cost > verdict.limit
                ? `the limit is ${verdict.limit} per window: split the operation`
                : `${verdict.remaining} of ${verdict.limit} left; retry in ${verdict.resetSeconds} s`)
            : `limit of ${verdict.limit} requests reached; retry in ${verdict.resetSeconds} s`;
        return refuse(new GatewayError('RATE_LIMITED', detail));
      }
      requests.inc({ outcome: 'accepted' });
      return { principal, headers: answerHeaders };
    } catch (error) {
      if (error instanceof GatewayError) {
        requests.inc({ outcome: 'unauthenticated' });
        return refuse(error);
      }
      logger.error({ err: error, request_id: requestId }, 'edge authentication failed');
      return refuse(new GatewayError('SERVICE_UNAVAILABLE', 'credential check unavailable'));
    }
  };
  const contextOf = (principal: Principal | undefined, requestId: string, labels: RequestLabels | undefined, ip: string): RouterContext => {
    const caller = principal ?? { kind: 'anonymous' as const, ip };
    const reportOutcome = (outcome: string) => {
      if (labels) labels.outcome = outcome;
    };
    return { principal: caller, requestId, signedPrincipal: signPrincipal(caller, options.platformSecret), reportOutcome };
  };
  /** Times a request into router_request_duration_seconds once its outcome is known. */
  const timed = (labels: RequestLabels) => {
    const stop = duration.startTimer();
    return (status: number) => stop({ operation: labels.operation, outcome: labels.outcome ?? outcomeOfStatus(status) });
  };

  /** The answer of the subgraph that answers the request whole (forward.ts), counted; undefined: Apollo's to answer. */
  const forwardWhole = async (source: OperationSource | undefined, headers: CredentialHeaders, context: RouterContext, labels: RequestLabels) => {
    const forwarded = await forward(source, headers, context);
    if (forwarded) {
      forwardedTotal.inc({ subgraph: forwarded.subgraph });
      labels.outcome = forwarded.outcome;
    }
    return forwarded;
  };

  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    const labels: RequestLabels = (request.labels = { operation: 'unknown' });
    const done = timed(labels);
    reply.raw.once('finish', () => done(reply.statusCode));
    const admission = await admit(request.headers, request.ip, sourceOf(request), request.requestId, labels);
    reply.headers(admission.headers);
    if (admission.refusal) {
      labels.outcome = admission.refusal.code;
      return sendError(reply, request.requestId, admission.refusal);
    }
    request.gatewayPrincipal = admission.principal;
    // A JSON POST (what Apollo's CSRF prevention lets through) may be forwarded; GETs stay Apollo's.
    if (request.method !== 'POST' || !request.headers['content-type']?.startsWith('application/json')) return;
    const forwarded = await forwardWhole(sourceOf(request), request.headers, contextOf(admission.principal, request.requestId, labels, request.ip), labels);
    if (forwarded) return reply.code(forwarded.status).headers(forwarded.headers).send(forwarded.body);
  };
  // The same request without a socket, for rest-compat or a service in this process (kernel's in-process.ts).
  const local: LocalHandler = async ({ headers, body, ip }) => {
    const requestId = requestIdOf(headers[REQUEST_ID_HEADER]);
    return inRequestSpan('router', requestId, () => serveLocally(headers, body, ip, requestId));
  };
  const serveLocally = async (headers: LocalRequest['headers'], body: LocalRequest['body'], ip: string, requestId: string): Promise<LocalResponse> => {
    const labels: RequestLabels = { operation: 'unknown' };
    const done = timed(labels);
    let status = 500;
    try {
      const admission = await admit(headers, ip, body, requestId, labels);
      const answerHeaders = { ...admission.headers, 'x-request-id': requestId };
      if (admission.refusal) {
        labels.outcome = admission.refusal.code;
        status = ERROR_CODES[admission.refusal.code].status;
        return { status, headers: answerHeaders, body: JSON.stringify(errorBody(requestId, admission.refusal)) };
      }
      const context = contextOf(admission.principal, requestId, labels, ip);
      const forwarded = await forwardWhole(body, headers, context, labels);
      if (forwarded) {
        status = forwarded.status;
        return { status, headers: { ...forwarded.headers, ...answerHeaders }, body: forwarded.body };
      }
      const answer = completeAnswer(
        await apollo.executeHTTPGraphQLRequest({
          httpGraphQLRequest: { method: 'POST', headers: new HeaderMap([['content-type', 'application/json'], ...Object.entries(headers)]), search: '', body },
          context: async () => context,
        }),
      );
      status = answer.status;
      return { ...answer, headers: { ...answer.headers, ...answerHeaders } };
    } finally {
      done(status);
    }
  };
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.url === '/graphql') return guard(request, reply);
  });

  if (!options.production) registerGraphiQL(app, options.graphiql);
  await app.register(fastifyApollo(apollo), {
    path: '/graphql',
    context: async (request) => contextOf(request.gatewayPrincipal, request.requestId, request.labels, request.ip),
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
  app.get('/metrics', async (_request, reply) => reply.type(registry.contentType).send(await metricsText(registry)));

  const url = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  logger.info({ url }, 'router listening');
  const stopServingInProcess = serveInProcess(`${url}/graphql`, local, { enabled: options.inProcess });
  return {
    url,
    graphqlUrl: `${url}/graphql`,
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
