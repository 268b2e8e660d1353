import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { CURRENCIES, type Logger } from '@gateway/kernel';
import { escapeHtml, jsonForScript, securityHeaders } from '../html';
import { buildDashboardAssets, type DashboardAssets } from './dashboard-assets';

export const DASHBOARD_PATH = '/dashboard';

function shell(assets: DashboardAssets, nonce: string): string {
  const config = { currencyExponents: CURRENCIES };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Merchant dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" nonce="${nonce}" href="${DASHBOARD_PATH}/assets/${escapeHtml(assets.stylesheet)}">
</head>
<body><div id="app"><noscript><p>The merchant dashboard needs JavaScript: it calls the GraphQL API from this page.</p></noscript></div>
<script type="application/json" id="dashboard-config">${jsonForScript(config)}</script>
<script nonce="${nonce}" defer src="${DASHBOARD_PATH}/assets/${escapeHtml(assets.script)}"></script>
</body></html>`;
}

/**
 * GET /dashboard: the merchant dashboard, a page that uses the public GraphQL API only (POST
 * /graphql and graphql-ws on this origin), signed in by the session cookie its merchant key was
 * exchanged for (dashboard-session.ts). The page keeps
 * the customer pages' headers (nonce CSP, no framing, no-store); its assets are named by content
 * hash, so they may be cached for good.
 */
export function registerDashboard(app: FastifyInstance, logger: Logger): void {
  let assets: Promise<DashboardAssets> | undefined;
  const ready = () => {
    assets ??= buildDashboardAssets().catch((error: unknown) => {
      assets = undefined;
      throw error;
    });
    return assets;
  };

  app.get(DASHBOARD_PATH, async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    securityHeaders(reply, nonce);
    reply.type('text/html; charset=utf-8');
    try {
      return reply.send(shell(await ready(), nonce));
    } catch (error) {
      logger.error({ err: error, requestId: request.requestId }, 'the dashboard bundle could not be built');
      return reply
        .code(503)
        .send(
          '<!doctype html><title>Dashboard unavailable</title><p>The dashboard is unavailable. Please try again shortly.</p>',
        );
    }
  });

  app.get(`${DASHBOARD_PATH}/assets/:file`, async (request, reply) => {
    const file = (await ready()).files.get((request.params as { file: string }).file);
    if (!file) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return reply
      .type(file.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(file.body);
  });
}
