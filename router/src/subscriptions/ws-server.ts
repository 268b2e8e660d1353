/// <reference path="../types/ws-modules.d.ts" />
import type { Server } from 'node:http';
import { GraphQLError, parse, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { Gauge, type Registry } from 'prom-client';
import { GatewayError, type Logger, type Principal } from '@gateway/kernel';
import { CredentialSweep, type WatchedConnection } from './credential-sweep';
import { whileCredentialHolds } from './credential-gate';
import { handshakeClient } from './handshake-client';
import { ResultStream } from './result-stream';
import type { ExecuteAs, SubscriptionHub } from './subscription-hub';
import { planSubscription, refusalFor, trackResult, type SubscriptionPlan } from './subscription-plan';
import { carriesNul } from '../operation';
import { isOperatorSession } from '../operator-session';

export interface SubscriptionServerOptions {
  server: Server;
  path: string;
  /** The supergraph's API schema (known once the gateway has loaded). */
  schema: () => GraphQLSchema | undefined;
  /** connectionParams -> principal, as the HTTP headers would be; refuses a bad credential with a GatewayError (thrown or rejected: it is awaited). */
  authenticate: (connectionParams: Record<string, unknown>, ip: string) => Principal | Promise<Principal>;
  hub: SubscriptionHub;
  execute: ExecuteAs;
  logger: Logger;
  registry: Registry;
  /** Ping interval; a client that misses a pong is dropped (default 12 s). */
  keepAliveMs?: number;
  /**
   * Charges a subscribe to the subscriber's rate limit (one `read` point: it runs the selection
   * once at once); a refusal (the error to send) means the subscription does not start.
   */
  charge?: (principal: Principal) => Promise<GatewayError | undefined>;
  /** How often open sockets' credentials are verified again (default 2 s; see credential-sweep.ts). */
  credentialCheckMs?: number;
  /** SUBSCRIPTION_MAX_LIFETIME_SECONDS: a socket is closed (1000, reason said) this long after it was accepted. */
  maxLifetimeSeconds?: number;
}

type ConnectionExtra = {
  principal?: Principal;
  watched?: WatchedConnection;
};

interface SubscribeArgs {
  plan: SubscriptionPlan;
  stream: ResultStream;
  watched: WatchedConnection;
}

/**
 * An operator's admin key too: paymentSessionUpdated and mandateUpdated admit admins, and an
 * admin's socket follows its key like any other (revoked, or revoked with the key that created
 * it: closed by the sweep).
 */
const CONNECTION_PARAM_HEADERS: Record<string, string> = {
  authorization: 'authorization',
  sessionToken: 'x-session-token',
  adminKey: 'x-service-admin-key',
};
const HEADER_NAMES = new Set(Object.values(CONNECTION_PARAM_HEADERS));

/** The credential headers a connectionParams object stands for (the spec's names, camelCase too). */
export function credentialHeadersOf(params: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(params ?? {})) {
    const header =
      (Object.hasOwn(CONNECTION_PARAM_HEADERS, name) ? CONNECTION_PARAM_HEADERS[name] : undefined) ??
      (HEADER_NAMES.has(name.toLowerCase()) ? name.toLowerCase() : undefined);
    if (header && typeof value === 'string') headers[header] = value;
  }
  return headers;
}

const toGraphQLErrors = (
  errors: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }>,
): GraphQLError[] => errors.map((error) => new GraphQLError(error.message, { extensions: error.extensions }));

/**
 * graphql-ws on the router's own HTTP server, same path as POST /graphql. The credential is
 * checked at connection_init (a bad one closes the socket with 4403) and again every period while
 * the socket is open (credential-sweep.ts: revoked, rotated or suspended, 4403 within seconds; the
 * socket's lifetime is capped too); each subscribe is planned,
 * answered once with the current state under the subscriber's principal (an object that is not
 * theirs is refused with the subgraph's error, a credential of another kind with the same), then
 * fed by the hub. Fields are declared once, in SUBSCRIPTION_FIELDS.
 */
