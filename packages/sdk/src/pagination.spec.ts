import { GatewayClient } from './client';
import { LIST_ITEMS } from './generated/routes';

const session = (n: number) => ({ session_id: `ops_${n}`, status: 'PENDING', amount: n, currency: 'LYD' });

/** GET /payments/sessions over `total` sessions, pages of `limit` (default 2), cursor = last id of the page. */
function pagedApi(total: number) {
  const urls: URL[] = [];
  const fetch = async (request: Request) => {
    const url = new URL(request.url);
    urls.push(url);
    const limit = Number(url.searchParams.get('limit') ?? 2);
    const after = url.searchParams.get('cursor');
    const start = after ? Number(after.slice('ops_'.length)) : 0;
    const sessions = Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_, i) =>
      session(start + i + 1),
    );
    const hasMore = start + sessions.length < total;
    return Response.json({
      sessions,
      pagination: { next_cursor: hasMore ? sessions.at(-1)!.session_id : null, has_more: hasMore },
    });
  };
  return { fetch, urls };
}

const client = (fetch: (request: Request) => Promise<Response>) =>
  new GatewayClient({ baseUrl: 'https://pay.example', apiKey: 'mk_test_abc', fetch });

describe('paginate', () => {
  it('yields every item of every page in order, following next_cursor while has_more', async () => {
    const api = pagedApi(5);
    const ids: string[] = [];
    for await (const item of client(api.fetch).paginate('/payments/sessions', { params: { query: { limit: 2 } } }))
      ids.push(item.session_id);
    expect(ids).toEqual(['ops_1', 'ops_2', 'ops_3', 'ops_4', 'ops_5']);
    expect(api.urls.map((url) => url.searchParams.get('cursor'))).toEqual([null, 'ops_2', 'ops_4']);
    expect(api.urls.every((url) => url.searchParams.get('limit') === '2')).toBe(true);
  });

  it('fetches a page only when the loop asks for its items', async () => {
    const api = pagedApi(10);
    for await (const item of client(api.fetch).paginate('/payments/sessions', { params: { query: { limit: 3 } } }))
      if (item.session_id === 'ops_2') break;
    expect(api.urls).toHaveLength(1);
  });

  it('starts at the cursor given and ends on an empty list', async () => {
    const resumed = pagedApi(4);
    const ids: string[] = [];
    for await (const item of client(resumed.fetch).paginate('/payments/sessions', {
      params: { query: { cursor: 'ops_2' } },
    }))
      ids.push(item.session_id);
    expect(ids).toEqual(['ops_3', 'ops_4']);

    const empty = pagedApi(0);
    const none: unknown[] = [];
    for await (const item of client(empty.fetch).paginate('/payments/sessions')) none.push(item);
    expect(none).toEqual([]);
  });

  it('stops with an error on a cursor that does not move instead of looping', async () => {
    const stuck = async () =>
      Response.json({ sessions: [session(1)], pagination: { next_cursor: 'ops_1', has_more: true } });
    const seen: string[] = [];
    const walk = async () => {
      for await (const item of client(stuck).paginate('/payments/sessions')) seen.push(item.session_id);
    };
    await expect(walk()).rejects.toThrow('did not advance');
    expect(seen).toEqual(['ops_1', 'ops_1']);
  });

  it('knows the list routes of the document, each with its items key', () => {
    expect(LIST_ITEMS).toMatchObject({
      '/payments/sessions': 'sessions',
      '/payments/sessions/{session_id}/refunds': 'refunds',
      '/recurring/mandates': 'mandates',
      '/webhooks/deliveries': 'deliveries',
    });
  });
});
