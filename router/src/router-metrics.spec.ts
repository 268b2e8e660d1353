import Fastify from 'fastify';
import type { GraphQLRequestContextWillSendResponse, GraphQLRequestListener } from '@apollo/server';
import { metricsText } from '@gateway/kernel';
import { createRouterMetrics, outcomeOfStatus, useMetricsRoute } from './router-metrics';
import type { RequestLabels, RouterContext } from './router-context';

/** What the outcome plugin makes of one GraphQL answer (its first error's code), as Apollo would call it. */
async function outcomeOf(
  errors: Array<{ message: string; extensions?: Record<string, unknown> }> | undefined,
): Promise<string | undefined> {
  let outcome: string | undefined;
  const contextValue: RouterContext = {
    principal: { kind: 'anonymous' },
    requestId: 'req_m',
    who: 'anonymous',
    signedFor: () => 'signed',
    reportOutcome: (reported) => void (outcome = reported),
  };
  const listener = (await createRouterMetrics().outcomePlugin.requestDidStart!(
    {} as never,
  )) as GraphQLRequestListener<RouterContext>;
  const response = { body: { kind: 'single', singleResult: { data: null, errors } } };
  await listener.willSendResponse!({
    response,
    contextValue,
  } as unknown as GraphQLRequestContextWillSendResponse<RouterContext>);
  return outcome;
}

/** A sample's value in Prometheus' text, whatever order its labels are printed in. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        candidate.startsWith(`${name}{`) &&
        Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('the metrics stage', () => {
  it("times a request by operation and outcome: the answer's own, else its HTTP status", async () => {
    const metrics = createRouterMetrics();
    const refused: RequestLabels = { operation: 'Banks', outcome: 'RATE_LIMITED' };
    metrics.timed(refused)(429);
    metrics.timed({ operation: 'unknown' })(415);
    metrics.timed({ operation: 'Banks' })(200);
    const text = await metricsText(metrics.registry);
    expect(sample(text, 'router_request_duration_seconds_count', { operation: 'Banks', outcome: 'RATE_LIMITED' })).toBe(
      1,
    );
    expect(sample(text, 'router_request_duration_seconds_count', { operation: 'unknown', outcome: 'http_415' })).toBe(
      1,
    );
    expect(sample(text, 'router_request_duration_seconds_count', { operation: 'Banks', outcome: 'ok' })).toBe(1);
    expect(outcomeOfStatus(302)).toBe('ok');
  });

  it('counts admissions, forwarded operations and shared subgraph fetches, served on GET /metrics', async () => {
    const metrics = createRouterMetrics();
    metrics.countAdmission('accepted');
    metrics.countAdmission('accepted');
    metrics.countAdmission('unauthenticated');
    metrics.countForwarded('banks');
    metrics.countSharedFetch('identity');
    metrics.countSharedFetch('identity');
    const app = Fastify();
    useMetricsRoute(app, () => [metrics.registry], undefined);
    const answer = await app.inject({ method: 'GET', url: '/metrics' });
    await app.close();
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(sample(answer.body, 'router_requests_total', { outcome: 'accepted', service: 'router' })).toBe(2);
    expect(sample(answer.body, 'router_requests_total', { outcome: 'unauthenticated', service: 'router' })).toBe(1);
    expect(sample(answer.body, 'router_forwarded_total', { subgraph: 'banks', service: 'router' })).toBe(1);
    expect(
      sample(answer.body, 'router_subgraph_fetches_shared_total', { subgraph: 'identity', service: 'router' }),
    ).toBe(2);
  });

  it("reports a GraphQL answer's outcome: ok, its first error's spec code, or INTERNAL_ERROR for a code outside the spec", async () => {
    expect(await outcomeOf(undefined)).toBe('ok');
    expect(
      await outcomeOf([
        { message: 'no', extensions: { code: 'ALIAS_NOT_FOUND' } },
        { message: 'x', extensions: { code: 'RATE_LIMITED' } },
      ]),
    ).toBe('ALIAS_NOT_FOUND');
    expect(await outcomeOf([{ message: 'odd', extensions: { code: 'SOMETHING_NEW' } }])).toBe('INTERNAL_ERROR');
  });
});
