import type { FastifyInstance } from 'fastify';
import { findStaticAsset, STATIC_ASSET_HEADERS, staticAssets } from '@gateway/kernel';

/**
 * GraphiQL at GET /graphql for a browser, outside production: the npm package's UMD build with
 * React 18's (React 19 ships no UMD), served from node_modules, so it works offline. Apollo's own
 * landing page loaded Apollo Sandbox from a CDN. Queries and mutations go to POST /graphql,
 * subscriptions over graphql-ws on the same path; the page builds both addresses from its own
 * origin, so it works as well through rest-compat's /graphql proxy.
 */

export interface GraphiQLOptions {
  /**
   * Headers prefilled in the editor, asked at each page load: `npm start` with demo data offers the
   * demo merchant's key once the demo is seeded. Never called in production (no page there).
   */
  headers?(): Record<string, string> | undefined;
}

/** Where the assets live; rest-compat forwards this prefix to the router with /graphql. */
export const GRAPHIQL_ASSET_PREFIX = '/graphiql/assets';

const PAGE_STYLE = `html, body { height: 100%; margin: 0; }
#graphiql { height: 100vh; }
#graphiql > .loading { font: 16px system-ui, sans-serif; padding: 2rem; }`;

/** The page's own script: GraphiQL with a fetcher for HTTP and graphql-ws on this origin. */
const START_SCRIPT = `(function () {
  var config = JSON.parse(document.getElementById('graphiql-config').textContent);
  var url = new URL('/graphql', window.location.href);
  var subscriptionUrl = new URL(url.href);
  subscriptionUrl.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  // The Headers tab's JSON goes on every HTTP request and, for subscriptions, as graphql-ws
  // connectionParams (the router reads authorization / sessionToken there).
  var fetcher = GraphiQL.createFetcher({ url: url.href, subscriptionUrl: subscriptionUrl.href });
  var props = { fetcher: fetcher, defaultQuery: config.query, isHeadersEditorEnabled: true, defaultEditorToolsVisibility: config.headers ? 'headers' : undefined };
  if (config.headers) props.defaultHeaders = JSON.stringify(config.headers, null, 2);
  ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, props));
})();
`;

const ASSETS = staticAssets(GRAPHIQL_ASSET_PREFIX, __dirname, {
  'react.production.min.js': { package: 'react', file: 'umd/react.production.min.js' },
  'react-dom.production.min.js': { package: 'react-dom', file: 'umd/react-dom.production.min.js' },
  'graphiql.min.js': { package: 'graphiql', file: 'graphiql.min.js' },
  'graphiql.min.css': { package: 'graphiql', file: 'graphiql.min.css' },
  'page.css': { text: PAGE_STYLE },
  'start.js': { text: START_SCRIPT },
});

const DEFAULT_QUERY = `# GraphiQL on the payment gateway's federated API. Put a credential in the Headers tab
# (e.g. {"Authorization": "Bearer mk_test_…"} for a merchant), then run with Ctrl-Enter.
{
  paymentSessions(first: 5) {
    edges { node { id status amount currency createdAt } }
  }
}

# Live status of one session (graphql-ws):
# subscription Watch { paymentSessionUpdated(id: "ops_…") { id status updatedAt } }
`;

/** Safe inside <script type="application/json">: no `<` can close the element. */
const jsonForScript = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

function renderPage(headers: Record<string, string> | undefined): string {
  const src = (name: string) => ASSETS[name]!.url;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL · Payment gateway</title>
<link rel="stylesheet" href="${src('graphiql.min.css')}"><link rel="stylesheet" href="${src('page.css')}"></head>
<body><div id="graphiql"><p class="loading">Loading GraphiQL…</p></div>
<script type="application/json" id="graphiql-config">${jsonForScript({ query: DEFAULT_QUERY, headers })}</script>
<script src="${src('react.production.min.js')}"></script>
<script src="${src('react-dom.production.min.js')}"></script>
<script src="${src('graphiql.min.js')}"></script>
<script src="${src('start.js')}"></script>
</body></html>`;
}

/**
 * A GET of /graphql that a browser navigates to (Accept: text/html, no `query` parameter) gets the
 * page; any other request (a GraphQL GET, POST, graphql-ws upgrade) goes on to the router as before.
 */
const wantsPage = (method: string, url: string, accept: string | undefined): boolean =>
  method === 'GET' && /^\/graphql\/?(\?(?!.*\bquery=).*)?$/.test(url) && (accept ?? '').includes('text/html');

/** The page and its assets; only for a router outside production. */
export function registerGraphiQL(app: FastifyInstance, options: GraphiQLOptions = {}): void {
  // A callback hook (every request passes it; an async one costs a promise and a turn): the page
  // is sent without calling done, which ends the request here.
  app.addHook('onRequest', (request, reply, done) => {
    if (!wantsPage(request.method, request.url, request.headers.accept)) return done();
    reply
      .headers({
        // Only this origin: scripts, styles, the fetches and the graphql-ws socket ('self' covers ws: of the same host).
        // GraphiQL sets element styles from script, which CSP allows without 'unsafe-inline'; it injects no <style>.
        'content-security-policy':
          "default-src 'self'; img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      })
      .type('text/html; charset=utf-8')
      .send(renderPage(options.headers?.()));
  });
  app.get(`${GRAPHIQL_ASSET_PREFIX}/*`, async (request, reply) => {
    const asset = findStaticAsset(ASSETS, request.url.split('?')[0]!);
    if (!asset) return reply.callNotFound();
    return reply.headers(STATIC_ASSET_HEADERS).type(asset.type).send(asset.body());
  });
}
