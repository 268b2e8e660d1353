import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent } from 'undici';
import { framedHttp } from './framed-transport';
import { serveFrames, type FramesServing } from './framed-serving';
import type { LocalHandler, LocalRequest } from './graphql-exchange';
import { betweenProcesses } from './in-process';
import { DeadlinePassed, pooledHttp, type HttpTransport } from './pooled-http';
import { inRequestSpan, installRequestTracer } from './trace-hooks';

const request = (name: string): LocalRequest => ({
  headers: { 'x-request-id': `req_${name}`, 'x-gateway-principal': 'signed' },
  body: { query: 'query Greet($name: String) { greet(name: $name) }', variables: { name } },
  ip: '127.0.0.1',
});

/** The handler both doors run: the name's greeting, after `delays[name]` ms; `fail` throws. */
function greeter(delays: Record<string, number> = {}): LocalHandler & { seen: LocalRequest[] } {
  const seen: LocalRequest[] = [];
  const handler = async (incoming: LocalRequest) => {
    seen.push(incoming);
    const name = String(incoming.body.variables?.name);
    if (name === 'fail') throw new Error('the handler failed');
    await new Promise((resolve) => setTimeout(resolve, delays[name] ?? 0));
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'x-seen-request-id': incoming.headers['x-request-id'] ?? '' },
      body: JSON.stringify({ data: { greet: `grüß dich, ${name}` } }),
    };
  };
  return Object.assign(handler, { seen });
}

interface Served {
  url: string;
  server: Server;
  /** POSTs that came over plain HTTP. */
  httpCalls: () => number;
  upgrades: () => number;
  frames?: FramesServing;
  sockets: Set<Socket>;
}

