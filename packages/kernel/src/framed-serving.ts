import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { LocalHandler, LocalResponse } from './graphql-exchange';
import { answerFrame, batchedWriter, FRAMES_PROTOCOL, FrameKind, FrameReader, signalFrame, type Frame } from './frames';

/**
 * The framed channel, server side (the client is framed-transport.ts): an HTTP server grants the
 * Upgrade to FRAMES_PROTOCOL on `path` and answers each request frame with `handler`, the handler
 * that serves the same path to callers in this process (the route's authentication, limits and
 * errors, without the socket). Frames of one connection are answered as they finish, not in
 * order. `maxRequestBytes`: the route's body limit; a longer frame is a protocol error that
 * closes the connection (the client sends longer bodies over HTTP).
 *
 * stop(): no new connections (503); each open one is told GOAWAY, answers what it runs, REFUSES what
 * arrives after (the client sends it elsewhere: it never ran) and closes. Resolves when all closed.
 */
export interface FramesServing {
  /** Framed connections open now (a gauge on the service's /metrics). */
  connections(): number;
  stop(): Promise<void>;
}

export function serveFrames(
  server: Server,
  path: string,
  handler: LocalHandler,
  options: { maxRequestBytes: number },
): FramesServing {
  const connections = new Set<FramedConnection>();
  let stopping = false;
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (request.headers.upgrade?.toLowerCase() !== FRAMES_PROTOCOL) {
      // Another protocol's upgrade (graphql-ws) is its listener's; with none, nobody would answer it.
      if (server.listenerCount('upgrade') === 1) refuse(socket, 400, 'Bad Request');
      return;
    }
    if (stopping) return refuse(socket, 503, 'Service Unavailable');
    if (new URL(request.url ?? '/', 'http://upgrade').pathname.replace(/(.)\/$/, '$1') !== path)
      return refuse(socket, 404, 'Not Found');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${FRAMES_PROTOCOL}\r\n\r\n`);
    const connection = new FramedConnection(socket as Socket, handler, options.maxRequestBytes);
    connections.add(connection);
    socket.once('close', () => connections.delete(connection));
    if (head.length) connection.read(head);
  };
  server.on('upgrade', onUpgrade);
  return {
    connections: () => connections.size,
    async stop() {
      // The listener stays, answering 503: a caller asks again soon (a restart grants it), where
      // the HTTP route's answer to an upgrade it does not know would read as "never".
      stopping = true;
      await Promise.all([...connections].map((connection) => connection.goAway()));
    },
  };
}

function refuse(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** What the route answers when its handler failed: Fastify's generic 500, without the error's message. */
const FAILED: LocalResponse = {
  status: 500,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify({ statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' }),
};

const NOT_JSON: LocalResponse = {
  status: 400,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify({ statusCode: 400, error: 'Bad Request', message: 'Body is not valid JSON' }),
};

class FramedConnection {
  private readonly reader: FrameReader;
  private inFlight = 0;
  private goingAway = false;
  /** Answers finished in one turn of the event loop leave in one write. */
  private readonly write: (frame: Buffer) => void;

  constructor(
    private readonly socket: Socket,
    private readonly handler: LocalHandler,
    maxRequestBytes: number,
  ) {
    // A request frame is its JSON body plus a few headers: room for those above the body limit.
    this.reader = new FrameReader(maxRequestBytes + 64 * 1024);
    this.write = batchedWriter(socket);
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000); // a caller gone without a word is found out
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', () => undefined); // 'close' follows
  }

  read(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch {
      return void this.socket.destroy();
    }
    for (const frame of frames) {
      if (frame.kind !== FrameKind.Request) return void this.socket.destroy();
      if (this.goingAway) this.write(signalFrame(FrameKind.Refused, frame.id));
      else this.run(frame);
    }
  }

  goAway(): Promise<void> {
    if (this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.goingAway = true;
      this.write(signalFrame(FrameKind.GoAway, 0));
      this.endIfIdle();
    });
  }

  private run(frame: Frame): void {
    this.inFlight += 1;
    this.answer(frame).then((answer) => {
      this.inFlight -= 1;
      if (!this.socket.destroyed) this.write(answerFrame(frame.id, answer.status, answer.headers, answer.body));
      this.endIfIdle();
    });
  }

  private async answer(frame: Frame): Promise<LocalResponse> {
    let body: unknown;
    try {
      body = JSON.parse(frame.body);
    } catch {
      return NOT_JSON;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return NOT_JSON;
    try {
      const ip = this.socket.remoteAddress ?? '';
      return await this.handler({ headers: frame.headers, body: body as never, ip });
    } catch {
      return FAILED;
    }
  }

  private endIfIdle(): void {
    if (this.goingAway && this.inFlight === 0) {
      // After the pending writes leave: uncork happens on the next tick.
      process.nextTick(() => this.socket.end());
    }
  }
}
