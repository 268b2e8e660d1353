import { chromium, type Browser, type BrowserContext } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const isLocal = (url: string): boolean => {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true;
  return ['localhost', '127.0.0.1', '[::1]'].includes(hostname);
};

/**
 * Chromium that may reach only this machine: every request elsewhere is aborted and recorded in
 * `outside` (a test asserts it stays empty: the page needs no CDN), WebSockets included. CSP
 * violations the page reports on its console are recorded in `cspViolations`.
 */
export interface OfflineBrowser {
  browser: Browser;
  context: BrowserContext;
  outside: string[];
  cspViolations: string[];
  close(): Promise<void>;
}

export async function launchOfflineBrowser(viewport = { width: 1280, height: 900 }): Promise<OfflineBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  const context = await browser.newContext({ viewport });
  const outside: string[] = [];
  const cspViolations: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (isLocal(url)) return route.continue();
    outside.push(url);
    return route.abort('internetdisconnected');
  });
  await context.routeWebSocket(/.*/, (ws) => {
    if (isLocal(ws.url())) return ws.connectToServer();
    outside.push(ws.url());
    return ws.close();
  });
  context.on('page', (page) =>
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    }),
  );
  return { browser, context, outside, cspViolations, close: () => browser.close() };
}
