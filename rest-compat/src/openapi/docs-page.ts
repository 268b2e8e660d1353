import type { FastifyInstance } from 'fastify';
import { findStaticAsset, STATIC_ASSET_HEADERS, staticAssets } from '@gateway/kernel';

/**
 * /docs: the OpenAPI document rendered by Scalar's API reference (its standalone browser bundle
 * from npm, served here: no CDN, machines may be offline). Scalar gives try-it (requests go to
 * the document's server, this gateway), search (Ctrl/⌘ K) and a phone layout. 1.46.4 is pinned:
 * the last release whose engines accept Node 20.
 */

const ASSET_PREFIX = '/docs/assets';

const PAGE_STYLE = `body { margin: 0; }
.loading { font: 16px system-ui, sans-serif; padding: 2rem; }
/* Scalar's example cards bled 3 px past a 390 px phone screen, letting the page pan sideways: clipped at the page (their code scrolls inside them). */
html, body { overflow-x: clip; }`;

/**
 * Scalar's configuration: no fonts from Scalar's CDN (the system's instead), no proxy (try-it
 * calls the gateway directly), no agent, no links out to Scalar's hosted tools.
 */
const START_SCRIPT = `(function () {
  Scalar.createApiReference('#api-reference', {
    url: '/openapi.json',
    withDefaultFonts: false,
    hideClientButton: true,
    showDeveloperTools: 'never',
    documentDownloadType: 'json',
    defaultOpenAllTags: false,
    metaData: { title: 'Payment Gateway REST API' },
    // Scalar's AI agent asks Scalar's servers (proxy.scalar.com): off, nothing leaves this gateway.
    agent: { disabled: true },
  });
})();
`;

const ASSETS = staticAssets(ASSET_PREFIX, __dirname, {
  'standalone.js': { package: '@scalar/api-reference', file: 'dist/browser/standalone.js' },
  'page.css': { text: PAGE_STYLE },
  'start.js': { text: START_SCRIPT },
});

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payment Gateway REST API</title><link rel="stylesheet" href="${ASSETS['page.css']!.url}"></head>
<body><div id="api-reference"><p class="loading">Loading the API reference… It needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</p></div>
<script src="${ASSETS['standalone.js']!.url}"></script>
<script src="${ASSETS['start.js']!.url}"></script>
</body></html>`;

/**
 * The page and its assets. `tryItOrigins`: where try-it may send requests besides this origin
 * (the document's public server, when it is not the address the page was opened on).
 */
export function registerDocsPage(app: FastifyInstance, tryItOrigins: () => string[]): void {
  app.get('/docs', async (_request, reply) =>
    reply
      .headers({
        // Scripts only from this origin. Styles: Scalar (Vue) injects <style> elements and style
        // attributes at run time, which CSP allows only with 'unsafe-inline'; no script can be injected that way.
        'content-security-policy':
          `default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self' ${tryItOrigins().join(' ')}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`.replace(
            / ;/g,
            ';',
          ),
        'cache-control': 'no-cache',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      })
      .type('text/html; charset=utf-8')
      .send(PAGE),
  );
  app.get(`${ASSET_PREFIX}/*`, async (request, reply) => {
    const asset = findStaticAsset(ASSETS, request.url.split('?')[0]!);
    if (!asset) return reply.callNotFound();
    return reply.headers(STATIC_ASSET_HEADERS).type(asset.type).send(asset.body());
  });
}
