import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

const isLoopback = (address: string): boolean =>
  address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');

/**
 * The client of a WebSocket handshake, as the router's HTTP side finds it (Fastify's trustProxy
 * 'loopback'): a peer on loopback is a proxy of this machine (rest-compat's WebSocket proxy appends
 * the address it saw to X-Forwarded-For), so the client is the right-most forwarded address that
 * is not loopback; anyone else is the client themself, whatever they forward. Without this, every
 * anonymous subscriber behind rest-compat counted as 127.0.0.1 and shared one budget.
 */
export function handshakeClient(request: Pick<IncomingMessage, 'headers' | 'socket'>): string {
  const peer = request.socket.remoteAddress ?? '';
  if (!isLoopback(peer)) return peer;
  const forwarded = String(request.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => isIP(entry) !== 0);
  for (let index = forwarded.length - 1; index >= 0; index -= 1) {
    if (!isLoopback(forwarded[index]!)) return forwarded[index]!;
  }
  return peer;
}
