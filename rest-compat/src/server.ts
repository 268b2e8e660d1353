import Fastify from 'fastify';
import { Agent } from 'undici';
import type { Registry } from 'prom-client';
import { bankCoreOpenApiDocument } from '@gateway/bank-core-client';
import { createLogger, favicon, FAVICON_HEADERS, type Logger } from '@gateway/kernel';
import { createExecutor } from './executor';
import { BODY_LIMIT_BYTES } from './limits';
import { registerGraphQLProxy } from './graphql-proxy';
import { registerGraphQLWebSocketProxy } from './graphql-ws-proxy';
import { clientErrorHandler, frameworkErrors, registerLayerErrors } from './layer-errors';
import { registerHealth, registerMetrics } from './observability';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/document';
import { registerDocsPage } from './openapi/docs-page';
import { registerRequestId } from './request-id';
import { checkoutPage } from './pages/checkout-page';
import { consentPage } from './pages/consent-page';
import { myConsentsPage } from './pages/my-consents-page';
import { authorizationEndpointPage } from './pages/authorization-endpoint';
import { registerDashboard } from './pages/dashboard/dashboard-page';
import { dashboardCookie } from './pages/dashboard/dashboard-cookie';
import { registerDashboardSession } from './pages/dashboard/dashboard-session';
import { registerOperatorConsole } from './pages/operator/operator-page';
import { operatorCookie, registerOperatorSession } from './pages/operator/operator-session';
import { registerLandingPage, type LandingInfo } from './pages/landing-page';
import { mandatePage } from './pages/mandate-page';
import { scaPage } from './pages/sca-page';
import { parseFormBody } from './form-body';
import { MEDIA_TYPE } from './route';
import { registerRoutes } from './register-routes';
import { routerTarget } from './router-target';
import { ROUTES } from './routes';
import { reservedKeyInJson } from './validation';

export interface RestCompatOptions {
  /** The router's base address or its /graphql endpoint. */
  routerUrl: string;
  host?: string;
  port?: number;
  logger?: Logger;
  production?: boolean;
  /** Longest wait for the router on one request; then 503 SERVICE_UNAVAILABLE instead of a hang. */
  routerTimeoutMs?: number;
  /**
   * Take the client IP from X-Forwarded-For only when the peer is one of these proxies (fastify's
   * trustProxy: addresses, CIDRs or 'loopback'). Unset: the socket peer is the client.
   */
  trustProxy?: string | string[];
  /** The address clients use (PUBLIC_BASE_URL), the server of /openapi.json; default: where this layer listens. */
  publicBaseUrl?: string;
  /** `npm start` outside production: a landing page at `/` saying what runs and where to start. */
  landing?: LandingInfo;
  /** More /readyz checks from whoever runs it (a process that is stopping answers not ready). */
  readinessChecks?: () => Record<string, boolean>;
  /** METRICS_TOKEN: /metrics answers only a scrape sending it as a bearer token; unset, /metrics is open. */
  metricsToken?: string;
  /** Every registry of the process, read at each scrape (the launcher): /metrics serves them all. Unset: its own. */
  scrape?: () => Registry[];
}

export interface RunningRestCompat {
  url: string;
  /** rest-compat's own metrics (its /metrics serves `scrape` instead when given). */
  metrics: Registry;
  stop(): Promise<void>;
}

