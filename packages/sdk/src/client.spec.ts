import { GatewayApiError, GatewayConnectionError, GatewayUnexpectedResponseError } from './errors';
import { GatewayClient } from './client';

/** A scripted API: each call takes the next answer (a Response, or an Error thrown as a network failure). */
function fakeApi(...answers: Array<Response | Error | (() => Response)>) {
  const requests: Array<{ method: string; url: string; headers: Headers; body: string }> = [];
  const fetch = async (request: Request) => {
    requests.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: await request.text(),
    });
    const answer = answers.shift();
    if (answer === undefined) throw new Error('the test scripted no more answers');
    if (answer instanceof Error) throw answer;
    return typeof answer === 'function' ? answer() : answer;
  };
  return { fetch, requests };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const apiError = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(
    status,
    { error: { code, message: `${code} message`, detail: `${code} detail`, request_id: 'req_abc123' } },
    { 'x-request-id': 'req_abc123', ...headers },
  );
const networkFailure = () => new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });

const SESSION = {
  session_id: 'ops_1',
  livemode: false,
  merchant_id: 'mer_1',
  status: 'PENDING',
  amount: 1500,
  currency: 'LYD',
  checkout_url: 'https://pay.example/pay/ops_1',
};
const NEW_SESSION = { amount: 1500, currency: 'LYD', destination: { type: 'alias', value: 'shop' } };

const client = (fetch: (request: Request) => Promise<Response>, delays: number[] = [], keys = ['idk_first']) =>
  new GatewayClient({
    baseUrl: 'https://pay.example/',
    apiKey: 'mk_test_abc',
    fetch,
    newIdempotencyKey: () => keys.shift() ?? 'idk_more',
    retry: { baseDelayMs: 1, maxDelayMs: 4 },
    onRetry: ({ delayMs }) => delays.push(delayMs),
  });

