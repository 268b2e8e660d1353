import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@gateway/kernel';
import { startRestCompat, type RunningRestCompat } from './server';
import { call, expectError } from './spec-support';

const silent = createLogger('rest-compat-test', 'silent');

/** A stand-in router for what the real one never does: hang, or answer something that is not GraphQL. */
async function stubRouter(
  handler: (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A port nothing listens on: bound once to learn a free number, then released. */
async function closedPort(): Promise<string> {
  const { url, server } = await stubRouter(() => undefined);
  await new Promise((resolve) => server.close(resolve));
  return url;
}

describe('rest-compat layer (no router needed)', () => {
  let rest: RunningRestCompat;

  beforeAll(async () => {
    rest = await startRestCompat({ routerUrl: `${await closedPort()}/graphql`, logger: silent, routerTimeoutMs: 2000 });
  });
  afterAll(async () => {
    await rest.stop();
  });

  it('answers an unknown route with a JSON 404 NOT_FOUND and a request id', async () => {
    const answer = await call(rest.url, 'GET', '/no/such/route?x=1');
    expectError(answer, 404, 'NOT_FOUND');
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body.error.detail).toBe('no route GET /no/such/route');
  });

  it('serves no landing page unless the launcher asks for one, and never in production mode', async () => {
    expectError(await call(rest.url, 'GET', '/'), 404, 'NOT_FOUND');
    const landing = {
      database: 'PostgreSQL (DATABASE_URL)',
      bus: 'in-process',
      graphqlUrl: 'http://127.0.0.1:1/graphql',
      demoFile: '/nonexistent/demo.json',
    };
    const production = await startRestCompat({
      routerUrl: `${await closedPort()}/graphql`,
      logger: silent,
      production: true,
      landing,
    });
    try {
      expectError(await call(production.url, 'GET', '/'), 404, 'NOT_FOUND');
      // Nor the start page's one-click demo payment.
      expectError(await call(production.url, 'POST', '/demo/payment'), 404, 'NOT_FOUND');
    } finally {
      await production.stop();
    }
  });

  // Fuzzer finding (issue 13): Node's parser refused it before fastify, with fastify's own 431 body.
  it('answers a URL over the 16 KiB header limit with 400 VALIDATION_ERROR in the spec error body, with X-Request-Id', async () => {
    const answer = await call(rest.url, 'GET', `/merchants/${'z'.repeat(20_000)}`);
    expectError(answer, 400, 'VALIDATION_ERROR');
    expect(answer.body.error.detail).toContain('larger than 16 KiB');
    expect(answer.headers.get('x-request-id')).toBe(answer.body.error.request_id);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers a path parameter over 100 characters and a malformed percent-encoding with 400 VALIDATION_ERROR in the spec error body', async () => {
    const long = await call(rest.url, 'GET', `/banks/${'x'.repeat(200)}/capabilities`);
    expectError(long, 400, 'VALIDATION_ERROR');
    expect(long.body.error.detail).toContain('longer than 100 characters');
    const malformed = await call(rest.url, 'GET', '/banks/%E0%A4%A/capabilities');
    expectError(malformed, 400, 'VALIDATION_ERROR');
  });

  it('refuses malformed JSON with 400 VALIDATION_ERROR', async () => {
    const answer = await call(rest.url, 'POST', '/banks', { body: '{"bank_handle": ' });
    expectError(answer, 400, 'VALIDATION_ERROR');
    expect(answer.body.error.detail).toBe('body: malformed JSON');
  });

  it('refuses the reserved keys __proto__, constructor and prototype by name, never as malformed JSON (issue 46)', async () => {
    const reserved = (key: string, where = 'metadata') =>
      `${where}: key "${key}" is reserved (__proto__, constructor and prototype are never accepted)`;
    // Before: "body: malformed JSON" (fastify's prototype-poisoning guard), with no word of the key.
    for (const [body, key] of [
      ['{"metadata":{"__proto__":"x"}}', '__proto__'],
      ['{"metadata":{"order":"1","constructor":"x"}}', 'constructor'],
      ['{"metadata":{"prototype":"x"}}', 'prototype'],
      ['{"metadata":{"constructor":{"prototype":{}}}}', 'constructor'],
    ] as const) {
      const answer = await call(rest.url, 'PATCH', '/payments/sessions/ops_1', { body });
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.error.detail).toBe(reserved(key));
    }
    const top = await call(rest.url, 'POST', '/merchants', { body: '{"name":"Shop","__proto__":{"admin":true}}' });
    expect(top.body.error.detail).toBe(reserved('__proto__', 'body'));
    // zod's records dropped an own __proto__ key silently: a list filter by it is refused too.
    const filter = await call(rest.url, 'GET', '/payments/sessions?metadata[__proto__]=x');
    expectError(filter, 400, 'VALIDATION_ERROR');
    expect(filter.body.error.detail).toBe(reserved('__proto__'));
    // Still malformed when it is.
    const broken = await call(rest.url, 'PATCH', '/payments/sessions/ops_1', { body: '{"metadata":{"__proto__":' });
    expect(broken.body.error.detail).toBe('body: malformed JSON');
  });

  it('refuses unknown body fields and unknown query parameters, naming them', async () => {
    const field = await call(rest.url, 'POST', '/merchants', { body: { name: 'Shop', colour: 'red' } });
    expectError(field, 400, 'VALIDATION_ERROR');
    expect(field.body.error.detail).toBe('colour: unknown field');

    const query = await call(rest.url, 'GET', '/v1/identity/resolve?handle=ali');
    expectError(query, 400, 'VALIDATION_ERROR');
    expect(query.body.error.detail).toBe('handle: unknown query parameter');

    const noBody = await call(rest.url, 'POST', '/banks/abc/rotate-key', { body: { force: true } });
    expect(noBody.body.error.detail).toBe('force: unknown field');
  });

  it('refuses a form body on a JSON route with 400 VALIDATION_ERROR naming the media type', async () => {
    const answer = await call(rest.url, 'POST', '/merchants', {
      body: 'name=Shop',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(answer, 400, 'VALIDATION_ERROR');
    expect(answer.body.error.detail).toBe('content-type: send application/json');
  });

  it('names a missing or mistyped field in the detail', async () => {
    const missing = await call(rest.url, 'POST', '/ob/tpps', { body: { name: 'TPP' } });
    expectError(missing, 400, 'VALIDATION_ERROR');
    expect(missing.body.error.detail).toBe('redirect_uris: required');

    const mistyped = await call(rest.url, 'POST', '/ob/tpps', {
      body: { name: 'TPP', redirect_uris: ['https://a.example', 7] },
    });
    expect(mistyped.body.error.detail).toMatch(/^redirect_uris\[1\]: expected string/);

    const notObject = await call(rest.url, 'PATCH', '/banks/abc', { body: '[1,2]' });
    expect(notObject.body.error.detail).toMatch(/^body: expected object/);
  });

  it('refuses a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const answer = await call(rest.url, 'POST', '/merchants', { body: { name: 'x'.repeat(1024 * 1024) } });
    expectError(answer, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('generates a req_ id when none is sent, echoes a well-formed one and replaces a malformed one', async () => {
    const generated = await call(rest.url, 'GET', '/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);

    const echoed = await call(rest.url, 'GET', '/nowhere', { headers: { 'x-request-id': 'req_client42' } });
    expect(echoed.headers.get('x-request-id')).toBe('req_client42');
    expect(echoed.body.error.request_id).toBe('req_client42');

    const replaced = await call(rest.url, 'GET', '/nowhere', { headers: { 'x-request-id': '<script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
  });

  it('sends X-Content-Type-Options: nosniff on every answer, errors included', async () => {
    for (const answer of [
      await call(rest.url, 'GET', '/healthz'),
      await call(rest.url, 'GET', '/nowhere'),
      await call(rest.url, 'GET', '/openapi.json'),
    ]) {
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE when the router cannot be reached, on REST and /graphql', async () => {
    const answer = await call(rest.url, 'GET', '/banks/abc/capabilities', { headers: { 'x-request-id': 'req_down1' } });
    expectError(answer, 503, 'SERVICE_UNAVAILABLE');
    expect(answer.body.error.request_id).toBe('req_down1');
    expect(answer.text).not.toMatch(/ECONNREFUSED|at .+\.ts:\d+/);

    const graphql = await call(rest.url, 'POST', '/graphql', { body: { query: '{ __typename }' } });
    expect(graphql.status).toBe(503);
    expect(graphql.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('is alive on /healthz but not ready on /readyz without a router', async () => {
    const alive = await call(rest.url, 'GET', '/healthz');
    expect([alive.status, alive.body]).toEqual([200, { status: 'ok' }]);
    const ready = await call(rest.url, 'GET', '/readyz');
    expect([ready.status, ready.body]).toEqual([503, { status: 'unavailable', checks: { router: false } }]);
  });

  it('counts requests by route pattern and status on /metrics', async () => {
    await call(rest.url, 'GET', '/banks/zzz/capabilities');
    const metrics = await call(rest.url, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(
      /rest_compat_requests_total\{method="GET",route="\/banks\/:handle\/capabilities",status="503"[^}]*\} [1-9]/,
    );
    expect(metrics.text).toMatch(/rest_compat_requests_total\{method="GET",route="unmatched",status="404"/);
  });
});

describe('rest-compat in front of a misbehaving router', () => {
  it('gives up on a router that never answers with 503, not a hang', async () => {
    const hanging = await stubRouter(() => undefined);
    const rest = await startRestCompat({ routerUrl: hanging.url, logger: silent, routerTimeoutMs: 300 });
    try {
      const answer = await call(rest.url, 'GET', '/banks/abc/capabilities');
      expectError(answer, 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await rest.stop();
      hanging.server.closeAllConnections();
      await new Promise((resolve) => hanging.server.close(resolve));
    }
  });

  it('maps an answer that is not GraphQL to 503, and an unknown error code to 500 INTERNAL_ERROR', async () => {
    let reply = 'not json';
    const odd = await stubRouter((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(reply),
    );
    const rest = await startRestCompat({ routerUrl: odd.url, logger: silent });
    try {
      expectError(await call(rest.url, 'GET', '/banks/abc/capabilities'), 503, 'SERVICE_UNAVAILABLE');
      reply = JSON.stringify({ errors: [{ message: 'boom', extensions: { code: 'SOMETHING_NEW' } }] });
      const unknown = await call(rest.url, 'GET', '/banks/abc/capabilities');
      expectError(unknown, 500, 'INTERNAL_ERROR');
      expect(unknown.text).not.toContain('boom');
    } finally {
      await rest.stop();
      await new Promise((resolve) => odd.server.close(resolve));
    }
  });

  it('charges an unknown route at the router: its rate-limit headers on the 404, and its 429 past the budget', async () => {
    let limited = false;
    const router = await stubRouter((_request, response) => {
      const headers = { 'content-type': 'application/json', 'x-ratelimit-limit': '2', 'x-ratelimit-reset': '30' };
      if (!limited) {
        response.writeHead(200, { ...headers, 'x-ratelimit-remaining': '1' });
        response.end(JSON.stringify({ data: { __typename: 'Query' } }));
        return;
      }
      response.writeHead(200, { ...headers, 'x-ratelimit-remaining': '0', 'retry-after': '30' });
      const error = {
        message: 'Rate limited',
        extensions: { code: 'RATE_LIMITED', detail: 'limit of 2 requests reached' },
      };
      response.end(JSON.stringify({ errors: [error] }));
    });
    const rest = await startRestCompat({ routerUrl: router.url, logger: silent });
    try {
      const missing = await call(rest.url, 'GET', '/no/such/route');
      expectError(missing, 404, 'NOT_FOUND');
      expect([missing.headers.get('x-ratelimit-limit'), missing.headers.get('x-ratelimit-remaining')]).toEqual([
        '2',
        '1',
      ]);
      limited = true;
      const refused = await call(rest.url, 'GET', '/no/such/route');
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.headers.get('retry-after')).toBe('30');
    } finally {
      await rest.stop();
      await new Promise((resolve) => router.server.close(resolve));
    }
  });

  it('forwards credentials, Idempotency-Key, the request id and the client IP, and passes rate-limit headers back', async () => {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const router = await stubRouter((request, response) => {
      seen.push(request.headers);
      response
        .writeHead(200, {
          'content-type': 'application/json',
          'x-ratelimit-limit': '9',
          'x-ratelimit-remaining': '8',
          'x-ratelimit-reset': '60',
          'x-internal': 'no',
        })
        .end(JSON.stringify({ data: { rotateBankKey: { bankKey: 'sbk_abc_new' } } }));
    });
    const rest = await startRestCompat({ routerUrl: router.url, logger: silent });
    try {
      const answer = await call(rest.url, 'POST', '/banks/abc/rotate-key', {
        headers: {
          'x-service-bank-key': 'sbk_abc_old',
          'idempotency-key': 'idem-1',
          'x-request-id': 'req_fwd1',
          'x-forwarded-for': '198.51.100.7',
          cookie: 'a=b',
        },
      });
      expect([answer.status, answer.body]).toEqual([200, { bank_key: 'sbk_abc_new' }]);
      expect([
        answer.headers.get('x-ratelimit-limit'),
        answer.headers.get('x-ratelimit-remaining'),
        answer.headers.get('x-ratelimit-reset'),
      ]).toEqual(['9', '8', '60']);
      expect(answer.headers.get('x-internal')).toBeNull();
      expect(seen[0]).toMatchObject({
        'x-service-bank-key': 'sbk_abc_old',
        'idempotency-key': 'idem-1',
        'x-request-id': 'req_fwd1',
        'x-forwarded-for': '127.0.0.1',
      });
      // A client cannot choose the IP its public rate limit is counted under, nor smuggle other headers.
      expect(seen[0]!.cookie).toBeUndefined();
    } finally {
      await rest.stop();
      await new Promise((resolve) => router.server.close(resolve));
    }
  });
});
