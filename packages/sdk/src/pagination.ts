import { LIST_ITEMS } from './generated/routes';
import type { paths } from './generated/schema';
import type { CallMethod, CallOptions, ResponseData } from './types';

/** The list routes (GET, answering a page with `pagination`), from the document. */
export type ListPath = keyof typeof LIST_ITEMS;
/** One page of a list route, as the API answers it. */
export type Page<Path extends ListPath> = ResponseData<paths[Path]['get']>;
/** An item of a list route's pages (a session of GET /payments/sessions…). */
export type ListItem<Path extends ListPath> =
  Page<Path> extends Record<(typeof LIST_ITEMS)[Path], ReadonlyArray<infer Item>> ? Item : never;

interface PageShape {
  pagination: { next_cursor: string | null; has_more: boolean };
  [items: string]: unknown;
}

/** Walks a list route's pages from the cursor given (or the first page), yielding their items in order. */
export async function* paginate<Path extends ListPath>(
  get: CallMethod<'get'>,
  path: Path,
  options: CallOptions<Path, 'get'> | undefined,
): AsyncGenerator<ListItem<Path>> {
  const itemsKey = LIST_ITEMS[path];
  const base = (options ?? {}) as { params?: { path?: object; query?: Record<string, unknown> } };
  let cursor = base.params?.query?.cursor as string | undefined;
  for (;;) {
    const query = { ...base.params?.query, ...(cursor ? { cursor } : {}) };
    const page = (await (get as (p: string, o: object) => Promise<unknown>)(path, {
      ...base,
      params: { ...base.params, query },
    })) as PageShape;
    for (const item of page[itemsKey] as Array<ListItem<Path>>) yield item;
    const next = page.pagination.next_cursor;
    if (!page.pagination.has_more || !next) return;
    // A cursor that does not move would loop forever: a broken page, not the end of the list.
    if (next === cursor) throw new Error(`GET ${path}: pagination did not advance past cursor ${cursor}`);
    cursor = next;
  }
}