describe('GatewayClient', () => {
  it('sends the API key and JSON body, and answers the typed success body', async () => {
    const api = fakeApi(json(201, SESSION));
    const session = await client(api.fetch).post('/payments/sessions', { body: NEW_SESSION });
    // Typed from the document: session_id and checkout_url are strings, status one of its enum.
    const id: string = session.session_id;
    expect(id).toBe('ops_1');
    expect(api.requests[0]).toMatchObject({ method: 'POST', url: 'https://pay.example/payments/sessions' });
    expect(api.requests[0]!.headers.get('authorization')).toBe('Bearer mk_test_abc');
    expect(JSON.parse(api.requests[0]!.body)).toEqual(NEW_SESSION);
  });

  it('adds an Idempotency-Key to creating POSTs and retries network errors and 5xx with the same key', async () => {
    const delays: number[] = [];
    const api = fakeApi(networkFailure(), apiError(503, 'SERVICE_UNAVAILABLE'), json(201, SESSION));
    const session = await client(api.fetch, delays).post('/payments/sessions', { body: NEW_SESSION });
    expect(session.session_id).toBe('ops_1');
    expect(api.requests).toHaveLength(3);
    expect(api.requests.map((r) => r.headers.get('idempotency-key'))).toEqual(['idk_first', 'idk_first', 'idk_first']);
    // The body goes out whole on every attempt.
    expect(api.requests.map((r) => JSON.parse(r.body))).toEqual([NEW_SESSION, NEW_SESSION, NEW_SESSION]);
    expect(delays).toHaveLength(2);
  });

  it('keeps the caller’s own Idempotency-Key', async () => {
    const api = fakeApi(apiError(502, 'INTERNAL_ERROR'), json(201, SESSION));
    await client(api.fetch).post('/payments/sessions', {
      body: NEW_SESSION,
      params: { header: { 'Idempotency-Key': 'order-1042' } },
    });
    expect(api.requests.map((r) => r.headers.get('idempotency-key'))).toEqual(['order-1042', 'order-1042']);
  });

  it('gives each call its own key', async () => {
    const api = fakeApi(json(201, SESSION), json(201, SESSION));
    const gateway = client(api.fetch, [], ['idk_a', 'idk_b']);
    await gateway.post('/payments/sessions', { body: NEW_SESSION });
    await gateway.post('/payments/sessions', { body: NEW_SESSION });
    expect(api.requests.map((r) => r.headers.get('idempotency-key'))).toEqual(['idk_a', 'idk_b']);
  });

  it('waits for a request still running under its key (409 IDEMPOTENCY_KEY_IN_USE), then takes the first answer', async () => {
    const api = fakeApi(networkFailure(), apiError(409, 'IDEMPOTENCY_KEY_IN_USE'), json(201, SESSION));
    await expect(client(api.fetch).post('/payments/sessions', { body: NEW_SESSION })).resolves.toMatchObject({
      session_id: 'ops_1',
    });
    expect(api.requests).toHaveLength(3);
  });

  it('never retries a POST the document does not mark idempotent, nor sends it a key', async () => {
    const api = fakeApi(apiError(503, 'SERVICE_UNAVAILABLE'));
    const refused = client(api.fetch).post('/payments/sessions/{session_id}/expire', {
      params: { path: { session_id: 'ops_1' } },
    });
    await expect(refused).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.headers.get('idempotency-key')).toBeNull();

    const lost = fakeApi(networkFailure());
    const failed = client(lost.fetch).post('/payments/sessions/{session_id}/expire', {
      params: { path: { session_id: 'ops_1' } },
    });
    await expect(failed).rejects.toBeInstanceOf(GatewayConnectionError);
    expect(lost.requests).toHaveLength(1);
  });

  it('never retries a PATCH', async () => {
    const api = fakeApi(networkFailure());
    await expect(
      client(api.fetch).patch('/merchants/{id}', { params: { path: { id: 'mer_1' } }, body: { name: 'Shop' } }),
    ).rejects.toMatchObject({ name: 'GatewayConnectionError', attempts: 1 });
    expect(api.requests).toHaveLength(1);
  });

  it('retries GETs, a bounded number of times with growing delays, then throws GatewayConnectionError', async () => {
    const delays: number[] = [];
    const api = fakeApi(networkFailure(), networkFailure(), networkFailure(), json(200, SESSION));
    const failed = client(api.fetch, delays).get('/payments/sessions/{session_id}', {
      params: { path: { session_id: 'ops_1' } },
    });
    await expect(failed).rejects.toMatchObject({ name: 'GatewayConnectionError', attempts: 3 });
    expect(((await failed.catch((error: unknown) => error)) as Error).message).toContain('ECONNRESET');
    expect(api.requests).toHaveLength(3);
    // base 1 ms doubled, capped at 4 ms, half of it random.
    expect(delays[0]).toBeGreaterThanOrEqual(1);
    expect(delays[1]).toBeGreaterThanOrEqual(1);
    for (const delay of delays) expect(delay).toBeLessThanOrEqual(4);
  });

  it('throws the spec error as GatewayApiError with code, status, message, detail and request id; 4xx not retried', async () => {
    const api = fakeApi(apiError(404, 'SESSION_NOT_FOUND'));
    const error = await client(api.fetch)
      .get('/payments/sessions/{session_id}', { params: { path: { session_id: 'ops_x' } } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayApiError);
    expect(error).toMatchObject({
      status: 404,
      code: 'SESSION_NOT_FOUND',
      detail: 'SESSION_NOT_FOUND detail',
      requestId: 'req_abc123',
    });
    expect((error as Error).message).toContain('SESSION_NOT_FOUND message');
    expect(api.requests).toHaveLength(1);
  });

  it('retries a 429 after its Retry-After when that is within the bound, and gives it back otherwise', async () => {
    const soon = fakeApi(apiError(429, 'RATE_LIMITED', { 'retry-after': '0' }), json(200, SESSION));
    await client(soon.fetch).get('/payments/sessions/{session_id}', { params: { path: { session_id: 'ops_1' } } });
    expect(soon.requests).toHaveLength(2);

    const later = fakeApi(apiError(429, 'RATE_LIMITED', { 'retry-after': '42' }));
    await expect(
      client(later.fetch).get('/payments/sessions/{session_id}', { params: { path: { session_id: 'ops_1' } } }),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 42 });
    expect(later.requests).toHaveLength(1);
  });

  it('reports an answer that is not the API’s as GatewayUnexpectedResponseError', async () => {
    const html = () =>
      new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } });
    const api = fakeApi(html, html, html);
    await expect(
      client(api.fetch).get('/payments/sessions/{session_id}', { params: { path: { session_id: 'ops_1' } } }),
    ).rejects.toBeInstanceOf(GatewayUnexpectedResponseError);
    expect(api.requests).toHaveLength(3);
  });

  it('does not retry once the caller aborts', async () => {
    const controller = new AbortController();
    const api = fakeApi(() => {
      controller.abort();
      throw new DOMException('aborted', 'AbortError');
    });
    await expect(
      client(api.fetch).get('/payments/sessions/{session_id}', {
        params: { path: { session_id: 'ops_1' } },
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(api.requests).toHaveLength(1);
  });
});

// Compile-time checks (npm run typecheck): the generated types refuse what the API refuses.
export async function typeChecks(gateway: GatewayClient): Promise<void> {
  // @ts-expect-error a path the API does not have
  await gateway.get('/payments/nowhere');
  // @ts-expect-error POST /payments/sessions needs its body
  await gateway.post('/payments/sessions');
  // @ts-expect-error amount is an integer of minor units, not a string
  await gateway.post('/payments/sessions', { body: { ...NEW_SESSION, amount: '15.00' } });
  const session = await gateway.get('/payments/sessions/{session_id}', { params: { path: { session_id: 'ops_1' } } });
  // @ts-expect-error status is the enum of session states
  const wrong: 'PAID' = session.status;
  void wrong;
}
