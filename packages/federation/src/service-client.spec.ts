import { ROUTER_AUDIENCE, serveInProcess, verifyPrincipal, verifyPrincipalOnce } from '@gateway/kernel';
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
