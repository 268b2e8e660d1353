import { Ctx, Query, Resolver } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { BankEntity } from './bank.entity';
import { Bank, toBank } from './bank.type';

/** Enough for a national scheme's banks in one answer; the console filters them in the page. */
const MAX_BANKS = 500;

/** The operator console's participants list (issue 50): every bank, whatever its status. */
@Resolver()
export class BankDirectoryResolver {
  @Query(() => [Bank], {
    description: 'Every registered bank, ACTIVE and SUSPENDED, by handle (operator; at most 500).',
  })
  async banks(@Ctx() context: SubgraphContext): Promise<Bank[]> {
    requirePrincipal(context, ['admin']);
    const rows = await context.em.find(BankEntity, {}, { orderBy: { handle: 'asc' }, limit: MAX_BANKS });
    return rows.map(toBank);
  }
}