/** The spec's REST API as a thin layer over the router: one GraphQL operation per REST path. */
export async function startRestCompat(options: RestCompatOptions): Promise<RunningRestCompat> {
  const logger = options.logger ?? createLogger('rest-compat');
  const target = routerTarget(options.routerUrl);
  const timeoutMs = options.routerTimeoutMs ?? 20_000;
  // Own connection pool, so stop() closes every socket to the router.
  const dispatcher = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });

  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: options.trustProxy ?? false,
    return503OnClosing: true,
    clientErrorHandler,
    frameworkErrors,
  });
  registerRequestId(app);
  const execute = createExecutor({ graphqlUrl: target.graphqlUrl, dispatcher, logger, timeoutMs });
  registerLayerErrors(app, logger, execute);
  const metrics = registerMetrics(app, options.metricsToken, options.scrape);

  // An empty body on a POST with content-type JSON (rotate-key from many HTTP clients) means "no fields".
  // A `__proto__` key stays refused by the parser, but named as a field is (validation.ts), not "malformed".
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body === ''
      ? done(null, undefined)
      : parseJson(request, body as string, (error, parsed) =>
          error ? done(reservedKeyInJson(body as string) ?? error, undefined) : done(null, parsed),
        ),
  );
  // Form bodies (OAuth's token endpoint, HTML forms) for the routes that declare them (RestRoute.bodyTypes).
  app.addContentTypeParser(MEDIA_TYPE.form, { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseFormBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // Pages share a path with a JSON route of the table, which documents it.
  registerRoutes(app, ROUTES, execute, {
    'GET /pay/{session_id}': checkoutPage(execute, logger),
    'GET /ob/auth/{consent_id}': consentPage(execute, logger),
    'GET /ob/my-consents': myConsentsPage(execute, logger),
    'GET /ob/auth': authorizationEndpointPage(execute, logger),
    'GET /ob/sca/{payment_order_id}': scaPage(execute, logger),
    'GET /mandates/{mandate_id}/confirm': mandatePage(execute, logger),
  });
  // Behind TLS (production, or an https PUBLIC_BASE_URL) the session cookie is Secure and `__Host-`.
  const cookie = dashboardCookie(options);
  await registerGraphQLProxy(app, { graphqlUrl: target.graphqlUrl, dispatcher, logger, dashboardCookie: cookie });
  const consoleCookie = operatorCookie(options);
  registerGraphQLWebSocketProxy(app, {
    graphqlUrl: target.graphqlUrl,
    logger,
    dashboardCookie: cookie,
    operatorCookie: consoleCookie,
  });
  registerDashboardSession(app, execute, {
    cookie,
    ...(options.publicBaseUrl ? { publicOrigin: new URL(options.publicBaseUrl).origin } : {}),
  });
  registerOperatorSession(app, execute, consoleCookie);
  registerHealth(app, target.baseUrl, dispatcher, options.readinessChecks);

  // Its server is the base URL clients call, known once listening (below). Built at the first ask,
  // not at the start: 0.2-0.4 s of zod-to-JSON-Schema and examples that a start (every test file's
  // platform, every instance of a cluster) paid whether anyone read the document or not.
  const listening: { url?: string } = {};
  let openApi: OpenApiDocument | undefined;
  const openApiDocument = () =>
    listening.url === undefined
      ? undefined
      : (openApi ??= buildOpenApiDocument(ROUTES, options.publicBaseUrl ?? listening.url));
  app.get('/openapi.json', async () => openApiDocument());
  // What the gateway sends a bank core and which answers it accepts: for banks writing their core.
  let bankCoreOpenApi: ReturnType<typeof bankCoreOpenApiDocument> | undefined;
  app.get('/openapi/bank-core.json', async () => (bankCoreOpenApi ??= bankCoreOpenApiDocument()));
  // Browsers ask for it on every page (checkout, consent, the dashboard, the docs): an icon, not a 404.
  app.get('/favicon.ico', (_request, reply) => reply.headers(FAVICON_HEADERS).send(favicon()));
  registerDocsPage(
    app,
    () => {
      const document = openApiDocument();
      return document ? [new URL(document.servers[0]!.url).origin] : [];
    },
    openApiDocument,
  );
  if (options.landing && !options.production)
    registerLandingPage(app, { ...options.landing, metricsLocked: options.metricsToken !== undefined });
  registerDashboard(app, logger);
  registerOperatorConsole(app, logger, consoleCookie);

  const url = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  listening.url = url;
  logger.info({ url, router: target.graphqlUrl, production: options.production ?? false }, 'rest-compat listening');
  return {
    url,
    metrics,
    async stop() {
      await app.close();
      await dispatcher.close();
    },
  };
}
