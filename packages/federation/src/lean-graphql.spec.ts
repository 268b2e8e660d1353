import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import {
  callGraphQL,
  createLogger,
  framedHttp,
  GatewayError,
  newId,
  PRINCIPAL_HEADER,
  signPrincipal,
  type LocalResponse,
} from '@gateway/kernel';
import type { SubgraphContext } from './context';
import { formatGatewayError } from './errors';
import { leanGraphQL } from './lean-graphql';
import { startSubgraphServer, subgraphNameAt, type RunningService } from './server';
import { TEST_PLATFORM_SECRET } from './testing';

// A real subgraph schema: an entity (_entities), _service, a mutation, and fields that fail each way.
const schema = buildSubgraphSchema({
  typeDefs: parse(`
    extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
    type Account @key(fields: "id") { id: ID! name: String! balance: Int! }
    type Query {
      account(id: ID!): Account
      refused: String
      broken: String
      missing: String!
      echo(amount: Int!): Int!
    }
    type Mutation { rename(id: ID!, name: String!): Account! }
  `),
  resolvers: {
    Query: {
      account: (_: unknown, { id }: { id: string }) => ({ id, name: 'Ada', balance: 1250 }),
      refused: () => {
        throw new GatewayError('ALIAS_NOT_FOUND', 'no alias ada@bank');
      },
      broken: () => {
        throw new Error('connection to 10.0.0.7 refused (password=hunter2)');
      },
      missing: () => null,
      echo: (_: unknown, { amount }: { amount: number }) => amount,
    },
    Mutation: { rename: (_: unknown, { id, name }: { id: string; name: string }) => ({ id, name, balance: 0 }) },
    Account: { __resolveReference: ({ id }: { id: string }) => ({ id, name: `ref ${id}`, balance: 7 }) },
  } as never,
});

const ACCOUNT = 'query One($id: ID!) { account(id: $id) { id name balance } }';
const ECHO = 'query Echo($n: Int!) { echo(amount: $n) }';
const TWO = 'query A { echo(amount: 1) } query B { echo(amount: 2) }';

interface Case {
  name: string;
  body: Record<string, unknown>;
  accept?: string;
  /** Whether the lean path answers it (else Apollo does, for both servers). */
  lean: boolean;
}

const CASES: Case[] = [
  { name: 'success', body: { query: ACCOUNT, variables: { id: 'acc_1' } }, lean: true },
  { name: 'success, Accept */*', body: { query: ACCOUNT, variables: { id: 'acc_1' } }, accept: '*/*', lean: true },
  {
    name: 'success, Accept application/json',
    body: { query: ACCOUNT, variables: { id: 'acc_1' } },
    accept: 'application/json',
    lean: true,
  },
  {
    name: 'success, Accept graphql-response+json (Apollo negotiates)',
    body: { query: ACCOUNT, variables: { id: 'acc_1' } },
    accept: 'application/graphql-response+json',
    lean: false,
  },
  {
    name: 'null variables and operationName',
    body: { query: '{ echo(amount: 3) }', variables: null, operationName: null },
    lean: true,
  },
  { name: 'a resolver throwing a GatewayError', body: { query: '{ refused }' }, lean: true },
  { name: 'a resolver throwing a plain Error (masked)', body: { query: '{ echo(amount: 1) broken }' }, lean: true },
  { name: 'a variable of the wrong type', body: { query: ECHO, variables: { n: 1.5 } }, lean: true },
  { name: 'a variable of the wrong type, a string', body: { query: ECHO, variables: { n: 'one' } }, lean: true },
  { name: 'a missing required variable', body: { query: ECHO, variables: {} }, lean: true },
  { name: 'a non-null field returning null', body: { query: '{ missing }' }, lean: true },
  { name: 'operationName picks one of two', body: { query: TWO, operationName: 'B' }, lean: true },
  { name: 'an unknown operationName', body: { query: TWO, operationName: 'C' }, lean: false },
  { name: 'two operations without operationName', body: { query: TWO }, lean: false },
  {
    name: '_entities',
    body: {
      query: 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Account { id name balance } } }',
      variables: { r: [{ __typename: 'Account', id: 'acc_2' }] },
    },
    lean: true,
  },
  { name: '_service', body: { query: '{ _service { sdl } }' }, lean: true },
  {
    name: 'a mutation',
    body: { query: 'mutation { rename(id: "acc_1", name: "Bo") { id name balance } }' },
    lean: true,
  },
  { name: 'a syntax error', body: { query: '{ account(' }, lean: false },
  { name: 'a validation error', body: { query: '{ nope }' }, lean: false },
  {
    name: 'introspection (refused in production)',
    body: { query: '{ __schema { queryType { name } } }' },
    lean: false,
  },
  {
    name: 'persisted-query extensions',
    body: { query: '{ echo(amount: 4) }', extensions: { persistedQuery: { version: 2 } } },
    lean: false,
  },
  { name: 'variables as a string', body: { query: ECHO, variables: '{"n":1}' }, lean: false },
];

