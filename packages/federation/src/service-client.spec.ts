import { serveInProcess, verifyPrincipal } from '@gateway/kernel';
import { createServiceClient } from './service-client';

const SECRET = 'service-client-spec-secret-0123456789';
const ROUTER_URL = 'http://127.0.0.1:7951/graphql';

describe('the service client', () => {
  it('asks the router in this process as a service principal and returns its data', async () => {
    const stop = serveInProcess(
      ROUTER_URL,
      async ({ headers, body }) => ({
        status: 200,
        headers: {},
        body: JSON.stringify({
          data: { principal: verifyPrincipal(headers['x-gateway-principal']!, SECRET), query: body.query },
        }),
      }),
      { enabled: true },
    );
    try {
      const call = createServiceClient({ routerUrl: () => ROUTER_URL, platformSecret: SECRET, service: 'payments' });
      expect(await call('{ ping }')).toEqual({
        principal: expect.objectContaining({ kind: 'service', id: 'payments' }),
        query: '{ ping }',
      });
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
