/**
 * The parts of `ws` and `graphql-ws/use/ws` the router uses. `ws` ships no types (@types/ws is
 * not installed) and graphql-ws publishes `use/ws` only through package exports, which this
 * repository's `moduleResolution: node` does not read.
 */
declare module 'ws' {
  import type { EventEmitter } from 'node:events';
  import type { IncomingMessage } from 'node:http';
  import type { Duplex } from 'node:stream';

  export class WebSocket extends EventEmitter {
    /** `headers`: the handshake's own (a test sends a cookie and an Origin, as a browser would). */
    constructor(address: string, protocols?: string | string[], options?: { headers?: Record<string, string> });
    readonly protocol: string;
    readonly readyState: number;
    readonly OPEN: 1;
    send(data: string, callback?: (error?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
  }

  export class WebSocketServer extends EventEmitter {
    constructor(options: { noServer?: boolean; maxPayload?: number });
    readonly clients: Set<WebSocket>;
    handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, callback: (socket: WebSocket) => void): void;
    close(callback?: () => void): void;
  }

  export default WebSocket;
}

declare module 'graphql-ws/use/ws' {
  import type { IncomingMessage } from 'node:http';
  import type { ConnectionInitMessage, Disposable, ServerOptions } from 'graphql-ws';
  import type { WebSocket, WebSocketServer } from 'ws';

  export interface Extra {
    readonly socket: WebSocket;
    readonly request: IncomingMessage;
  }

  export function useServer<
    P extends ConnectionInitMessage['payload'] = ConnectionInitMessage['payload'],
    E extends Record<PropertyKey, unknown> = Record<PropertyKey, never>,
  >(options: ServerOptions<P, Extra & Partial<E>>, server: WebSocketServer, keepAlive?: number): Disposable;
}