const logger = createLogger('lean-spec', 'silent');
/** As the router sends it: signed for the subgraph (`lean` or `stock`) and the request. */
const headers = (service: RunningService, accept?: string) => {
  const requestId = newId('request');
  const audience = subgraphNameAt(service.graphqlUrl)!;
  return {
    'content-type': 'application/json',
    'x-request-id': requestId,
    [PRINCIPAL_HEADER]: signPrincipal({ kind: 'anonymous', ip: '127.0.0.1' }, TEST_PLATFORM_SECRET, {
      audience,
      requestId,
    }),
    ...(accept ? { accept } : {}),
  };
};

describe('the lean path answers known documents as stock Apollo does', () => {
  let db: Database;
  let orm: ServiceOrm;
  let lean: RunningService;
  let stock: RunningService;

  beforeAll(async () => {
    db = await openTestDatabase();
    orm = await openServiceOrm(db, { schema: 'lean_spec', entities: [], migrations: [] });
    const start = (withLean: boolean) =>
      startSubgraphServer({
        name: withLean ? 'lean' : 'stock',
        schema,
        orm,
        db,
        logger,
        platformSecret: TEST_PLATFORM_SECRET,
        production: true,
        inProcess: true,
        lean: withLean,
      });
    [lean, stock] = [await start(true), await start(false)];
    // The framed channel opens on a first call (sent over HTTP, here refused): wait until a call goes framed.
    for (const service of [lean, stock])
      for (let tries = 0; ; tries += 1) {
        const warm = await overFrames(service, {
          name: 'warm',
          body: { query: '{ echo(amount: 0) }' },
          lean: true,
        }).catch(() => undefined);
        if (warm) break;
        if (tries > 200) throw new Error('the framed channel did not open');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
  });

  afterAll(async () => {
    await lean?.stop();
    await stock?.stop();
    await orm?.close();
    await db?.close();
  });

  async function overHttp(service: RunningService, testCase: Case) {
    const response = await fetch(service.graphqlUrl, {
      method: 'POST',
      headers: headers(service, testCase.accept),
      body: JSON.stringify(testCase.body),
    });
    const kept = Object.fromEntries([...response.headers].filter(([name]) => !['date', 'keep-alive'].includes(name)));
    return { status: response.status, headers: kept, body: await response.text() };
  }

  const inProcess = (service: RunningService, testCase: Case): Promise<LocalResponse> =>
    callGraphQL(
      service.graphqlUrl,
      { headers: headers(service, testCase.accept), body: testCase.body as never, ip: '127.0.0.1' },
      { timeoutMs: 5000, failure: (_late, cause) => cause as Error },
    );

  const framed = framedHttp(() => Promise.reject(new Error('sent over HTTP, not framed')), { connections: 1 });
  const overFrames = (service: RunningService, testCase: Case): Promise<LocalResponse> =>
    framed(
      service.graphqlUrl,
      { headers: headers(service, testCase.accept), body: testCase.body as never, ip: '127.0.0.1' },
      5000,
    );

  // Twice: the first time a document is learnt, the second it is known.
  describe.each([['first sight'], ['known']])('%s', () => {
    it.each(CASES.map((testCase) => [testCase.name, testCase] as const))(
      '%s: same answer over HTTP',
      async (_, testCase) => {
        const [ours, apollos] = [await overHttp(lean, testCase), await overHttp(stock, testCase)];
        expect(ours).toEqual(apollos);
        expect(ours.headers['content-length']).toBe(String(Buffer.byteLength(ours.body)));
      },
    );

    it.each(CASES.map((testCase) => [testCase.name, testCase] as const))(
      '%s: same answer in process',
      async (_, testCase) => {
        const [ours, apollos] = [await inProcess(lean, testCase), await inProcess(stock, testCase)];
        // What a caller reads: the text, or the value an in-process caller takes instead (kernel's jsonAnswer).
        const { status, headers, body } = ours;
        expect({ status, headers, body }).toEqual(apollos);
        if (ours.json) expect(ours.json).toEqual(JSON.parse(body));
      },
    );

    it.each(CASES.map((testCase) => [testCase.name, testCase] as const))(
      '%s: same answer as frames (kernel framed channel)',
      async (_, testCase) => {
        const [ours, apollos] = [await overFrames(lean, testCase), await overFrames(stock, testCase)];
        expect(ours).toEqual(apollos);
      },
    );
  });

  // After the comparisons above, which sent both servers the same requests.
  it('labels the duration histogram as Apollo does: the same counts by operation on both servers', async () => {
    const counts = async (service: RunningService) =>
      Object.fromEntries(
        [
          ...(await service.metrics.metrics()).matchAll(
            /subgraph_request_duration_seconds_count\{[^}]*operation="(\w+)"\} (\d+)/g,
          ),
        ].map(([, operation, count]) => [operation, Number(count)]),
      );
    const ours = await counts(lean);
    expect(ours).toEqual(await counts(stock));
    // Per transport and pass: four requests name One, three Echo (the string variables are refused unnamed), one B;
    // over HTTP, in process and framed.
    expect(ours).toMatchObject({ One: 24, Echo: 18, B: 6 });
  });

  it('takes exactly the cases it claims, so the comparisons above ran through it', async () => {
    const handler = leanGraphQL<SubgraphContext>({ schema, formatError: formatGatewayError(logger) })!;
    const context = () =>
      ({ principal: { kind: 'anonymous' }, requestId: 'req_lean', logger }) as unknown as SubgraphContext;
    for (const testCase of CASES) {
      const answer = await handler(
        { body: testCase.body, contentType: 'application/json', accept: testCase.accept },
        context,
      );
      expect([testCase.name, answer !== undefined]).toEqual([testCase.name, testCase.lean]);
    }
  });

  it('gives the answers the subgraph promises: spec codes kept, bad variables 200 VALIDATION_ERROR, the rest masked', async () => {
    const answer = async (query: string, variables?: Record<string, unknown>) => {
      const response = await overHttp(lean, { name: query, body: { query, variables }, lean: true });
      return { status: response.status, body: JSON.parse(response.body) };
    };
    expect(await answer('{ refused }')).toEqual({
      status: 200,
      body: {
        errors: [
          {
            message: 'Alias does not exist',
            path: ['refused'],
            extensions: { code: 'ALIAS_NOT_FOUND', status: 404, detail: 'no alias ada@bank' },
          },
        ],
        data: { refused: null },
      },
    });
    const bad = await answer(ECHO, { n: 1.5 });
    expect(bad.status).toBe(200);
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect(bad.body.data).toBeUndefined();
    const broken = await answer('{ broken }');
    expect(broken.body.errors[0]).toEqual({
      message: 'Gateway internal error',
      path: ['broken'],
      extensions: { code: 'INTERNAL_ERROR', status: 500, detail: 'internal error' },
    });
    expect(JSON.stringify(broken.body)).not.toContain('hunter2');
  });
});
