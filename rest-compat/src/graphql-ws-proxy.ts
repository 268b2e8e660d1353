import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GatewayError, isInternalHeader, type Logger } from '@gateway/kernel';
import type { DashboardCookie } from './pages/dashboard/dashboard-cookie';
import { cookieCredential, fromThisOrigin } from './pages/dashboard/dashboard-session';
import { OPERATOR_GRAPHQL_PATH, operatorSessionOf } from './pages/operator/operator-session';
import { CREDENTIAL_HEADERS } from './headers';

/** Connection-level headers of the client's hop: the upstream request gets its own. */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'upgrade',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
]);

const refuse = (socket: Duplex, status: number, reason: string) => {
  if (socket.writable) socket.end(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  else socket.destroy();
};

/**
 * The handshake's credential on the operator console's socket (/operator/graphql, issue 50): its
 * cookie alone, from this origin only; every credential header the page (or an extension) sent is
 * dropped, and the router takes the console session from the handshake and ignores connection_init.
 */
function consoleCredential(
  request: IncomingMessage,
  cookie: DashboardCookie,
): { authorization: string } | [number, string] {
  if (!fromThisOrigin(request.headers)) return [403, 'Forbidden'];
  const session = operatorSessionOf(request.headers, cookie);
  if (!session) return [401, 'Unauthorized'];
  for (const name of CREDENTIAL_HEADERS) delete request.headers[name];
  return { authorization: `Bearer ${session}` };
}

/**
 * WebSocket upgrades of /graphql (graphql-ws subscriptions) go to the router, so one base address
 * serves everything: the handshake is forwarded with its headers (the router checks the
 * credentials sent in connection_init), then the two sockets are spliced byte for byte. The
 * merchant dashboard's session cookie goes as the handshake's Authorization, from this origin only;
 * the operator console's socket is /operator/graphql, signed in by its own cookie only.
 */
export function registerGraphQLWebSocketProxy(
  app: FastifyInstance,
  options: { graphqlUrl: string; logger: Logger; dashboardCookie: DashboardCookie; operatorCookie?: DashboardCookie },
): void {
  const target = new URL(options.graphqlUrl);
  const open = new Set<Duplex>();

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://rest-compat');
    const operatorSocket = url.pathname === OPERATOR_GRAPHQL_PATH && options.operatorCookie !== undefined;
    if (url.pathname !== '/graphql' && !operatorSocket) return refuse(socket, 404, 'Not Found');
    socket.on('error', () => socket.destroy());
    // A handshake is a GET, but a cross-site page must not open a socket as the signed-in merchant.
    const credential = operatorSocket
      ? consoleCredential(request, options.operatorCookie!)
      : cookieCredential(request.headers, 'WEBSOCKET', options.dashboardCookie);
    if (Array.isArray(credential)) return refuse(socket, ...credential);
    if (credential instanceof GatewayError) return refuse(socket, 403, 'Forbidden');
    // The platform's internal headers (X-Gateway-Principal) never come from a client (graphql-proxy.ts).
    if (Object.keys(request.headers).some(isInternalHeader)) return refuse(socket, 401, 'Unauthorized');
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    const forwardedFor = [request.headers['x-forwarded-for'], request.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = httpRequest({
      hostname: target.hostname,
      port: target.port,
      path: `${target.pathname}${url.search}`,
      method: 'GET',
      headers: {
        ...headers,
        ...credential,
        connection: 'Upgrade',
        upgrade: request.headers.upgrade ?? 'websocket',
        'x-forwarded-for': forwardedFor,
      },
    });
    upstream.on('upgrade', (response, upstreamSocket, upstreamHead) => {
      const lines = [`HTTP/1.1 ${response.statusCode} ${response.statusMessage}`];
      for (let i = 0; i < response.rawHeaders.length; i += 2)
        lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (upstreamHead.length) socket.write(upstreamHead);
      if (head.length) upstreamSocket.write(head);
      for (const end of [socket, upstreamSocket]) {
        open.add(end);
        end.on('close', () => open.delete(end));
      }
      upstreamSocket.on('error', () => upstreamSocket.destroy());
      // Either side going away closes the other: no half-open pairs left behind.
      socket.on('close', () => upstreamSocket.destroy());
      upstreamSocket.on('close', () => socket.destroy());
      upstreamSocket.pipe(socket).pipe(upstreamSocket);
    });
    // The router answered without upgrading (refused the handshake): pass its status on.
    upstream.on('response', (response) => {
      refuse(socket, response.statusCode ?? 502, response.statusMessage ?? 'Bad Gateway');
      response.resume();
    });
    upstream.on('error', (error) => {
      options.logger.warn({ err: error }, 'router unreachable for a /graphql WebSocket');
      refuse(socket, 503, 'Service Unavailable');
    });
    upstream.end();
  });

  app.addHook('onClose', async () => {
    for (const socket of open) socket.destroy();
    open.clear();
  });
}
