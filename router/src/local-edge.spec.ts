import { GatewayError, type Principal } from '@gateway/kernel';
import type { Admission } from './admission';
import type { Forwarded } from './forward';
import { createLocalEdge, type GraphQLExecutor } from './local-edge';
import type { RequestLabels, RouterContext } from './router-context';

const merchant: Principal = { kind: 'merchant', id: 'mer_local' };
const request = {
  headers: { 'x-request-id': 'req_local1', authorization: 'Bearer mk' },
  body: { query: 'query Banks { banks { handle } }' },
  ip: '10.0.0.7',
};

/** The in-process edge over an Apollo that answers `{"data":{}}`, recording what each stage was given. */
function localEdgeWith(admission: Admission, forwarded?: Forwarded) {
  const timings: Array<{ labels: RequestLabels; status: number }> = [];
  const executed: Array<{ headers: string[]; context: RouterContext }> = [];
  const apollo: GraphQLExecutor = {
    async executeHTTPGraphQLRequest({ httpGraphQLRequest, context }) {
      executed.push({ headers: [...httpGraphQLRequest.headers.keys()], context: await context() });
      const headers = new Map([['content-type', 'application/json; charset=utf-8']]);
      return { status: undefined, headers: headers as never, body: { kind: 'complete', string: '{"data":{}}' } };
    },
  };
  const handler = createLocalEdge(apollo, {
    admit: async (_headers, ip, _source, requestId, labels) => {
      labels.operation = 'Banks';
      return {
        ...admission,
        ...(admission.principal
          ? { principal: { ...admission.principal, ip, id: `${admission.principal.id}:${requestId}` } as Principal }
          : {}),
      };
    },
    forwardWhole: async (_source, _headers, _context, labels) => {
      if (forwarded) labels.outcome = forwarded.outcome;
      return forwarded;
    },
    contextOf: (principal, requestId) => ({
      principal: principal ?? { kind: 'anonymous' },
      requestId,
      who: 'caller',
      signedFor: () => 'signed',
    }),
    timed: (labels) => (status) => void timings.push({ labels: { ...labels }, status }),
  });
  return { handler, timings, executed };
}

describe('the in-process edge', () => {
  it('answers a refusal as the HTTP edge does: status, headers with the request id, one error', async () => {
    const refusal = new GatewayError('INVALID_API_KEY');
    const { handler, timings, executed } = localEdgeWith({ refusal, headers: {} });
    const answer = await handler(request);
    expect(answer.status).toBe(401);
    expect(answer.headers).toEqual({ 'x-request-id': 'req_local1' });
    expect(JSON.parse(answer.body).errors[0].extensions).toEqual({
      code: 'INVALID_API_KEY',
      status: 401,
      detail: refusal.detail,
      requestId: 'req_local1',
    });
    expect(timings).toEqual([{ labels: { operation: 'Banks', outcome: 'INVALID_API_KEY' }, status: 401 }]);
    expect(executed).toEqual([]);
  });

  it("answers with the forwarded subgraph's answer when one subgraph answers whole, the admission's headers on top", async () => {
    const forwarded: Forwarded = {
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: '{"data":{"banks":[]}}',
      outcome: 'ok',
      subgraph: 'banks',
    };
    const { handler, timings, executed } = localEdgeWith(
      { principal: merchant, headers: { 'x-ratelimit-remaining': '9' } },
      forwarded,
    );
    expect(await handler(request)).toEqual({
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-ratelimit-remaining': '9',
        'x-request-id': 'req_local1',
      },
      body: '{"data":{"banks":[]}}',
    });
    expect(timings).toEqual([{ labels: { operation: 'Banks', outcome: 'ok' }, status: 200 }]);
    expect(executed).toEqual([]);
  });

  it("runs the rest through Apollo as a JSON POST with the caller's headers, the admitted principal in its context", async () => {
    const { handler, timings, executed } = localEdgeWith({ principal: merchant, headers: {} });
    const answer = await handler({ ...request, headers: { authorization: 'Bearer mk', 'x-request-id': 'not an id' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('{"data":{}}');
    const requestId = answer.headers['x-request-id']!;
    expect(requestId).toMatch(/^req_/);
    expect(executed).toEqual([
      { headers: ['content-type', 'authorization', 'x-request-id'], context: expect.objectContaining({ requestId }) },
    ]);
    // One request id from admission to the answer: the admitted principal was made under it.
    expect(executed[0]!.context.principal).toEqual({ ...merchant, id: `${merchant.id}:${requestId}`, ip: '10.0.0.7' });
    expect(timings).toEqual([{ labels: { operation: 'Banks' }, status: 200 }]);
  });
});
