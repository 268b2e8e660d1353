import { parse, type FieldDefinitionNode, type ObjectTypeDefinitionNode } from 'graphql';
import { printSubgraphSdl } from '@gateway/federation';
import { buildOpenBankingSchema } from '../schema';

/** The `@cost` weight a field declares in the printed SDL, or null. */
function costOf(sdl: string, type: string, field: string): string | null {
  const definition = parse(sdl).definitions.find(
    (node): node is ObjectTypeDefinitionNode => node.kind === 'ObjectTypeDefinition' && node.name.value === type,
  );
  const found: FieldDefinitionNode | undefined = definition?.fields?.find((node) => node.name.value === field);
  const cost = found?.directives?.find((directive) => directive.name.value === 'cost');
  const weight = cost?.arguments?.find((argument) => argument.name.value === 'weight')?.value;
  return weight?.kind === 'IntValue' ? weight.value : null;
}

/**
 * Every field whose data is a bank core's declares its price, charged by the router per
 * selection (router/src/core-cost.ts), so aliases of it are never free.
 */
describe('open-banking account fields are priced', () => {
  it('prices ObAccount.balances as the other core-backed fields (issue 46: it had no @cost)', async () => {
    const sdl = printSubgraphSdl(await buildOpenBankingSchema({ platformSecret: 'cost-spec', production: false }));
    expect({
      'Query.obAccounts': costOf(sdl, 'Query', 'obAccounts'),
      'Query.obAccountBalances': costOf(sdl, 'Query', 'obAccountBalances'),
      'Query.obAccountTransactions': costOf(sdl, 'Query', 'obAccountTransactions'),
      'Consent.accounts': costOf(sdl, 'Consent', 'accounts'),
      'ObAccount.balances': costOf(sdl, 'ObAccount', 'balances'),
      'ObAccount.transactions': costOf(sdl, 'ObAccount', 'transactions'),
    }).toEqual({
      'Query.obAccounts': '1',
      'Query.obAccountBalances': '1',
      'Query.obAccountTransactions': '1',
      'Consent.accounts': '1',
      'ObAccount.balances': '1',
      'ObAccount.transactions': '1',
    });
  });
});