export function attachSubscriptionServer(options: SubscriptionServerOptions): { close(): Promise<void> } {
  const { hub, logger } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const connections = new Gauge({
    name: 'router_ws_connections',
    help: 'Open graphql-ws connections',
    registers: [options.registry],
    collect: () => undefined,
  });
  new Gauge({
    name: 'router_subscriptions_active',
    help: 'Subscriptions this router instance feeds',
    registers: [options.registry],
    collect() {
      this.set(hub.size);
    },
  });
  connections.set(0);
  const sweep = new CredentialSweep({
    periodMs: options.credentialCheckMs,
    maxLifetimeMs: options.maxLifetimeSeconds === undefined ? undefined : options.maxLifetimeSeconds * 1000,
    logger,
  });
  sweep.start();

  const onUpgrade = (request: Parameters<Server['emit']>[1], socket: import('node:stream').Duplex, head: Buffer) => {
    const { pathname } = new URL((request as { url?: string }).url ?? '/', 'http://router');
    if (pathname !== options.path) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request as never, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  options.server.on('upgrade', onUpgrade);
  wss.on('connection', (ws) => {
    connections.inc();
    ws.once('close', () => connections.dec());
  });

  const disposable = useServer<Record<string, unknown>, ConnectionExtra>(
    {
      connectionInitWaitTimeout: 5000,
      async onConnect(ctx) {
        // connection_init's credential, or else the handshake's Authorization: what rest-compat
        // sends for the merchant dashboard, whose session lives in an HttpOnly cookie no script reads.
        const handshake = ctx.extra.request.headers.authorization;
        // The operator console's socket (rest-compat's /operator/graphql, issue 50) is signed in by
        // its cookie alone, sent as the handshake's Authorization: whatever connection_init says
        // is not a credential there.
        const consoleSession = handshake !== undefined && isOperatorSession(handshake.replace(/^Bearer /i, ''));
        const params = consoleSession
          ? { authorization: handshake }
          : Object.keys(credentialHeadersOf(ctx.connectionParams ?? {})).length
            ? (ctx.connectionParams ?? {})
            : handshake
              ? { authorization: handshake }
              : {};
        if (!Object.keys(credentialHeadersOf(params)).length) return false;
        const ip = handshakeClient(ctx.extra.request);
        try {
          const principal = await options.authenticate(params, ip);
          // Followed from now on: the same credential is verified again every period (credential-sweep.ts).
          const watched = sweep.watch({
            socket: ctx.extra.socket,
            principal,
            credentialKey: JSON.stringify(credentialHeadersOf(params)),
            authenticate: () => options.authenticate(params, ip),
          });
          const { socket } = ctx.extra;
          // Gone while its credential was being checked: its 'close' has already been emitted.
          if (socket.readyState !== socket.OPEN) sweep.forget(watched);
          else socket.once('close', () => sweep.forget(watched));
          Object.assign(ctx.extra, { principal, watched });
          return true;
        } catch (error) {
          if (!(error instanceof GatewayError)) logger.error({ err: error }, 'subscription credential check failed');
          return false; // 4403 Forbidden
        }
      },
      async onSubscribe(ctx, _id, payload) {
        const schema = options.schema();
        const { principal, watched } = ctx.extra;
        if (!schema || !principal || !watched)
          return [new GatewayError('SERVICE_UNAVAILABLE', 'subscriptions are not ready yet')];
        if (carriesNul(payload)) {
          const text = 'text must not contain the NUL character (U+0000)';
          return [new GatewayError('VALIDATION_ERROR', text, text)];
        }
        const plan = planSubscription(schema, payload);
        if (Array.isArray(plan)) return plan;
        const refused = refusalFor(plan, principal);
        if (refused) return refused;
        const overLimit = await options.charge?.(principal);
        if (overLimit) return [overLimit];
        // Registered before the first answer, so no event between the two is missed.
        const stream = new ResultStream(plan.statusRank);
        const stop = hub.add(plan, principal, stream);
        stream.onClose = stop;
        let first: ExecutionResult;
        try {
          first = await options.execute(principal, plan);
        } catch (error) {
          stop();
          logger.error({ err: error }, 'subscription query failed');
          return [new GatewayError('SERVICE_UNAVAILABLE', 'the subscription could not be started')];
        }
        if (first.errors?.length) {
          stop();
          return toGraphQLErrors(first.errors);
        }
        stream.pushFirst(trackResult(first, plan));
        const args: SubscribeArgs = { plan, stream, watched };
        return {
          schema,
          document: parse(payload.query),
          variableValues: payload.variables,
          operationName: payload.operationName,
          contextValue: args,
        };
      },
      subscribe: (args) => {
        const { stream, watched } = args.contextValue as SubscribeArgs;
        return whileCredentialHolds(stream, watched);
      },
      execute: () => ({
        errors: [new GatewayError('VALIDATION_ERROR', 'send queries and mutations over HTTP POST /graphql')],
      }),
    },
    wss,
    options.keepAliveMs ?? 12_000,
  );

  return {
    async close() {
      sweep.stop();
      options.server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.terminate();
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
