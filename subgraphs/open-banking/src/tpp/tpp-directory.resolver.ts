import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { containsPattern } from '@gateway/db';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { TppEntity } from './tpp.entity';
import { Tpp, toTpp } from './tpp.type';

/** One answer for the console, newest first; the search narrows it on the server. */
const MAX_TPPS = 500;

/** The operator console's participants list (issue 50): TPPs, whatever their status, mode or profile. */
@Resolver()
export class TppDirectoryResolver {
  @Query(() => [Tpp], {
    description:
      'TPPs, newest first: ACTIVE, SUSPENDED and DISABLED (deleted by their client, RFC 7592), test and live, spec and fapi2 (operator; at most 500). ' +
      'search: part of the name or the id, any case.',
  })
  async tpps(
    @Arg('search', () => String, { nullable: true, description: 'Part of the name or the id (tpp_…), any case.' })
    search: string | null,
    @Ctx() context: SubgraphContext,
  ): Promise<Tpp[]> {
    requirePrincipal(context, ['admin']);
    const pattern = containsPattern(search);
    const rows = await context.em.find(
      TppEntity,
      pattern ? { $or: [{ name: { $ilike: pattern } }, { id: { $ilike: pattern } }] } : {},
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: MAX_TPPS },
    );
    return rows.map(toTpp);
  }
}
