import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import type { LocalResponse } from './graphql-exchange';
import { batchedWriter, FRAMES_PROTOCOL, FrameKind, FrameReader, requestFrame, type Frame } from './frames';
import { DeadlinePassed, targetOf, type HttpTransport } from './pooled-http';
import { withTraceHeaders } from './trace-hooks';

/**
 * The framed channel, client side: GraphQL calls to another of the platform's processes as frames
 * (frames.ts) on a few upgraded connections per endpoint, many requests in flight on each, instead
 * of one HTTP/1.1 exchange per call. Per call it saves the HTTP request and answer on both sides
 * and, under load, most of the socket reads and writes (a connection carries many frames per
 * read and per write): bench/peers.ts. HTTP/2 would do the same, and node:http2 costs more per
 * call than undici's HTTP/1.1 on this path (measured for issue 32), so the protocol is our own and
 * small.
 *
 * The endpoint opts in: a subgraph grants the Upgrade (framed-serving.ts); anything else (the
 * router, a balancer that refuses it, an older subgraph) answers otherwise and is called over
 * `fallback` (pooledHttp), asked again after a while. Until a connection is open, calls go over
 * HTTP: no call waits for a handshake. Same deadline and same failures as pooledHttp: DeadlinePassed
 * when no answer came in time (the connection stays while other answers come on it), an error when
 * the connection closes with the call in flight (as a reset socket). A call the server REFUSED (it
 * was stopping and did not run it) is sent again over `fallback`: it never ran, a mutation included.
 */
export interface FramedOptions {
  /** Connections per endpoint (default 2): requests are spread over them in turn. */
  connections?: number;
  /** After an endpoint refused the upgrade (it does not serve frames), HTTP only for this long (default 60 s). */
  refusedForMs?: number;
  /**
   * After a connection could not be opened (unreachable, or a 5xx: a subgraph stopping), or one
   * closed or went away, HTTP only for this long (default 1 s).
   */
  failedForMs?: number;
  /** The longest answer taken (default 64 MiB); a longer one closes the connection. */
  maxAnswerBytes?: number;
  /** The longest request sent as a frame (default 1 MiB, a subgraph's body limit); a longer one goes over HTTP. */
  maxRequestBytes?: number;
}

export function framedHttp(fallback: HttpTransport, options: FramedOptions = {}): HttpTransport {
  const endpoints = new Map<string, Endpoint>();
  const settings = {
    connections: options.connections ?? 2,
    refusedForMs: options.refusedForMs ?? 60_000,
    failedForMs: options.failedForMs ?? 1_000,
    maxAnswerBytes: options.maxAnswerBytes ?? 64 * 1024 * 1024,
    maxRequestBytes: options.maxRequestBytes ?? 1024 * 1024,
  };
  return (url, request, timeoutMs) => {
    let endpoint = endpoints.get(url);
    if (!endpoint) endpoints.set(url, (endpoint = new Endpoint(url, settings)));
    const channel = endpoint.pick();
    if (!channel) return fallback(url, request, timeoutMs);
    const body = JSON.stringify(request.body);
    // A UTF-8 byte is at most 3 per UTF-16 unit: count bytes only when it could be over.
    if (body.length * 3 > settings.maxRequestBytes && Buffer.byteLength(body) > settings.maxRequestBytes)
      return fallback(url, request, timeoutMs);
    return channel.send(request.headers, body, timeoutMs).catch((error: unknown) => {
      if (error instanceof NotRun) return fallback(url, request, timeoutMs);
      throw error;
    });
  };
}

type Settings = Required<FramedOptions>;

/** A call the server answered REFUSED: it did not run it. */
class NotRun extends Error {}

/** One URL's connections: opened in the background, used in turn, dropped when they close or go away. */
class Endpoint {
  private readonly open: Channel[] = [];
  private opening = 0;
  private httpOnlyUntil = 0;
  private turn = 0;

  constructor(
    private readonly url: string,
    private readonly settings: Settings,
  ) {}

  pick(): Channel | undefined {
    if (this.open.length + this.opening < this.settings.connections && Date.now() >= this.httpOnlyUntil)
      while (this.open.length + this.opening < this.settings.connections && this.connect());
    if (this.open.length === 0) return undefined;
    this.turn = (this.turn + 1) % this.open.length;
    return this.open[this.turn];
  }

