import type { IncomingMessage } from 'node:http';
import { handshakeClient } from './handshake-client';

const handshake = (remoteAddress: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as Pick<IncomingMessage, 'headers' | 'socket'>;

describe("a WebSocket handshake's client", () => {
  it('is the address rest-compat forwards when the peer is on loopback', () => {
    expect(handshakeClient(handshake('127.0.0.1', '203.0.113.9'))).toBe('203.0.113.9');
    expect(handshakeClient(handshake('::ffff:127.0.0.1', '2001:db8::7'))).toBe('2001:db8::7');
    // What the client itself claimed is left of the address rest-compat saw, and is not believed.
    expect(handshakeClient(handshake('127.0.0.1', '198.51.100.1, 203.0.113.9'))).toBe('203.0.113.9');
    // A proxy chain on this machine: the right-most address that is not loopback.
    expect(handshakeClient(handshake('127.0.0.1', '203.0.113.9, 127.0.0.1'))).toBe('203.0.113.9');
  });

  it('is the peer itself when it is not on loopback, or forwards nothing usable', () => {
    expect(handshakeClient(handshake('198.51.100.4', '203.0.113.9'))).toBe('198.51.100.4');
    expect(handshakeClient(handshake('127.0.0.1'))).toBe('127.0.0.1');
    expect(handshakeClient(handshake('127.0.0.1', 'not-an-address'))).toBe('127.0.0.1');
  });
});
