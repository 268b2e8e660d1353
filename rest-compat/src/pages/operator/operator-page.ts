import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { CURRENCIES, type Logger } from '@gateway/kernel';
import { escapeHtml, jsonForScript, securityHeaders } from '../html';
import { buildDashboardAssets, type DashboardAssets } from '../dashboard/dashboard-assets';
import type { DashboardCookie } from '../dashboard/dashboard-cookie';
import { operatorSessionOf } from './operator-session';

export const OPERATOR_PATH = '/operator';

/** `signedIn`: a session cookie came (valid or not: the API decides), so the page asks who it is instead of showing the form. */
function shell(assets: DashboardAssets, nonce: string, signedIn: boolean): string {
  const config = { currencyExponents: CURRENCIES, signedIn };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Operator console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" nonce="${nonce}" href="${OPERATOR_PATH}/assets/${escapeHtml(assets.stylesheet)}">
</head>
<body><div id="app"><noscript><p>The operator console needs JavaScript: it calls the GraphQL API from this page.</p></noscript></div>
<script type="application/json" id="console-config">${jsonForScript(config)}</script>
<script nonce="${nonce}" defer src="${OPERATOR_PATH}/assets/${escapeHtml(assets.script)}"></script>
</body></html>`;
}

/**
 * GET /operator: the operator console (issue 50), bundled like the merchant dashboard (Preact by
 * esbuild, in memory, on the first request) and served with the same headers (nonce CSP, no
 * framing, no-store). It calls the public GraphQL API only, at /operator/graphql, signed in by
 * the console's session cookie (operator-session.ts).
 */
export function registerOperatorConsole(app: FastifyInstance, logger: Logger, cookie: DashboardCookie): void {
  let assets: Promise<DashboardAssets> | undefined;
  const ready = () => {
    assets ??= buildDashboardAssets(join(__dirname, 'client', 'main.tsx')).catch((error: unknown) => {
      assets = undefined;
      throw error;
    });
    return assets;
  };

  app.get(OPERATOR_PATH, async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    securityHeaders(reply, nonce);
    reply.type('text/html; charset=utf-8');
    try {
      return reply.send(shell(await ready(), nonce, operatorSessionOf(request.headers, cookie) !== undefined));
    } catch (error) {
      logger.error({ err: error, requestId: request.requestId }, 'the operator console bundle could not be built');
      return reply
        .code(503)
        .send(
          '<!doctype html><title>Console unavailable</title><p>The operator console is unavailable. Please try again shortly.</p>',
        );
    }
  });

  app.get(`${OPERATOR_PATH}/assets/:file`, async (request, reply) => {
    const file = (await ready()).files.get((request.params as { file: string }).file);
    if (!file) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return reply
      .type(file.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(file.body);
  });
}
