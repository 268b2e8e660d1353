import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import type { LocalRequest } from './graphql-exchange';
import { DeadlinePassed, pooledHttp } from './pooled-http';

const request: LocalRequest = {
  headers: { 'x-request-id': 'req_pooled1', 'x-gateway-principal': 'signed' },
  body: { query: '{ ping }', variables: { name: 'Zoë' } },
  ip: '127.0.0.1',
};

interface Endpoint {
  url: string;
  server: Server;
  /** Sockets the server saw closed. */
  closed: () => number;
}

async function endpoint(
  answer: (body: string, incoming: IncomingMessage, response: ServerResponse) => void,
): Promise<Endpoint> {
  let closed = 0;
  const server = createServer((incoming, response) => {
    let body = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk) => (body += chunk));
    incoming.on('end', () => answer(body, incoming, response));
  });
  server.on('connection', (socket) => socket.on('close', () => (closed += 1)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, server, closed: () => closed };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('pooledHttp (the HTTP transport of callGraphQL)', () => {
  let agent: Agent;
  beforeEach(() => (agent = new Agent({ keepAliveTimeout: 10_000 })));
  afterEach(() => agent.close());

  it('POSTs the JSON body with the headers and returns status, headers and the whole body, a character split across chunks included', async () => {
    const seen: { body: string; headers: IncomingMessage['headers']; url?: string }[] = [];
    const answer = Buffer.from(JSON.stringify({ data: { greeting: 'grüß dich, Zoë' } }));
    const split = answer.indexOf(Buffer.from('ü')) + 1; // inside the two bytes of ü
    const served = await endpoint((body, incoming, response) => {
      seen.push({ body, headers: incoming.headers, url: incoming.url });
      response.writeHead(207, { 'content-type': 'application/json', 'x-ratelimit-remaining': '41' });
      response.write(answer.subarray(0, split));
      setTimeout(() => response.end(answer.subarray(split)), 10);
    });
    try {
      const response = await pooledHttp(agent)(`${served.url}?trace=1`, request, 1000);
      expect(response.status).toBe(207);
      expect(response.headers['x-ratelimit-remaining']).toBe('41');
      expect(JSON.parse(response.body)).toEqual({ data: { greeting: 'grüß dich, Zoë' } });
      expect(seen).toHaveLength(1);
      expect(seen[0]!.url).toBe('/graphql?trace=1');
      expect(JSON.parse(seen[0]!.body)).toEqual(request.body);
      expect(seen[0]!.headers).toMatchObject({
        'content-type': 'application/json',
        'x-request-id': 'req_pooled1',
        'x-gateway-principal': 'signed',
      });
    } finally {
      await close(served.server);
    }
  });

  it('rejects with DeadlinePassed when the whole answer is late, headers sent or not, and gives the socket up', async () => {
    const silent = await endpoint(() => undefined);
    const halfway = await endpoint((_body, _incoming, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"data":');
    });
    try {
      for (const served of [silent, halfway]) {
        const started = Date.now();
        const error = await pooledHttp(agent)(served.url, request, 150).catch((thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(DeadlinePassed);
        expect((error as Error).message).toBe('no answer within 150 ms');
        expect(Date.now() - started).toBeGreaterThanOrEqual(140);
        expect(Date.now() - started).toBeLessThan(1000);
        await waitFor(() => served.closed() >= 1);
      }
    } finally {
      await close(silent.server);
      await close(halfway.server);
    }
  });

  it('rejects with the connection error, not DeadlinePassed, when nothing listens', async () => {
    const gone = await endpoint(() => undefined);
    await close(gone.server);
    const error = await pooledHttp(agent)(gone.url, request, 1000).catch((thrown: unknown) => thrown);
    expect(error).not.toBeInstanceOf(DeadlinePassed);
    expect((error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('makes no AbortController per call', async () => {
    const served = await endpoint((_body, _incoming, response) => response.end('{"data":{}}'));
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made += 1;
      }
    };
    try {
      const transport = pooledHttp(agent);
      for (let call = 0; call < 3; call += 1)
        expect((await transport(served.url, request, 1000)).body).toBe('{"data":{}}');
      expect(made).toBe(0);
    } finally {
      globalThis.AbortController = Original;
      await close(served.server);
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 2000) throw new Error('condition not met within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
