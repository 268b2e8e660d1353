import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { containsPattern } from '@gateway/db';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { MerchantEntity } from './merchant.entity';
import { Merchant, toMerchant } from './merchant.type';

/** One answer for the console, newest first; the search narrows it on the server. */
const MAX_MERCHANTS = 500;

/** The operator console's participants list (issue 50): merchants, whatever their status or mode. */
@Resolver()
export class MerchantDirectoryResolver {
  @Query(() => [Merchant], {
    description:
      'Merchants, newest first, ACTIVE and SUSPENDED, test and live (operator; at most 500). search: part of the name or the id, any case.',
  })
  async merchants(
    @Arg('search', () => String, { nullable: true, description: 'Part of the name or the id (mer_…), any case.' })
    search: string | null,
    @Ctx() context: SubgraphContext,
  ): Promise<Merchant[]> {
    requirePrincipal(context, ['admin']);
    const pattern = containsPattern(search);
    const rows = await context.em.find(
      MerchantEntity,
      pattern ? { $or: [{ name: { $ilike: pattern } }, { id: { $ilike: pattern } }] } : {},
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: MAX_MERCHANTS },
    );
    return rows.map(toMerchant);
  }
}
