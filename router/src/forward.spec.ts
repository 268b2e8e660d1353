import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { formatGatewayError } from '@gateway/federation';
import {
  createLogger,
  PRINCIPAL_HEADER,
  REQUEST_ID_HEADER,
  serveInProcess,
  type LocalRequest,
  type LocalResponse,
} from '@gateway/kernel';
import { composeSupergraph, type SubgraphEndpoint } from './compose';
import { createForwarder, type Forwarder } from './forward';
import { MAX_TOKENS } from './operation';
import { queryLimitRules } from './query-limits';

const sdlOf = (name: string) => readFileSync(join(__dirname, '..', '..', 'subgraphs', name, 'schema.graphql'), 'utf8');
const subgraphs: SubgraphEndpoint[] = ['identity', 'payments', 'banks'].map((name, i) => ({
  name,
  url: `http://127.0.0.1:${7901 + i}/graphql`,
  sdl: sdlOf(name),
}));

const RESOLVE = 'query Resolve($alias: String) { resolveAlias(alias: $alias) { alias iban bankHandle } }';
const caller = { signedPrincipal: 'signed.principal', requestId: 'req_forward1' };

describe('forwarding an operation one subgraph answers whole', () => {
  const received: Array<{ subgraph: string; request: LocalRequest }> = [];
  const answers = new Map<string, (request: LocalRequest) => Promise<LocalResponse>>();
  const stops: Array<() => void> = [];
  const agent = new Agent();
  let forward: Forwarder;

  const ok = (body: unknown): LocalResponse => ({ status: 200, headers: {}, body: JSON.stringify(body) });

  beforeAll(() => {
    for (const subgraph of subgraphs) {
      stops.push(
        serveInProcess(
          subgraph.url,
          async (request) => {
            received.push({ subgraph: subgraph.name, request });
            const answer = answers.get(subgraph.name);
            return answer ? answer(request) : ok({ data: null });
          },
          { enabled: true },
        ),
      );
    }
    forward = createForwarder({
      supergraphSdl: composeSupergraph(subgraphs),
      subgraphs,
      validationRules: queryLimitRules(4, 20),
      maxTokens: MAX_TOKENS,
      timeoutMs: 300,
      agent,
      formatError: formatGatewayError(createLogger('forward-spec')),
    });
  });
  afterAll(async () => {
    stops.forEach((stop) => stop());
    await agent.close();
  });
  beforeEach(() => {
    received.length = 0;
    answers.clear();
  });

  it("sends the plan's operation, the variables it uses, the signed principal and the request id, and answers the subgraph's body as it is", async () => {
    const body = JSON.stringify({ data: { resolveAlias: { alias: 'ali', iban: 'LY00', bankHandle: 'alpha' } } });
    answers.set('identity', async () => ({ status: 200, headers: {}, body }));

    const forwarded = await forward(
      { query: RESOLVE, operationName: 'Resolve', variables: { alias: 'ali', extra: 'not in the operation' } },
      {},
      caller,
    );

    expect(forwarded).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body,
      outcome: 'ok',
      subgraph: 'identity',
    });
    expect(received).toHaveLength(1);
    const { subgraph, request } = received[0]!;
    expect(subgraph).toBe('identity');
    expect(request.headers).toEqual({ [PRINCIPAL_HEADER]: 'signed.principal', [REQUEST_ID_HEADER]: 'req_forward1' });
    expect(request.body.variables).toEqual({ alias: 'ali' });
    expect(request.body.query).toMatch(/resolveAlias\(alias: ?\$alias\)/);
  });

  it("passes the subgraph's errors through the router's error mapping and reports the first one's code", async () => {
    answers.set('identity', async () =>
      ok({
        data: null,
        errors: [
          {
            message: 'no such alias',
            path: ['resolveAlias'],
            extensions: { code: 'ALIAS_NOT_FOUND', detail: 'alias ali is not registered', stack: 'x' },
          },
        ],
      }),
    );
    const forwarded = await forward({ query: RESOLVE, variables: { alias: 'ali' } }, {}, caller);
    expect(forwarded?.outcome).toBe('ALIAS_NOT_FOUND');
    expect(JSON.parse(forwarded!.body)).toEqual({
      data: null,
      errors: [
        {
          message: 'no such alias',
          path: ['resolveAlias'],
          extensions: { code: 'ALIAS_NOT_FOUND', status: 404, detail: 'alias ali is not registered' },
        },
      ],
    });
  });

  it('leaves to the gateway an operation that needs two subgraphs, is invalid, is too deep, or has bad variables', async () => {
    // The bank's handle is payments' own (its Bank stub); its display name is the banks subgraph's.
    const oneSubgraph = 'query($id: ID!) { paymentSession(id: $id) { id creditorBank { handle } } }';
    expect(await forward({ query: oneSubgraph, variables: { id: 'ops_1' } }, {}, caller)).toBeDefined();
    expect(received.map((call) => call.subgraph)).toEqual(['payments']);
    received.length = 0;
    const twoSubgraphs = 'query($id: ID!) { paymentSession(id: $id) { id creditorBank { handle displayName } } }';
    expect(await forward({ query: twoSubgraphs, variables: { id: 'ops_1' } }, {}, caller)).toBeUndefined();
    expect(await forward({ query: '{ resolveAlias(alias: "a") { nope } }' }, {}, caller)).toBeUndefined();
    expect(
      await forward({ query: '{ resolveAlias(alias: "a") { alias } ', variables: {} }, {}, caller),
    ).toBeUndefined();
    expect(await forward({ query: RESOLVE, variables: { alias: 12 } }, {}, caller)).toBeUndefined();
    expect(await forward({ query: RESOLVE, variables: 'alias=ali' }, {}, caller)).toBeUndefined();
    expect(await forward({ query: RESOLVE, operationName: 'Other' }, {}, caller)).toBeUndefined();
    // 21 fields: over the router's field cap given here (20): Apollo refuses it with the rule's message.
    const wide = (fields: number) =>
      `{ resolveAlias(alias: "a") { ${Array.from({ length: fields }, (_, i) => `a${i}: alias`).join(' ')} } }`;
    expect(await forward({ query: wide(20) }, {}, caller)).toBeUndefined();
    expect(received).toHaveLength(0);
    expect(await forward({ query: wide(19) }, {}, caller)).toBeDefined();
  });

  it('leaves to Apollo a caller that asks for another answer format', async () => {
    expect(
      await forward(
        { query: RESOLVE, variables: { alias: 'ali' } },
        { accept: 'application/graphql-response+json' },
        caller,
      ),
    ).toBeUndefined();
    expect(received).toHaveLength(0);
    expect(
      await forward({ query: RESOLVE, variables: { alias: 'ali' } }, { accept: 'application/json' }, caller),
    ).toBeDefined();
  });

  it('answers a subgraph answer other than 200 as an internal error, as the gateway does, and never sends it twice', async () => {
    answers.set('identity', async () => ({ status: 502, headers: {}, body: 'bad gateway' }));
    const forwarded = await forward({ query: RESOLVE, variables: { alias: 'ali' } }, {}, caller);
    expect(forwarded?.outcome).toBe('INTERNAL_ERROR');
    expect(JSON.parse(forwarded!.body)).toEqual({
      data: null,
      errors: [
        {
          message: 'Gateway internal error',
          extensions: { code: 'INTERNAL_ERROR', status: 500, detail: 'internal error' },
        },
      ],
    });
    expect(received).toHaveLength(1);
  });

  it('answers 200 SERVICE_UNAVAILABLE when the subgraph does not answer in time, as the gateway does', async () => {
    answers.set('identity', () => new Promise(() => undefined));
    const forwarded = await forward({ query: RESOLVE, variables: { alias: 'ali' } }, {}, caller);
    expect(forwarded?.outcome).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.parse(forwarded!.body).errors[0].extensions).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
    });
  });
});
