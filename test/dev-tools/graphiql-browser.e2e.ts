import type { Page } from 'playwright-core';
import { createLogger } from '@gateway/kernel';
import { startDemo } from '@gateway/platform';
import { launchOfflineBrowser, type OfflineBrowser } from '../support/offline-browser';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * GraphiQL at /graphql, as `npm start` with the demo data serves it: from npm assets (no CDN:
 * every request beyond localhost is blocked and must not even be tried), on the router and
 * through rest-compat's proxy, with the demo merchant's key prefilled; a query shows data and a
 * subscription over graphql-ws shows its first message.
 */
describe('GraphiQL in a browser', () => {
  let t: TestPlatform;
  let demo: Awaited<ReturnType<typeof startDemo>>;
  let offline: OfflineBrowser;
  let sessionId: string;

  beforeAll(async () => {
    t = await startTestPlatform({ env: { SANDBOX_BANKS: 'on', SANDBOX_PORT_BASE: '0' } });
    demo = await startDemo(t.platform, { portBase: 0, logger: createLogger('graphiql-test', 'silent') });
    const customer = demo.file.customers[0]!;
    const created = await t.rest('POST', '/payments/sessions', {
      headers: { authorization: `Bearer ${demo.file.merchant.api_key}` },
      body: {
        amount: 2_500,
        currency: 'LYD',
        destination: { type: 'alias', value: customer.alias },
        description: 'GraphiQL test',
      },
    });
    expect(created.status).toBe(201);
    sessionId = created.body.session_id;
    offline = await launchOfflineBrowser();
  }, 180_000);
  afterAll(async () => {
    await offline?.close();
    await demo?.stop();
    await t?.stop();
  }, 120_000);

  /** The text of one of GraphiQL's CodeMirror editors (the query, headers or response). */
  const editorText = (page: Page, selector: string) =>
    page.evaluate(
      (css) =>
        ((globalThis as any).document.querySelector(`${css} .CodeMirror`) as any)?.CodeMirror.getValue() as
          string | undefined,
      selector,
    );
  /** Replaces the query as a user would: select all in the editor, type the new one. */
  const setQuery = async (page: Page, text: string) => {
    await page.click('.graphiql-query-editor .CodeMirror');
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(text);
    // GraphiQL parses the editor after a short debounce; the operation it sends (and whether it
    // goes over graphql-ws) comes from that parse. A person does not click within 100 ms either.
    await page.waitForTimeout(500);
  };
  /** Runs the editor's operation and returns the response pane's JSON once `field` shows there. */
  const run = async (page: Page, field: string) => {
    await page.click('.graphiql-execute-button');
    await page
      .waitForFunction(
        (name) =>
          (
            (globalThis as any).document.querySelector('.graphiql-response .CodeMirror') as any
          )?.CodeMirror.getValue().includes(name),
        field,
        {
          timeout: 20_000,
        },
      )
      .catch(async (error) => {
        throw new Error(`${error.message}; the response pane shows: ${await editorText(page, '.graphiql-response')}`);
      });
    return JSON.parse((await editorText(page, '.graphiql-response'))!);
  };

  it.each([
    ['the router', () => t.platform.routerUrl],
    ['rest-compat', () => t.platform.restUrl],
  ])('runs a query and a subscription on %s, offline, as the demo merchant', async (_where, base) => {
    const page = await offline.context.newPage();
    try {
      const answer = await page.goto(`${base()}/graphql`);
      expect(answer?.status()).toBe(200);
      expect(answer?.headers()['content-security-policy']).toContain("default-src 'self'");
      await page.waitForSelector('.graphiql-query-editor .CodeMirror');
      // The demo merchant's key, prefilled by the demo seed.
      const editors = await page.evaluate(() =>
        [...(globalThis as any).document.querySelectorAll('.CodeMirror')].map(
          (element) => (element as any).CodeMirror.getValue() as string,
        ),
      );
      expect(editors).toContain(JSON.stringify({ Authorization: `Bearer ${demo.file.merchant.api_key}` }, null, 2));

      await setQuery(page, '{ paymentSessions(first: 5) { edges { node { id status amount } } } }');
      const data = await run(page, sessionId);
      expect(data.data.paymentSessions.edges.map((edge: any) => edge.node)).toContainEqual({
        id: sessionId,
        status: 'PENDING',
        amount: 2_500,
      });

      // graphql-ws: the first message is the session's current state.
      await setQuery(page, `subscription { paymentSessionUpdated(id: "${sessionId}") { id status } }`);
      expect(await run(page, 'paymentSessionUpdated')).toEqual({
        data: { paymentSessionUpdated: { id: sessionId, status: 'PENDING' } },
      });

      expect(offline.outside).toEqual([]);
      expect(offline.cspViolations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('serves its files with a year of cache and a CSP of this origin only', async () => {
    const page = await fetch(`${t.platform.routerUrl}/graphql`, { headers: { accept: 'text/html' } }).then((r) =>
      r.text(),
    );
    const script = page.match(/src="(\/graphiql\/assets\/graphiql-[^"]+\/graphiql\.min\.js)"/)?.[1];
    expect(script).toBeDefined();
    for (const base of [t.platform.routerUrl, t.platform.restUrl]) {
      const asset = await fetch(`${base}${script}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toContain('text/javascript');
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
    // A GraphQL client's GET still reaches the API, not the page.
    const query = await fetch(`${t.platform.routerUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { accept: 'application/json', 'apollo-require-preflight': 'true' },
    });
    expect(await query.json()).toEqual({ data: { __typename: 'Query' } });
  });
});
