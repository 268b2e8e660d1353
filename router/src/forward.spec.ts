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
/** Signs as the router does, for one subgraph (its name in the header here) and the request. */
const caller = {
  requestId: 'req_forward1',
  who: '{"kind":"anonymous"}',
  signedFor: (subgraph: string) => `signed.for.${subgraph}`,
};

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
    expect(request.headers).toEqual({ [PRINCIPAL_HEADER]: 'signed.for.identity', [REQUEST_ID_HEADER]: 'req_forward1' });
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

  it('leaves to the gateway an operation that is invalid, too deep, introspects or has bad variables', async () => {
    // The bank's handle is payments' own (its Bank stub); its display name is the banks subgraph's.
    const oneSubgraph = 'query($id: ID!) { paymentSession(id: $id) { id creditorBank { handle } } }';
    expect(await forward({ query: oneSubgraph, variables: { id: 'ops_1' } }, {}, caller)).toBeDefined();
    expect(received.map((call) => call.subgraph)).toEqual(['payments']);
    received.length = 0;
    expect(await forward({ query: '{ __schema { queryType { name } } }' }, {}, caller)).toBeUndefined();
    expect(await forward({ query: '{ __typename }' }, {}, caller)).toBeUndefined();
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

  describe("an operation across subgraphs, on the router's own executor", () => {
    const CROSS = 'query Session($id: ID!) { paymentSession(id: $id) { id creditorBank { displayName } } }';
    const session = {
      data: { paymentSession: { id: 'ops_1', creditorBank: { __typename: 'Bank', handle: 'alpha' } } },
    };

    it("runs the gateway's plan: the entity fetch gets each bank's representation, the answer only what the client selected", async () => {
      answers.set('payments', async () => ok(session));
      answers.set('banks', async () => ok({ data: { _entities: [{ displayName: 'Alpha Bank' }] } }));

      const forwarded = await forward({ query: CROSS, variables: { id: 'ops_1' } }, {}, caller);

      expect(forwarded).toMatchObject({ outcome: 'ok', subgraph: 'payments+banks' });
      expect(JSON.parse(forwarded!.body)).toEqual({
        data: { paymentSession: { id: 'ops_1', creditorBank: { displayName: 'Alpha Bank' } } },
      });
      expect(received.map((call) => call.subgraph)).toEqual(['payments', 'banks']);
      const entities = received[1]!.request;
      expect(entities.body.variables).toEqual({ representations: [{ __typename: 'Bank', handle: 'alpha' }] });
      expect(entities.body.query).toMatch(/_entities\(representations: ?\$representations\)/);
      // Each subgraph gets the principal signed for it: one signed for payments is never good at banks.
      expect(received[0]!.request.headers[PRINCIPAL_HEADER]).toBe('signed.for.payments');
      expect(entities.headers).toEqual({ [PRINCIPAL_HEADER]: 'signed.for.banks', [REQUEST_ID_HEADER]: 'req_forward1' });
    });

    it('asks nothing under a parent that failed, its error kept as the subgraph gave it', async () => {
      answers.set('payments', async () =>
        ok({
          data: null,
          errors: [
            { message: 'Unknown session_id', path: ['paymentSession'], extensions: { code: 'SESSION_NOT_FOUND' } },
          ],
        }),
      );
      const forwarded = await forward({ query: CROSS, variables: { id: 'ops_9' } }, {}, caller);
      expect(forwarded?.outcome).toBe('SESSION_NOT_FOUND');
      expect(JSON.parse(forwarded!.body)).toEqual({
        data: null,
        errors: [
          {
            message: 'Unknown session_id',
            path: ['paymentSession'],
            extensions: { code: 'SESSION_NOT_FOUND', status: 404, detail: 'Unknown session_id' },
          },
        ],
      });
      expect(received.map((call) => call.subgraph)).toEqual(['payments']);
    });

    it("moves an entity's error under its place in the answer, mapped by the router's formatError", async () => {
      answers.set('payments', async () => ok(session));
      answers.set('banks', async () =>
        ok({
          data: { _entities: [null] },
          errors: [
            {
              message: 'bank unknown',
              path: ['_entities', 0, 'displayName'],
              extensions: { code: 'BANK_NOT_REGISTERED', detail: 'no bank alpha' },
            },
          ],
        }),
      );
      const forwarded = await forward({ query: CROSS, variables: { id: 'ops_1' } }, {}, caller);
      expect(forwarded?.outcome).toBe('BANK_NOT_REGISTERED');
      expect(JSON.parse(forwarded!.body)).toEqual({
        // displayName, creditorBank and paymentSession are non-null: the null bubbles up to data.
        data: null,
        errors: [
          {
            message: 'bank unknown',
            path: ['paymentSession', 'creditorBank', 'displayName'],
            extensions: { code: 'BANK_NOT_REGISTERED', status: 404, detail: 'no bank alpha' },
          },
        ],
      });
    });

    it('answers a subgraph that fails as the gateway does, the other fetches kept, nothing sent twice', async () => {
      answers.set('payments', async () => ok(session));
      answers.set('banks', () => new Promise(() => undefined));
      const forwarded = await forward({ query: CROSS, variables: { id: 'ops_1' } }, {}, caller);
      expect(forwarded?.outcome).toBe('SERVICE_UNAVAILABLE');
      const body = JSON.parse(forwarded!.body);
      expect(body.data).toBeNull();
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect(received.map((call) => call.subgraph)).toEqual(['payments', 'banks']);
    });

    it('shapes aliases, fragments, __typename and @skip as the gateway does', async () => {
      answers.set('payments', async () =>
        ok({ data: { s: { id: 'ops_1', creditorBank: { __typename: 'Bank', handle: 'alpha' } } } }),
      );
      answers.set('banks', async () => ok({ data: { _entities: [{ name: 'Alpha Bank' }] } }));
      const query =
        'query($id: ID!, $skip: Boolean!) { s: paymentSession(id: $id) { id @skip(if: $skip) ...Bank } } ' +
        'fragment Bank on PaymentSession { creditorBank { __typename name: displayName } }';
      const forwarded = await forward({ query, variables: { id: 'ops_1', skip: true } }, {}, caller);
      expect(forwarded?.body).toBe(
        JSON.stringify({ data: { s: { creditorBank: { __typename: 'Bank', name: 'Alpha Bank' } } } }),
      );
    });
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
