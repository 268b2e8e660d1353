import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayError } from './errors';
import type { LocalRequest } from './graphql-exchange';
import { callGraphQL, serveInProcess, type GraphQLCallOptions } from './in-process';
import { DeadlinePassed } from './pooled-http';

const request: LocalRequest = {
  headers: { 'x-request-id': 'req_transport1' },
  body: { query: '{ ping }', variables: { a: 1 } },
  ip: '127.0.0.1',
};
const options: GraphQLCallOptions = {
  timeoutMs: 200,
  failure: (late) =>
    new GatewayError(
      'SERVICE_UNAVAILABLE',
      late ? 'the ping service did not answer within 200 ms' : 'the ping service is unreachable',
    ),
};

/** A GraphQL endpoint over HTTP; `answer` decides what each request gets (nothing: it hangs). */
async function httpEndpoint(
  answer: (body: string, request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer((incoming, response) => {
    let body = '';
    incoming.on('data', (chunk) => (body += chunk));
    incoming.on('end', () => answer(body, incoming, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, server };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** How a call ended: the error it threw (code and detail) and how long it took. */
async function failureOf(url: string): Promise<{ code: string; detail: string; ms: number }> {
  const started = Date.now();
  const error = await callGraphQL(url, request, options).then(
    () => undefined,
    (thrown: GatewayError) => thrown,
  );
  if (!error) throw new Error('the call was expected to fail');
  return { code: error.code, detail: error.detail, ms: Date.now() - started };
}

describe('one transport for GraphQL calls (callGraphQL)', () => {
  it('fails an in-process call past its deadline exactly as the HTTP call to the same URL fails', async () => {
    const silent = await httpEndpoint(() => undefined);
    try {
      const overHttp = await failureOf(silent.url);
      const stop = serveInProcess(silent.url, () => new Promise(() => undefined), { enabled: true });
      const inProcess = await failureOf(silent.url).finally(stop);
      for (const ended of [overHttp, inProcess]) {
        expect(ended).toMatchObject({
          code: 'SERVICE_UNAVAILABLE',
          detail: 'the ping service did not answer within 200 ms',
        });
        expect(ended.ms).toBeGreaterThanOrEqual(190);
        expect(ended.ms).toBeLessThan(2000);
      }
    } finally {
      await close(silent.server);
    }
  });

  it('fails an unreachable HTTP endpoint and an in-process handler that throws with the same error, without waiting for the deadline', async () => {
    const gone = await httpEndpoint(() => undefined);
    await close(gone.server);
    const overHttp = await failureOf(gone.url);
    const stop = serveInProcess(gone.url, async () => Promise.reject(new Error('handler crashed')), { enabled: true });
    const inProcess = await failureOf(gone.url).finally(stop);
    for (const ended of [overHttp, inProcess]) {
      expect(ended).toMatchObject({ code: 'SERVICE_UNAVAILABLE', detail: 'the ping service is unreachable' });
      expect(ended.ms).toBeLessThan(190);
    }
  });

  it('answers alike over both transports: the status and body the route sends, the same request received', async () => {
    const received: Array<{ headers: Record<string, string | string[] | undefined>; body: unknown }> = [];
    const endpoint = await httpEndpoint((body, incoming, response) => {
      received.push({ headers: incoming.headers, body: JSON.parse(body) });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ping":"pong"}}');
    });
    try {
      const overHttp = await callGraphQL(endpoint.url, request, options);
      const stop = serveInProcess(
        `${endpoint.url}/`,
        async (local) => {
          received.push({ headers: local.headers, body: local.body });
          return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"data":{"ping":"pong"}}' };
        },
        { enabled: true },
      );
      const inProcess = await callGraphQL(endpoint.url, request, options).finally(stop);
      for (const answer of [overHttp, inProcess])
        expect(answer).toMatchObject({
          status: 200,
          body: '{"data":{"ping":"pong"}}',
          headers: { 'content-type': 'application/json' },
        });
      expect(received.map(({ body }) => body)).toEqual([request.body, request.body]);
      expect(received[0]!.headers).toMatchObject({
        'x-request-id': 'req_transport1',
        'content-type': 'application/json',
      });
      expect(received[1]!.headers).toEqual(request.headers);
      // Stopped, or never served here (the transport off): over HTTP again.
      serveInProcess(endpoint.url, async () => ({ status: 500, headers: {}, body: '' }), { enabled: false });
      await callGraphQL(endpoint.url, request, options);
      expect(received).toHaveLength(3);
    } finally {
      await close(endpoint.server);
    }
  });

  it("hands a URL served elsewhere to the caller's own HTTP transport, with the deadline, and maps its DeadlinePassed to late", async () => {
    const deadlines: number[] = [];
    const answer = await callGraphQL('http://router.internal/graphql', request, {
      ...options,
      overHttp: async (url, sent, timeoutMs) => {
        deadlines.push(timeoutMs);
        return { status: 200, headers: {}, body: JSON.stringify({ url, query: sent.body.query }) };
      },
    });
    expect(JSON.parse(answer.body)).toEqual({ url: 'http://router.internal/graphql', query: '{ ping }' });
    expect(deadlines).toEqual([200]);
    const late = await callGraphQL('http://router.internal/graphql', request, {
      ...options,
      overHttp: async (_url, _sent, timeoutMs) => Promise.reject(new DeadlinePassed(timeoutMs)),
    }).catch((error: GatewayError) => error);
    expect(late).toMatchObject({ detail: 'the ping service did not answer within 200 ms' });
    const failed = await callGraphQL('http://router.internal/graphql', request, {
      ...options,
      overHttp: async () => Promise.reject(new Error('ECONNREFUSED')),
    }).catch((error: GatewayError) => error);
    expect(failed).toMatchObject({ detail: 'the ping service is unreachable' });
  });

  it('keeps each in-process call to its own deadline with one timer for calls of one timeout, and no timer once none waits', async () => {
    const url = 'http://127.0.0.1:9/deadlines';
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const idle = timers();
    const answers = new Map<string, () => void>();
    const stop = serveInProcess(
      url,
      (call) =>
        new Promise((resolve) => {
          // `answer` in the variables: answered when the test says so; else it hangs.
          if (call.body.variables?.answer)
            answers.set(String(call.body.variables.answer), () => resolve({ status: 200, headers: {}, body: '{}' }));
        }),
      { enabled: true },
    );
    const timed = { ...options, timeoutMs: 300 };
    const ended = (variables: Record<string, unknown>) => {
      const started = Date.now();
      return callGraphQL(url, { ...request, body: { query: '{ ping }', variables } }, timed).then(
        () => ({ ok: true, ms: Date.now() - started }),
        (error: GatewayError) => ({ ok: false, code: error.code, ms: Date.now() - started }),
      );
    };
    try {
      const first = ended({});
      await new Promise((resolve) => setTimeout(resolve, 150));
      const second = ended({});
      const answered = ended({ answer: 'a' });
      expect(timers()).toBe(idle + 1);
      answers.get('a')!();
      expect(await answered).toMatchObject({ ok: true });
      const [one, two] = await Promise.all([first, second]);
      // Each at its own deadline: the second is not failed when the first is.
      for (const late of [one, two]) {
        expect(late).toMatchObject({ ok: false, code: 'SERVICE_UNAVAILABLE' });
        expect(late.ms).toBeGreaterThanOrEqual(290);
        expect(late.ms).toBeLessThan(1500);
      }
      expect(timers()).toBe(idle);
      // An answered call leaves no timer behind.
      const quick = ended({ answer: 'b' });
      answers.get('b')!();
      expect(await quick).toMatchObject({ ok: true });
      expect(timers()).toBe(idle);
    } finally {
      stop();
    }
  });

  it('runs an in-process call under a timer alone (no AbortController), and fails a handler that throws at once as one that rejects', async () => {
    const url = 'http://127.0.0.1:9/graphql';
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made += 1;
      }
    };
    const stop = serveInProcess(url, async () => ({ status: 200, headers: {}, body: '{"data":{}}' }), {
      enabled: true,
    });
    try {
      expect(await callGraphQL(url, request, options)).toMatchObject({ status: 200, body: '{"data":{}}' });
      expect(made).toBe(0);
    } finally {
      stop();
      globalThis.AbortController = Original;
    }
    const throwing = serveInProcess(
      url,
      () => {
        throw new Error('handler crashed before its first await');
      },
      { enabled: true },
    );
    const failed = await failureOf(url).finally(throwing);
    expect(failed).toMatchObject({ code: 'SERVICE_UNAVAILABLE', detail: 'the ping service is unreachable' });
  });
});
