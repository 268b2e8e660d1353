import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  GatewayError,
  newSecret,
  ROUTER_AUDIENCE,
  serveInProcess,
  verifyPrincipal,
  verifyPrincipalOnce,
} from '@gateway/kernel';
import { createServiceClient } from './service-client';

const SECRET = 'service-client-spec-secret-0123456789';
const ROUTER_URL = 'http://127.0.0.1:7951/graphql';

describe('the service client', () => {
  it('asks the router in this process as a service principal signed for the router and that call, and returns its data', async () => {
    const seen: Array<Record<string, string>> = [];
    const stop = serveInProcess(
      ROUTER_URL,
      async ({ headers, body }) => {
        seen.push(headers);
        const claims = { audience: ROUTER_AUDIENCE, requestId: headers['x-request-id']! };
        return {
          status: 200,
          headers: {},
          body: JSON.stringify({
            data: {
              principal: verifyPrincipalOnce(headers['x-gateway-principal']!, SECRET, claims),
              query: body.query,
            },
          }),
        };
      },
      { enabled: true },
    );
    try {
      const call = createServiceClient({ routerUrl: () => ROUTER_URL, platformSecret: SECRET, service: 'payments' });
      expect(await call('{ ping }')).toEqual({
        principal: expect.objectContaining({ kind: 'service', id: 'payments' }),
        query: '{ ping }',
      });
      // Two calls under one request id (a service passes its caller's): each signed anew, each accepted once.
      await call('{ ping }', {}, 'req_servicecall1');
      await call('{ ping }', {}, 'req_servicecall1');
      expect(seen.map((headers) => headers['x-request-id'])).toEqual([
        expect.stringMatching(/^req_/),
        'req_servicecall1',
        'req_servicecall1',
      ]);
      expect(new Set(seen.map((headers) => headers['x-gateway-principal'])).size).toBe(3);
      // Never good for a subgraph, nor for another request.
      const header = seen[1]!['x-gateway-principal']!;
      expect(() =>
        verifyPrincipal(header, SECRET, { audience: 'open-banking', requestId: 'req_servicecall1' }),
      ).toThrow(
        expect.objectContaining({ code: 'UNAUTHORIZED', detail: 'forwarded principal was signed for another service' }),
      );
      expect(() => verifyPrincipal(header, SECRET, { audience: ROUTER_AUDIENCE, requestId: 'req_other' })).toThrow(
        expect.objectContaining({ code: 'UNAUTHORIZED', detail: 'forwarded principal was signed for another request' }),
      );
    } finally {
      stop();
    }
  });

  it('gives up on a router in this process that does not answer in time, as it does over HTTP', async () => {
    const stop = serveInProcess(ROUTER_URL, () => new Promise(() => undefined), { enabled: true });
    try {
      const call = createServiceClient({
        routerUrl: () => ROUTER_URL,
        platformSecret: SECRET,
        service: 'payments',
        timeoutMs: 100,
      });
      await expect(call('{ ping }')).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        detail: 'the router is unreachable',
      });
    } finally {
      stop();
    }
    // Over HTTP (nothing listens there): the same error.
    const overHttp = createServiceClient({
      routerUrl: () => ROUTER_URL,
      platformSecret: SECRET,
      service: 'payments',
      timeoutMs: 100,
    });
    await expect(overHttp('{ ping }')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      detail: 'the router is unreachable',
    });
  });

  it("rethrows the router's spec-coded error, and any other as INTERNAL_ERROR", async () => {
    let errors: unknown[] = [
      { message: 'no', extensions: { code: 'ALIAS_NOT_FOUND', detail: 'alias ali is not registered' } },
    ];
    const stop = serveInProcess(
      ROUTER_URL,
      async () => ({ status: 200, headers: {}, body: JSON.stringify({ data: null, errors }) }),
      { enabled: true },
    );
    try {
      const call = createServiceClient({ routerUrl: () => ROUTER_URL, platformSecret: SECRET, service: 'payments' });
      await expect(call('{ ping }')).rejects.toMatchObject({
        code: 'ALIAS_NOT_FOUND',
        detail: 'alias ali is not registered',
      });
      errors = [{ message: 'odd', extensions: { code: 'SOMETHING_NEW' } }];
      await expect(call('{ ping }')).rejects.toMatchObject({ code: 'INTERNAL_ERROR', detail: 'service call failed' });
    } finally {
      stop();
    }
  });
});

/** A stand-in for whatever answers at the router's address: a status, a content type and a body. */
async function answering(status: number, contentType: string, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(status, { 'content-type': contentType }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, server };
}

describe('the service client over HTTP, when what answers is no GraphQL server', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  const clientFor = (url: string) =>
    createServiceClient({
      routerUrl: () => url,
      platformSecret: newSecret('pls_'),
      service: 'payments',
      timeoutMs: 2_000,
    });

  // Under a burst in the cluster layout, a balancer's own page came back instead of a result: the
  // caller read a field of `undefined` and answered the customer 500 INTERNAL_ERROR.
  it.each([
    [503, 'text/html', '<html><body><h1>503 Service Unavailable</h1>No server is available</body></html>'],
    [502, 'application/json', JSON.stringify({ error: { code: 'BAD_GATEWAY' } })],
    [200, 'application/json', ''],
  ])(
    'a %i answer without a GraphQL result is SERVICE_UNAVAILABLE, never undefined data',
    async (status, type, body) => {
      const router = await answering(status, type, body);
      server = router.server;
      const failure = await clientFor(router.url)('{ bankRouting { handle } }').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(GatewayError);
      expect([(failure as GatewayError).code, (failure as GatewayError).detail]).toEqual([
        'SERVICE_UNAVAILABLE',
        `the router answered ${status} without a GraphQL result`,
      ]);
    },
  );
});
