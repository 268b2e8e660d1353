import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName, FilterQuery } from '@mikro-orm/core';
import { invalid } from '@gateway/kernel';
import { PAGE_SIZE_DEFAULT } from './list.rules';

/** A page of a list, newest first, and whether more follow. */
export interface Page<T> {
  rows: T[];
  hasMore: boolean;
}

export interface ListQuery<T> {
  /** Whose list it is (the merchant's sessions, a mandate's charges, an audience's deliveries): a cursor must be in it. */
  scope: FilterQuery<T>;
  /**
   * Filters on what never changes once a row exists (created_at, reference, amount, event kind):
   * the cursor row must match them too, so a cursor of another filtered list is refused.
   */
  fixed?: FilterQuery<T>[];
  /**
   * Filters on what changes (status, metadata): the cursor row may have left them since its page
   * was read (a PENDING session paid meanwhile) and still marks where the next page starts.
   * Built per query (a raw fragment is good for one query).
   */
  changing?: FilterQuery<T>[];
  first?: number | null;
  after?: string | null;
  /** newest first (every list, the default), or oldest first (the CSV reports, which read forward). */
  order?: 'newest' | 'oldest';
}

/**
 * The one paging of every list (sessions, mandates, charges, refunds, webhook deliveries, and the
 * reports' pages): keyset on (created_at, id), newest first unless asked oldest first, continuing
 * strictly after the cursor row (the last id of the previous page). Rows created meanwhile sort
 * before the first page and never shift or repeat later ones; filters only remove rows, so a
 * filtered list pages the same way. `first` and `after` must have been checked (list.rules.ts).
 */
export async function keysetPage<T extends { id: string; createdAt: Date }>(
  em: EntityManager,
  entity: EntityName<T>,
  query: ListQuery<T>,
): Promise<Page<T>> {
  const size = query.first ?? PAGE_SIZE_DEFAULT;
  const oldestFirst = query.order === 'oldest';
  const fixed = [query.scope, ...(query.fixed ?? [])];
  const conditions: FilterQuery<T>[] = [...fixed, ...(query.changing ?? [])];
  if (query.after) {
    const cursor = await em.findOne(entity, { $and: [...fixed, { id: query.after }] } as FilterQuery<T>);
    if (!cursor) throw invalid('after', 'not a cursor of this list (the last id of one of its pages)');
    const [beyond, from] = oldestFirst ? ['$gt', '$gte'] : ['$lt', '$lte'];
    conditions.push(
      // The bound alone lets the index scan start at the cursor; with only the $or (a filter) every
      // page would scan from the list's start: quadratic over a 100,000-row report.
      { createdAt: { [from]: cursor.createdAt } } as FilterQuery<T>,
      {
        $or: [
          { createdAt: { [beyond]: cursor.createdAt } },
          { createdAt: cursor.createdAt, id: { [beyond]: cursor.id } },
        ],
      } as FilterQuery<T>,
    );
  }
  const direction = oldestFirst ? 'asc' : 'desc';
  const rows = await em.find(entity, { $and: conditions } as FilterQuery<T>, {
    orderBy: { createdAt: direction, id: direction } as never,
    limit: size + 1,
  });
  return { rows: rows.slice(0, size), hasMore: rows.length > size };
}

/** created_at within [from, to): the created range every list takes. */
export function createdRange<T>(args: { createdFrom?: Date | null; createdTo?: Date | null }): FilterQuery<T>[] {
  return [
    ...(args.createdFrom ? [{ createdAt: { $gte: args.createdFrom } }] : []),
    ...(args.createdTo ? [{ createdAt: { $lt: args.createdTo } }] : []),
  ] as unknown as FilterQuery<T>[];
}
