import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { buildSubgraphSchema } from '@apollo/subgraph';
import {
  execute,
  getNamedType,
  getNullableType,
  GraphQLError,
  isEnumType,
  isLeafType,
  isListType,
  parse,
  type GraphQLFieldResolver,
  type GraphQLTypeResolver,
} from 'graphql';
import { Agent } from 'undici';
import { formatGatewayError } from '@gateway/federation';
import { createLogger, serveInProcess, type LocalRequest, type LocalResponse } from '@gateway/kernel';
import { composeSupergraph, type SubgraphEndpoint } from './compose';
import { createForwarder, type Forwarder } from './forward';
import { MAX_TOKENS } from './operation';
import { withoutApolloTelemetry } from './apollo-telemetry';
import { queryLimitRules } from './query-limits';
import { SubgraphDataSource } from './subgraph-source';

/**
 * The router's plan executor against `@apollo/gateway`'s, on the platform's own supergraph: the
 * same operations, the same subgraph answers (every subgraph mocked from its real schema, each
 * value named after its type and field), the same error mapping: the two answers must be equal.
 */
const NAMES = ['identity', 'payments', 'banks', 'open-banking'];
const subgraphs: SubgraphEndpoint[] = NAMES.map((name, i) => ({
  name,
  url: `http://127.0.0.1:${7951 + i}/graphql`,
  sdl: readFileSync(join(__dirname, '..', '..', 'subgraphs', name, 'schema.graphql'), 'utf8'),
}));

/** Fields that fail in the mocks, by "Type.field": where the subgraphs' errors come from. */
const failing = new Set<string>();

const mockValue: GraphQLFieldResolver<Record<string, unknown> | null, unknown> = (source, _args, _context, info) => {
  if (source && Object.hasOwn(source, info.fieldName)) return source[info.fieldName];
  const at = `${info.parentType.name}.${info.fieldName}`;
  if (failing.has(at)) throw new GraphQLError(`${at} failed`, { extensions: { code: 'BANK_NOT_REGISTERED' } });
  const type = getNamedType(info.returnType);
  const one = (n: number): unknown => {
    if (!isLeafType(type)) return {};
    if (isEnumType(type)) return type.getValues()[0]!.value;
    if (type.name === 'Int') return 7 + n;
    if (type.name === 'Float') return 1.5;
    if (type.name === 'Boolean') return true;
    return `${at}#${n}`;
  };
  return isListType(getNullableType(info.returnType)) ? [one(0), one(1)] : one(0);
};
const firstPossible: GraphQLTypeResolver<unknown, unknown> = (value, _context, info, type) =>
  (value as { __typename?: string }).__typename ?? info.schema.getPossibleTypes(type)[0]!.name;

function mockSubgraph(sdl: string): (request: LocalRequest) => Promise<LocalResponse> {
  const schema = buildSubgraphSchema({ typeDefs: parse(sdl) });
  return async ({ body }) => {
    const result = await execute({
      schema,
      document: parse(body.query),
      variableValues: body.variables as Record<string, unknown>,
      operationName: body.operationName ?? undefined,
      fieldResolver: mockValue,
      typeResolver: firstPossible,
    });
    return { status: 200, headers: {}, body: JSON.stringify(result) };
  };
}

const OPERATIONS: Array<[string, string, Record<string, unknown>]> = [
  [
    'an alias with its bank',
    'query($a: String) { resolveAlias(alias: $a) { alias iban bank { handle displayName institutionCode status } } }',
    { a: 'shop' },
  ],
  [
    "a session's two banks, one of them nullable, aliased and in a fragment",
    `query S($id: ID!) { paymentSession(id: $id) { id status c: creditorBank { displayName } ...Debtor } }
     fragment Debtor on PaymentSession { debtorBank { __typename handle name: displayName } }`,
    { id: 'ops_1' },
  ],
  [
    "a list's entities (mandates and their customers' banks), with @include and @skip on variables",
    `query($withBank: Boolean!, $noStatus: Boolean!) { mandates(first: 2) { edges { node { id status @skip(if: $noStatus)
       customerBank @include(if: $withBank) { displayName status } } } pageInfo { hasNextPage } } }`,
    { withBank: true, noStatus: true },
  ],
  [
    'root fields of three subgraphs at once, with __typename',
    `{ __typename bank(handle: "alpha") { displayName } consent(id: "con_1") { id bank { displayName } }
       resolveAlias(alias: "shop") { bank { status } } }`,
    {},
  ],
];

describe("the router's plan executor answers as @apollo/gateway's does", () => {
  const agent = new Agent();
  const stops: Array<() => void> = [];
  const caller = {
    requestId: 'req_plan1',
    who: 'anonymous',
    signedFor: (subgraph: string) => `signed.for.${subgraph}`,
  };
  const logger = createLogger('plan-execution-spec');
  let forward: Forwarder;
  let apollo: ApolloServer;

  beforeAll(async () => {
    for (const subgraph of subgraphs)
      stops.push(serveInProcess(subgraph.url, mockSubgraph(subgraph.sdl), { enabled: true }));
    const supergraphSdl = composeSupergraph(subgraphs);
    forward = createForwarder({
      supergraphSdl,
      subgraphs,
      validationRules: queryLimitRules(12, 500),
      maxTokens: MAX_TOKENS,
      timeoutMs: 2_000,
      agent,
      formatError: formatGatewayError(logger),
    });
    withoutApolloTelemetry();
    apollo = new ApolloServer({
      gateway: new ApolloGateway({
        supergraphSdl,
        buildService: ({ name, url }) => new SubgraphDataSource(name!, url!, 2_000, agent),
      }),
      formatError: formatGatewayError(logger),
    });
    await apollo.start();
  });
  afterAll(async () => {
    await apollo.stop();
    stops.forEach((stop) => stop());
    await agent.close();
  });
  afterEach(() => failing.clear());

  const both = async (query: string, variables: Record<string, unknown> = {}) => {
    const ours = await forward({ query, variables }, {}, caller);
    expect(ours).toBeDefined(); // not left to Apollo: run by the router's executor
    const theirs = await apollo.executeOperation({ query, variables }, { contextValue: caller });
    if (theirs.body.kind !== 'single') throw new Error('expected a single answer');
    return {
      ours: JSON.parse(ours!.body) as Record<string, unknown>,
      theirs: theirs.body.singleResult,
      label: ours!.subgraph,
    };
  };

  it.each(OPERATIONS)('%s', async (_name, query, variables) => {
    const { ours, theirs, label } = await both(query, variables);
    expect(label).toContain('+');
    expect(ours.errors).toBeUndefined();
    expect(ours).toEqual(JSON.parse(JSON.stringify(theirs)));
  });

  it("an entity's failed field: the same null, bubbled as far, and the same error at the same path", async () => {
    failing.add('Bank.displayName');
    const { ours, theirs } = await both(OPERATIONS[2]![1], OPERATIONS[2]![2]);
    expect(ours.errors).toHaveLength(2);
    expect(ours).toEqual(JSON.parse(JSON.stringify(theirs)));
    expect((ours.errors as Array<{ path: unknown }>)[1]!.path).toEqual([
      'mandates',
      'edges',
      1,
      'node',
      'customerBank',
      'displayName',
    ]);
  });

  it('a root field that failed: its entities are not asked for, the answer is the same', async () => {
    failing.add('Query.resolveAlias');
    const { ours, theirs } = await both(OPERATIONS[0]![1], OPERATIONS[0]![2]);
    expect(ours).toEqual(JSON.parse(JSON.stringify(theirs)));
    expect(ours.data).toBeNull();
  });
});