  /** Starts opening one connection; false when the endpoint is not one to open any to. */
  private connect(): boolean {
    const { host, port, path, plain } = targetOf(this.url);
    if (!plain) {
      this.httpOnlyUntil = Number.POSITIVE_INFINITY; // TLS endpoints stay on HTTPS
      return false;
    }
    this.opening += 1;
    let settled = false;
    const settle = (channel: Channel | undefined, httpOnlyForMs: number) => {
      if (settled) return;
      settled = true;
      clearTimeout(unanswered);
      this.opening -= 1;
      if (channel) this.open.push(channel);
      else this.httpOnlyUntil = Date.now() + httpOnlyForMs;
    };
    const handshake = httpRequest({
      host,
      port,
      path,
      method: 'GET',
      headers: { connection: 'Upgrade', upgrade: FRAMES_PROTOCOL },
      agent: false,
    });
    // A timer of its own, not the request's `timeout`: that one stays on the socket once upgraded.
    const unanswered = setTimeout(() => handshake.destroy(new Error('the upgrade was not answered')), 5_000);
    unanswered.unref();
    handshake.on('upgrade', (response, socket: Socket, head: Buffer) => {
      if (response.statusCode !== 101 || response.headers.upgrade?.toLowerCase() !== FRAMES_PROTOCOL) {
        socket.destroy();
        return settle(undefined, this.settings.refusedForMs);
      }
      const channel: Channel = new Channel(socket, head, this.settings.maxAnswerBytes, () => this.drop(channel));
      settle(channel, 0);
    });
    handshake.on('response', (response) => {
      response.resume();
      const stopping = (response.statusCode ?? 0) >= 500; // a restart's new process will grant it
      settle(undefined, stopping ? this.settings.failedForMs : this.settings.refusedForMs);
    });
    handshake.on('error', () => settle(undefined, this.settings.failedForMs));
    handshake.end();
    return true;
  }

  /** A channel that closed or goes away takes no new calls; another is opened after failedForMs. */
  private drop(channel: Channel): void {
    const at = this.open.indexOf(channel);
    if (at < 0) return;
    this.open.splice(at, 1);
    this.httpOnlyUntil = Math.max(this.httpOnlyUntil, Date.now() + this.settings.failedForMs);
  }
}

interface InFlight {
  resolve: (answer: LocalResponse) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** One upgraded connection: numbered requests out, answers matched back by number. */
class Channel {
  private readonly inFlight = new Map<number, InFlight>();
  private lastId = 0;
  /** Calls made in one turn of the event loop leave in one write. */
  private readonly write: (frame: Buffer) => void;
  /** Frames received so far: a deadline that passed with none since its call was sent means a silent peer. */
  private received = 0;

  constructor(
    private readonly socket: Socket,
    head: Buffer,
    maxAnswerBytes: number,
    private readonly gone: () => void,
  ) {
    this.write = batchedWriter(socket);
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    // Calls in flight hold their deadline timers; an idle channel keeps no process alive.
    socket.unref();
    const reader = new FrameReader(maxAnswerBytes);
    const onData = (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = reader.push(chunk);
      } catch {
        return this.giveUp(); // not this protocol: the calls in flight fail on close
      }
      for (const frame of frames) this.receive(frame);
    };
    socket.on('data', onData);
    socket.on('error', () => undefined); // 'close' follows and fails what is in flight
    socket.on('close', () => {
      this.gone();
      for (const call of this.inFlight.values()) {
        clearTimeout(call.timer);
        call.reject(new Error('the connection closed before the answer came'));
      }
      this.inFlight.clear();
    });
    if (head.length) onData(head);
  }

  send(headers: Record<string, string>, body: string, timeoutMs: number): Promise<LocalResponse> {
    return new Promise<LocalResponse>((resolve, reject) => {
      this.lastId = this.lastId === 0xffffffff ? 1 : this.lastId + 1;
      const id = this.lastId;
      const receivedBefore = this.received;
      const timer = setTimeout(() => {
        this.inFlight.delete(id); // a late answer is dropped
        reject(new DeadlinePassed(timeoutMs));
        // Nothing came back since this call left: the peer may be gone without a word (a host
        // down, a partition). Given up, as pooledHttp gives its socket up: the next calls go
        // over HTTP and a new connection, not into the same silence.
        if (this.received === receivedBefore) this.giveUp();
      }, timeoutMs);
      this.inFlight.set(id, { resolve, reject, timer });
      this.write(requestFrame(id, withTraceHeaders(headers), body));
    });
  }

  /** Out of the pool at once (the socket closes on a later turn); what is in flight fails on close. */
  private giveUp(): void {
    this.gone();
    this.socket.destroy();
  }

  private receive(frame: Frame): void {
    this.received += 1;
    if (frame.kind === FrameKind.Request) return this.giveUp(); // a client is not asked
    if (frame.kind === FrameKind.GoAway) return this.gone(); // answers of calls in flight still come
    const call = this.inFlight.get(frame.id);
    if (!call) return;
    this.inFlight.delete(frame.id);
    clearTimeout(call.timer);
    if (frame.kind === FrameKind.Refused) call.reject(new NotRun());
    else call.resolve({ status: frame.status, headers: frame.headers, body: frame.body });
  }
}
