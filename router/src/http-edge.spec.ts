import Fastify, { type FastifyInstance } from 'fastify';
import { GatewayError, type Principal } from '@gateway/kernel';
import type { Admission } from './admission';
import type { Forwarded } from './forward';
import { useHttpEdge } from './http-edge';
import { useRequestId } from './request-id';
import type { RequestLabels, RouterContext } from './router-context';

const merchant: Principal = { kind: 'merchant', id: 'mer_edge' };
const signedFor = () => 'signed';

/** An app with the HTTP edge in front of a /graphql route that answers what Apollo would be given. */
async function edgeWith(admission: Admission, forwarded?: Forwarded) {
  const timings: Array<{ labels: RequestLabels; status: number }> = [];
  const forwardedContexts: RouterContext[] = [];
  const app: FastifyInstance = Fastify();
  useRequestId(app);
  useHttpEdge(app, {
    admit: async (_headers, _ip, _source, _requestId, labels) => {
      labels.operation = 'Banks';
      return admission;
    },
    forwardWhole: async (_source, _headers, context, labels) => {
      forwardedContexts.push(context);
      if (forwarded) labels.outcome = forwarded.outcome;
      return forwarded;
    },
    contextOf: (principal, requestId) => ({
      principal: principal ?? { kind: 'anonymous' },
      requestId,
      who: 'caller',
      signedFor,
    }),
    timed: (labels) => (status) => void timings.push({ labels: { ...labels }, status }),
  });
  app.all('/graphql', async (request) => ({
    apollo: true,
    principal: request.gatewayPrincipal ?? null,
    labels: request.labels,
  }));
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.ready();
  return { app, timings, forwardedContexts };
}

const post = (app: FastifyInstance, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', 'x-request-id': 'req_edge1', ...headers },
    payload: { query: 'query Banks { banks { handle } }' },
  });

describe('the HTTP edge', () => {
  it("answers a refusal with the spec's status, its headers and one error carrying the request id, timed with its code", async () => {
    const refusal = new GatewayError('RATE_LIMITED', 'limit of 5 requests reached; retry in 60 s');
    const { app, timings } = await edgeWith({
      refusal,
      headers: { 'x-ratelimit-remaining': '0', 'retry-after': '60' },
    });
    const answer = await post(app);
    await app.close();
    expect(answer.statusCode).toBe(429);
    expect(answer.headers).toMatchObject({
      'x-ratelimit-remaining': '0',
      'retry-after': '60',
      'x-request-id': 'req_edge1',
    });
    expect(answer.json().errors).toEqual([
      {
        message: refusal.message,
        extensions: { code: 'RATE_LIMITED', status: 429, detail: refusal.detail, requestId: 'req_edge1' },
      },
    ]);
    expect(timings).toEqual([{ labels: { operation: 'Banks', outcome: 'RATE_LIMITED' }, status: 429 }]);
  });

  it("answers a JSON POST one subgraph answers whole with the subgraph's answer, and the admission's headers", async () => {
    const forwarded: Forwarded = {
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: '{"data":{"banks":[]}}',
      outcome: 'ok',
      subgraph: 'banks',
    };
    const { app, timings, forwardedContexts } = await edgeWith(
      { principal: merchant, headers: { 'x-ratelimit-remaining': '4' } },
      forwarded,
    );
    const answer = await post(app);
    await app.close();
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toBe('{"data":{"banks":[]}}');
    expect(answer.headers['x-ratelimit-remaining']).toBe('4');
    expect(forwardedContexts).toEqual([{ principal: merchant, requestId: 'req_edge1', who: 'caller', signedFor }]);
    expect(timings).toEqual([{ labels: { operation: 'Banks', outcome: 'ok' }, status: 200 }]);
  });

  it('leaves GETs, non-JSON POSTs and what no subgraph answers whole to Apollo, with the admitted principal and labels', async () => {
    const { app, forwardedContexts } = await edgeWith({ principal: merchant, headers: {} });
    const viaApollo = await post(app);
    const get = await app.inject({ method: 'GET', url: '/graphql?query=%7B%20banks%20%7B%20handle%20%7D%20%7D' });
    const text = await post(app, { 'content-type': 'text/plain' });
    const health = await app.inject({ method: 'GET', url: '/healthz' });
    await app.close();
    expect(viaApollo.json()).toEqual({ apollo: true, principal: merchant, labels: { operation: 'Banks' } });
    expect(get.json()).toMatchObject({ apollo: true, principal: merchant });
    expect(text.json()).toMatchObject({ apollo: true, principal: merchant }); // Apollo's CSRF prevention answers it
    expect(forwardedContexts).toHaveLength(1);
    expect(health.json()).toEqual({ status: 'ok' });
  });
});