/** An HTTP server answering POST /graphql with `handler`, and (`framed`) granting the framed channel on it. */
async function serve(handler: LocalHandler, framed = true): Promise<Served> {
  let httpCalls = 0;
  let upgrades = 0;
  const sockets = new Set<Socket>();
  const server = createServer((incoming, response) => {
    let body = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk) => (body += chunk));
    incoming.on('end', () => {
      httpCalls += 1;
      void handler({ headers: incoming.headers as Record<string, string>, body: JSON.parse(body), ip: '' }).then(
        (answer) => response.writeHead(answer.status, answer.headers).end(answer.body),
      );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.prependListener('upgrade', () => (upgrades += 1));
  const frames = framed ? serveFrames(server, '/graphql', handler, { maxRequestBytes: 64 * 1024 }) : undefined;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return { url, server, httpCalls: () => httpCalls, upgrades: () => upgrades, frames, sockets };
}

async function close(served: Served): Promise<void> {
  await served.frames?.stop();
  for (const socket of served.sockets) socket.destroy();
  await new Promise((resolve) => served.server.close(resolve));
}

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 2000) throw new Error('not within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A first call (sent over HTTP) opens the channel's connection: until it is upgraded and settled. */
async function opened(framed: HttpTransport, served: Served): Promise<void> {
  await framed(served.url, request('warm'), 1000);
  await until(() => served.upgrades() === 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
}

const greeting = (answer: { body: string }) => (JSON.parse(answer.body) as { data: { greet: string } }).data.greet;

describe('the framed channel (framed-transport.ts, framed-serving.ts)', () => {
  let agent: Agent;
  let overHttp: HttpTransport;
  let served: Served | undefined;
  beforeEach(() => {
    agent = new Agent({ keepAliveTimeout: 10_000 });
    overHttp = pooledHttp(agent);
  });
  afterEach(async () => {
    if (served) await close(served);
    served = undefined;
    await agent.close();
  });

  it('calls over HTTP until its connections are open, then as frames, with the same answers', async () => {
    const handler = greeter();
    served = await serve(handler);
    const framed = framedHttp(overHttp, { connections: 2 });
    const first = await framed(served.url, request('Zoë'), 1000);
    expect(served.httpCalls()).toBe(1); // no call waits for the handshake
    await until(() => served!.upgrades() === 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const answers = await Promise.all(['Ada', 'Grace', 'Zoë'].map((name) => framed(served!.url, request(name), 1000)));
    expect(served.httpCalls()).toBe(1);
    expect(answers.map(greeting)).toEqual(['grüß dich, Ada', 'grüß dich, Grace', 'grüß dich, Zoë']);
    expect(answers[2]).toEqual({ ...first, headers: answers[2]!.headers });
    expect(answers[2]!.headers).toEqual({ 'content-type': 'application/json', 'x-seen-request-id': 'req_Zoë' });
    // The handler saw the headers and body the caller sent, as the HTTP route does.
    const framedZoe = handler.seen.slice(-3).find((seen) => seen.body.variables?.name === 'Zoë');
    expect(framedZoe).toMatchObject({ headers: request('Zoë').headers, body: request('Zoë').body });
    expect(served.upgrades()).toBe(2);
  });

  it('keeps an idle connection open: no timer of the handshake outlives it', async () => {
    served = await serve(greeter());
    const framed = framedHttp(overHttp, { connections: 1 });
    await framed(served.url, request('warm'), 1000);
    await until(() => served!.upgrades() === 1);
    await new Promise((resolve) => setTimeout(resolve, 5_500)); // past the handshake's 5 s deadline
    expect(greeting(await framed(served.url, request('later'), 1000))).toBe('grüß dich, later');
    expect(served.httpCalls()).toBe(1);
    expect(served.upgrades()).toBe(1);
  }, 10_000);

  it('matches answers to calls when they finish out of order, many in flight on one connection', async () => {
    const delays = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`n${i}`, (40 - i) % 7]));
    served = await serve(greeter(delays));
    const framed = framedHttp(overHttp, { connections: 1 });
    await opened(framed, served);
    const names = Object.keys(delays);
    const answers = await Promise.all(names.map((name) => framed(served!.url, request(name), 1000)));
    expect(answers.map(greeting)).toEqual(names.map((name) => `grüß dich, ${name}`));
    expect(served.httpCalls()).toBe(1);
  });

  it('rejects a call past its deadline with DeadlinePassed and keeps the connection while other answers come on it', async () => {
    served = await serve(greeter({ slow: 300 }));
    const framed = framedHttp(overHttp, { connections: 1 });
    await opened(framed, served);
    const late = framed(served.url, request('slow'), 60);
    expect(greeting(await framed(served.url, request('meanwhile'), 1000))).toBe('grüß dich, meanwhile');
    await expect(late).rejects.toBeInstanceOf(DeadlinePassed);
    expect(greeting(await framed(served.url, request('next'), 1000))).toBe('grüß dich, next');
    await new Promise((resolve) => setTimeout(resolve, 300)); // the late answer arrives and is dropped
    expect(greeting(await framed(served.url, request('after'), 1000))).toBe('grüß dich, after');
    expect(served.httpCalls()).toBe(1);
    expect(served.upgrades()).toBe(1);
  });

  it('gives a silent connection up when a deadline passes with nothing received since the call left, as HTTP gives its socket up', async () => {
    served = await serve(greeter({ slow: 300 }));
    const framed = framedHttp(overHttp, { connections: 1, failedForMs: 60_000 });
    await opened(framed, served);
    await expect(framed(served.url, request('slow'), 50)).rejects.toBeInstanceOf(DeadlinePassed);
    expect(greeting(await framed(served.url, request('next'), 1000))).toBe('grüß dich, next');
    expect(served.httpCalls()).toBe(2);
  });

  it('stays on HTTP with an endpoint that does not grant the upgrade, asking again only after refusedForMs', async () => {
    served = await serve(greeter(), false);
    served.server.on('upgrade', (_incoming, socket) =>
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'),
    );
    const framed = framedHttp(overHttp, { connections: 2, refusedForMs: 60_000 });
    for (const name of ['a', 'b', 'c', 'd']) {
      expect(greeting(await framed(served.url, request(name), 1000))).toBe(`grüß dich, ${name}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(served.httpCalls()).toBe(4);
    expect(served.upgrades()).toBe(2); // the two first connections asked, then no more
  });

  it('answers a handler that throws as the route does, 500 without its message', async () => {
    served = await serve(greeter());
    const framed = framedHttp(overHttp, { connections: 1 });
    await opened(framed, served);
    const failed = await framed(served.url, request('fail'), 1000);
    expect(failed.status).toBe(500);
    expect(failed.body).not.toContain('the handler failed');
    expect(served.httpCalls()).toBe(1);
  });

  it('fails the calls in flight when the connection drops, goes on over HTTP, and opens a new one after failedForMs', async () => {
    served = await serve(greeter({ slow: 500 }));
    const framed = framedHttp(overHttp, { connections: 1, failedForMs: 100 });
    await opened(framed, served);
    const inFlight = framed(served.url, request('slow'), 2000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    for (const socket of served.sockets) socket.destroy(); // the upgraded connection too
    const error = await inFlight.then(
      () => undefined,
      (rejected: unknown) => rejected,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(DeadlinePassed);
    expect(greeting(await framed(served.url, request('meanwhile'), 1000))).toBe('grüß dich, meanwhile');
    expect(served.httpCalls()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await framed(served.url, request('reopens'), 1000);
    await until(() => served!.upgrades() === 2);
  });

  it('sends a body over the frame limit over HTTP (where the route answers its own 413)', async () => {
    served = await serve(greeter());
    const framed = framedHttp(overHttp, { connections: 1, maxRequestBytes: 1000 });
    await opened(framed, served);
    expect(greeting(await framed(served.url, request('é'.repeat(600)), 1000))).toBe(`grüß dich, ${'é'.repeat(600)}`);
    expect(served.httpCalls()).toBe(2);
  });

  it('stopping: answers the calls it runs, refuses none that it ran, and the caller goes on over HTTP', async () => {
    served = await serve(greeter({ slow: 200 }));
    const framed = framedHttp(overHttp, { connections: 1 });
    await opened(framed, served);
    const running = framed(served.url, request('slow'), 2000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const stopped = served.frames!.stop();
    // Sent before or after the GOAWAY arrives: REFUSED (never run) and sent again over HTTP, or over HTTP at once.
    const sentDuring = framed(served.url, request('during'), 2000);
    expect(greeting(await running)).toBe('grüß dich, slow');
    expect(greeting(await sentDuring)).toBe('grüß dich, during');
    await stopped;
    expect(served.httpCalls()).toBe(2);
    expect(served.sockets.size).toBeLessThanOrEqual(1); // the framed connection closed (an HTTP keep-alive one may stay)
  });

  it('stopped: a new upgrade is answered 503 and asked again after failedForMs, not refusedForMs (a restart grants it)', async () => {
    served = await serve(greeter());
    const framed = framedHttp(overHttp, { connections: 1, failedForMs: 100, refusedForMs: 60_000 });
    await opened(framed, served);
    await served.frames!.stop();
    const upgradesBefore = served.upgrades();
    for (const name of ['a', 'b', 'c']) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(greeting(await framed(served.url, request(name), 1000))).toBe(`grüß dich, ${name}`);
    }
    expect(served.upgrades() - upgradesBefore).toBeGreaterThanOrEqual(2); // asked again, each answered 503
    expect(served.httpCalls()).toBe(4);
  });

  it('a server refuses a frame over its limit by closing the connection, and the caller goes on over HTTP', async () => {
    served = await serve(greeter());
    // The client's limit above the server's: the server sees a frame too long for it.
    const framed = framedHttp(overHttp, { connections: 1, maxRequestBytes: 1024 * 1024, failedForMs: 60_000 });
    await opened(framed, served);
    await expect(framed(served.url, request('x'.repeat(200_000)), 1000)).rejects.toThrow(/closed/);
    expect(greeting(await framed(served.url, request('next'), 1000))).toBe('grüß dich, next');
    expect(served.httpCalls()).toBe(2);
  });

  it("carries the caller's trace context in the frame, and the served request's span joins it (tracing on)", async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const joined: string[] = [];
    installRequestTracer({
      tagRequest: () => undefined,
      inSpan: (_name, _attributes, work) => work(),
      inject: (headers) => void (headers.traceparent = traceparent),
      underRemoteParent: (headers, work) => {
        joined.push(headers.traceparent!);
        return work();
      },
    });
    try {
      const handler = greeter();
      // As a subgraph's handler does (federation's server.ts): its span under the frame's context.
      served = await serve((incoming) =>
        inRequestSpan('greeter', 'req_traced', () => handler(incoming), incoming.headers),
      );
      const framed = framedHttp(overHttp, { connections: 1 });
      await opened(framed, served);
      await framed(served.url, request('traced'), 1000);
      expect(handler.seen.at(-1)!.headers.traceparent).toBe(traceparent);
      expect(joined).toEqual([traceparent]);
      expect(request('traced').headers).not.toHaveProperty('traceparent'); // the caller's headers are not changed
    } finally {
      installRequestTracer(undefined);
    }
  });

  it('betweenProcesses keeps plain HTTP when GRAPHQL_TRANSPORT=http', async () => {
    served = await serve(greeter());
    const previous = process.env.GRAPHQL_TRANSPORT;
    process.env.GRAPHQL_TRANSPORT = 'http';
    try {
      const transport = betweenProcesses(overHttp);
      for (const name of ['a', 'b', 'c']) {
        await transport(served.url, request(name), 1000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(served.httpCalls()).toBe(3);
      expect(served.upgrades()).toBe(0);
    } finally {
      if (previous === undefined) delete process.env.GRAPHQL_TRANSPORT;
      else process.env.GRAPHQL_TRANSPORT = previous;
    }
  });
});
