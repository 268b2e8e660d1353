import { Directive, Field, ObjectType } from 'type-graphql';

/** Relay connection paging, shareable so any subgraph's connection can use the same type. */
@ObjectType({ description: 'Where a page of a Relay-style connection sits in the whole list.' })
@Directive('@shareable')
export class PageInfo {
  @Field({ description: 'More items follow endCursor.' })
  hasNextPage!: boolean;

  @Field({ description: 'Items precede startCursor (pages are only followed forwards: always false).' })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Cursor of the first item of the page; null for an empty page.' })
  startCursor!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Cursor of the last item of the page: pass it as `after` for the next page.',
  })
  endCursor!: string | null;
}

/** The PageInfo of a forward-only page of edges (keyset paging: `hasMore` says whether items follow). */
export function pageInfoOf(edges: ReadonlyArray<{ cursor: string }>, hasMore: boolean): PageInfo {
  return {
    hasNextPage: hasMore,
    hasPreviousPage: false,
    startCursor: edges[0]?.cursor ?? null,
    endCursor: edges.at(-1)?.cursor ?? null,
  };
}
