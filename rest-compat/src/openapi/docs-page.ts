import type { FastifyInstance } from 'fastify';
import { findStaticAsset, STATIC_ASSET_HEADERS, staticAssets } from '@gateway/kernel';
import type { OpenApiDocument } from './document';
import { docsOutline, OUTLINE_STYLE } from './docs-outline';

/**
 * /docs: the OpenAPI document rendered by Scalar's API reference (its standalone browser bundle
 * from npm, served here: no CDN, machines may be offline). Scalar gives try-it (requests go to
 * the document's server, this gateway), search (Ctrl/⌘ K) and a phone layout. An exact version
 * (rest-compat/package.json): this file patches its bundle and works around its mounting, both
 * checked by tests (openapi/docs-page.spec.ts, test/dev-tools/docs-browser.e2e.ts) on upgrade.
 */

const ASSET_PREFIX = '/docs/assets';

const PAGE_STYLE = `body { margin: 0; }
${OUTLINE_STYLE}
/* Scalar's example cards bled 3 px past a 390 px phone screen, letting the page pan sideways: clipped at the page (their code scrolls inside them). */
html, body { overflow-x: clip; }`;

/**
 * Mounted on #reference, not Scalar's conventional #api-reference: on load, the standalone bundle
 * mounts a second reference by itself on an element with that id, taking its content for the
 * document (the outline: "Invalid YAML object" on the console, and a second app's work).
 *
 * #reference is empty, and the outline is its sibling: Scalar 1.76 hydrates a mount element that
 * has children, as if they were its own server rendering, and logged "Hydration completed but
 * contains mismatches" over the outline (which then stayed on the page below the reference). Scalar
 * draws nothing in #reference until it has read the document; the outline goes when Scalar's first
 * element arrives (a mutation observer runs before the next paint, so no frame shows both). The
 * outline comes after #reference so that removing it moves nothing Scalar has laid out (its scroll
 * to the address's operation on load).
 *
 * Scalar's configuration: no fonts from Scalar's CDN (the system's instead), no proxy (try-it
 * calls the gateway directly), no agent, no links out to Scalar's hosted tools.
 */
const START_SCRIPT = `(function () {
  var reference = document.getElementById('reference');
  var outline = document.getElementById('outline');
  if (outline)
    new MutationObserver(function (_records, observer) {
      if (!reference.firstElementChild) return;
      observer.disconnect();
      outline.remove();
    }).observe(reference, { childList: true });
  Scalar.createApiReference(reference, {
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

/**
 * zod (inside Scalar's bundle) probes whether eval works with `new Function("")` to pick its JIT
 * parsers. This page's CSP forbids eval (no 'unsafe-eval'), so the answer is known, and the probe
 * only logged a CSP violation on the console: answered "no" without trying. The probe as minifiers
 * write it: `try{return new Function(""),!0}catch(e){return!1}` (Scalar 1.46),
 * `try{return Function(``),!0}catch{return!1}` (1.76). An upgrade of Scalar that moves the probe
 * fails here, loudly (openapi/docs-page.spec.ts applies the patch to the installed bundle), rather
 * than logging again unnoticed.
 */
export const EVAL_PROBE = /try\{return\s+(?:new\s+)?Function\((?:""|''|``)\),\s*!0\}catch(?:\(\w+\))?\{return\s*!1\}/;
export const NO_EVAL_PROBE = {
  name: 'noeval',
  apply(source: string): string {
    const found = source.split(EVAL_PROBE).length - 1;
    if (found !== 1)
      throw new Error(`Scalar's bundle: zod's eval probe found ${found} times, not once (docs-page.ts, EVAL_PROBE)`);
    return source.replace(EVAL_PROBE, 'return!1');
  },
};

const ASSETS = staticAssets(ASSET_PREFIX, __dirname, {
  'standalone.js': { package: '@scalar/api-reference', file: 'dist/browser/standalone.js', patch: NO_EVAL_PROBE },
  'page.css': { text: PAGE_STYLE },
  'start.js': { text: START_SCRIPT },
});

/**
 * The page: the outline of the document's operations (docs-outline.ts), shown until Scalar has
 * read the document and drawn it in #reference (START_SCRIPT). The document is fetched while the
 * 4.9 MB bundle loads (preload). An empty icon: browsers ask for /favicon.ico otherwise, a 404 on
 * the console.
 */
const page = (outline: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payment Gateway REST API</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${ASSETS['page.css']!.url}">
<link rel="preload" href="/openapi.json" as="fetch" crossorigin="anonymous"></head>
<body><div id="reference"></div>${outline}
<script src="${ASSETS['standalone.js']!.url}"></script>
<script src="${ASSETS['start.js']!.url}"></script>
</body></html>`;

/**
 * The page and its assets. `tryItOrigins`: where try-it may send requests besides this origin
 * (the document's public server, when it is not the address the page was opened on).
 * `document`: the OpenAPI document, once built (the outline is made from it once).
 */
export function registerDocsPage(
  app: FastifyInstance,
  tryItOrigins: () => string[],
  document: () => OpenApiDocument | undefined,
): void {
  let html: string | undefined;
  app.get('/docs', async (_request, reply) => {
    const built = document();
    html ??= built ? page(docsOutline(built)) : undefined;
    return reply
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
      .send(html ?? page(''));
  });
  app.get(`${ASSET_PREFIX}/*`, async (request, reply) => {
    const asset = findStaticAsset(ASSETS, request.url.split('?')[0]!);
    if (!asset) return reply.callNotFound();
    return reply.headers(STATIC_ASSET_HEADERS).type(asset.type).send(asset.body());
  });
}
