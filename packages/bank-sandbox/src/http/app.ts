import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { safeEqual } from '@gateway/kernel';
import { bankErrors, BankError, toErrorReply } from '../errors';
import { HungRequestReleased } from '../faults';
import type { SandboxContext } from './context';
import { registerCoreRoutes } from './core-routes';
import { registerCallbackRoutes } from './callback-routes';
import { registerAdminRoutes } from './admin-routes';

/** Every bank's /healthz; the rest needs the internal key. */
const OPEN_PATHS = new Set(['/healthz']);

/** The sandbox bank's HTTP surface: core interface, bank-side callbacks, admin API under /sandbox. */
export function buildSandboxApp(ctx: SandboxContext): FastifyInstance {
  const app = buildBankServer(ctx.logger, ctx.internalKey);
  app.get('/healthz', async () => ({ status: 'ok', bank_handle: ctx.handle }));
  registerCoreRoutes(app, ctx);
  registerCallbackRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  return app;
}

/**
 * A bank core's HTTP server without routes: the internal key on every call but /healthz, the
 * {error: {code, message}} answers, held requests dropped. Shared by the sandbox banks and the
 * built-in test bank.
 */
export function buildBankServer(logger: SandboxContext['logger'], internalKey: () => string): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // One log line per call is written by the routes that matter; fastify's two per request are noise.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: 'x-request-id',
    // A held (hung) request must not keep stop() waiting.
    forceCloseConnections: true,
    bodyLimit: 1024 * 1024,
  });

  app.addHook('onRequest', async (request) => {
    if (OPEN_PATHS.has(request.url)) return;
    const presented = request.headers['x-service-internal-key'];
    if (typeof presented !== 'string' || !safeEqual(presented, internalKey())) throw bankErrors.unauthorized();
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof HungRequestReleased) {
      reply.hijack();
      reply.raw.destroy();
      return;
    }
    const { status, body } = toErrorReply(error);
    if (status >= 500 && !(error instanceof BankError)) request.log.error({ err: error }, 'sandbox bank failed');
    void reply.code(status).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send({ error: { code: 'NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` } });
  });

  return app;
}
