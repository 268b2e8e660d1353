import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { formatGatewayError } from '@gateway/federation';
import { createLogger, serveInProcess } from '@gateway/kernel';
import { composeSupergraph, type SubgraphEndpoint } from './compose';
import { countedForwards, createForwarding } from './forwarding';
import { queryLimitRules } from './query-limits';
import type { RequestLabels, RouterContext } from './router-context';

const sdlOf = (name: string) => readFileSync(join(__dirname, '..', '..', 'subgraphs', name, 'schema.graphql'), 'utf8');
const subgraphs: SubgraphEndpoint[] = ['identity', 'banks'].map((name, i) => ({
  name,
  url: `http://127.0.0.1:${7931 + i}/graphql`,
  sdl: sdlOf(name),
}));
const context = {
  principal: { kind: 'anonymous' },
  requestId: 'req_forwarding1',
  who: 'anonymous',
  signedFor: (subgraph: string) => `signed.for.${subgraph}`,
} as RouterContext;
const RESOLVE = '{ resolveAlias(alias: "ali") { alias } }';

describe('the forwarding stage', () => {
  const agent = new Agent();
  const counted: string[] = [];
  let stop: () => void;

  beforeAll(() => {
    const body = JSON.stringify({
      data: { resolveAlias: { alias: 'ali' } },
      errors: [{ message: 'gone', extensions: { code: 'ALIAS_INACTIVE' } }],
    });
    stop = serveInProcess(subgraphs[0]!.url, async () => ({ status: 200, headers: {}, body }), { enabled: true });
  });
  afterAll(async () => {
    stop();
    await agent.close();
  });

  it("sends an operation one subgraph answers whole to it, counted by subgraph, its outcome on the request's labels", async () => {
    const forwardWhole = createForwarding({
      supergraphSdl: composeSupergraph(subgraphs),
      subgraphs,
      production: true,
      validationRules: queryLimitRules(4, 20),
      timeoutMs: 500,
      agent,
      formatError: formatGatewayError(createLogger('forwarding-spec', 'silent')),
      metrics: { countForwarded: (subgraph) => void counted.push(subgraph) },
    });
    const labels: RequestLabels = { operation: 'unknown' };
    const forwarded = await forwardWhole({ query: RESOLVE }, {}, context, labels);
    expect(forwarded).toMatchObject({ status: 200, subgraph: 'identity', outcome: 'ALIAS_INACTIVE' });
    expect(labels.outcome).toBe('ALIAS_INACTIVE');
    expect(counted).toEqual(['identity']);

    // Past the document limits it is given: Apollo's, uncounted, the labels untouched.
    const wide = `{ resolveAlias(alias: "a") { ${Array.from({ length: 21 }, (_, i) => `a${i}: alias`).join(' ')} } }`;
    const apollos: RequestLabels = { operation: 'unknown' };
    expect(await forwardWhole({ query: wide }, {}, context, apollos)).toBeUndefined();
    expect(apollos.outcome).toBeUndefined();
    expect(counted).toEqual(['identity']);
  });

  it('counts nothing when the forwarder leaves the operation to Apollo', async () => {
    const seen: string[] = [];
    const labels: RequestLabels = { operation: 'Banks' };
    const forwardWhole = countedForwards(async () => undefined, {
      countForwarded: (subgraph) => void seen.push(subgraph),
    });
    expect(await forwardWhole({ query: '{ banks { handle } }' }, {}, context, labels)).toBeUndefined();
    expect(seen).toEqual([]);
    expect(labels).toEqual({ operation: 'Banks' });
  });
});
