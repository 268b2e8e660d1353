import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';
import { chargingCoreCalls, costTableOf } from './core-cost';
import { inspectOperation } from './operation';
import { createRateLimiter, limitCostsOf } from './rate-limit';
import { createLimitCharges } from './rate-limit-charge';

// A subgraph shaped like open-banking's account reads: core-backed fields declare @cost.
const supergraphSdl = composeServices([
  {
    name: 'accounts',
    url: 'http://accounts',
    typeDefs: parse(`
      extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@cost"])
      type Query {
        obAccounts: [ObAccount!]! @cost(weight: 1)
        consent: Consent
        banks: [String!]!
      }
      type Mutation { approve: Boolean @cost(weight: 1) rename: Boolean }
      type Consent { id: ID! accounts: [ObAccount!]! @cost(weight: 1) }
      type ObAccount { accountId: ID! balances: [Int!]! transactions(count: Int): [String!]! @cost(weight: 1) }
    `),
  },
]).supergraphSdl!;

const noVault = () => {
  throw new Error('the vault is not consulted for these operations');
};
const charges = chargingCoreCalls(
  {
    operation: async (_principal, operation) => ({
      headers: { costs: JSON.stringify(limitCostsOf(operation.type, operation.fields)) },
    }),
    subscribe: async () => undefined,
  },
  supergraphSdl,
);
const costOf = async (query: string) =>
  JSON.parse(
    (await charges.operation({ kind: 'merchant', id: 'mer_cost' }, inspectOperation({ query })!)).headers.costs!,
  );
const aliases = (count: number) => Array.from({ length: count }, (_, i) => `t${i}: transactions(count: 500)`).join(' ');

describe('pricing bank-core calls', () => {
  it('reads the @cost weights the subgraphs declared from the supergraph', () => {
    expect(Object.fromEntries(costTableOf(supergraphSdl))).toEqual({
      'Query.obAccounts': 1,
      'Mutation.approve': 1,
      'Consent.accounts': 1,
      'ObAccount.transactions': 1,
    });
  });

  it('charges the 29-alias statement query 30 points, not 1: each core-backed selection costs its weight', async () => {
    expect(await costOf(`{ obAccounts { accountId ${aliases(29)} } }`)).toEqual({ read: 30 });
    // Through fragments and nested types alike; fields without @cost are free under a root field.
    expect(
      await costOf(
        `{ consent { id accounts { balances ...T } } } fragment T on ObAccount { a: transactions b: transactions }`,
      ),
    ).toEqual({ read: 4 });
    expect(await costOf('{ banks consent { id } }')).toEqual({ read: 2 });
  });

  it('prices a root field at its own weight, 1 without one, as before', async () => {
    expect(await costOf('mutation { a: approve b: approve rename }')).toEqual({ write: 3 });
    expect(await costOf('{ ... on Query { obAccounts { accountId } } }')).toEqual({ read: 1 });
  });

  it('refuses the 29-alias query when its price is more than the budget left', async () => {
    const limited = chargingCoreCalls(
      createLimitCharges(await createRateLimiter({ read: { points: 20, durationSeconds: 60 } }), noVault),
      supergraphSdl,
    );
    const answer = await limited.operation(
      { kind: 'ob_token', id: 'con_cost' },
      inspectOperation({ query: `{ obAccounts { ${aliases(29)} } }` })!,
    );
    expect(answer.refusal).toMatchObject({ code: 'RATE_LIMITED' });
    expect(answer.refusal?.detail).toMatch(/^this operation costs 30 points of the read limit/);
  });
});
