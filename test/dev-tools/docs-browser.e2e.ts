import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createLogger } from '@gateway/kernel';
import { buildOpenApiDocument, ROUTES, startRestCompat, type RunningRestCompat } from '@gateway/rest-compat';
import { launchOfflineBrowser, type OfflineBrowser } from '../support/offline-browser';

/** Screenshots for a person to look at (CI keeps them as artifacts when DOCS_SCREENSHOTS is set). */
const SHOTS = process.env.DOCS_SCREENSHOTS;

/**
 * /docs in Chromium with no network beyond this machine: Scalar's API reference from npm assets
 * renders the document, its search finds an operation, and nothing overflows sideways at phone
 * width (390 px) or on a desktop.
 */
describe('API reference at /docs in a browser', () => {
  let rest: RunningRestCompat;

  beforeAll(async () => {
    // The reference is built from the route table: no router is needed to show it.
    rest = await startRestCompat({ routerUrl: 'http://127.0.0.1:9', logger: createLogger('docs-test', 'silent') });
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(() => rest?.stop());

  const noSidewaysScroll = (page: Page) =>
    page.locator('html').evaluate((html) => ({ content: html.scrollWidth, screen: html.clientWidth }));

  it.each([
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1280, height: 900 }],
  ])('renders offline on a %s, finds an operation by search, and fits the width', async (name, viewport) => {
    const offline: OfflineBrowser = await launchOfflineBrowser(viewport);
    try {
      const page = await offline.context.newPage();
      const answer = await page.goto(`${rest.url}/docs`);
      expect(answer?.status()).toBe(200);
      await page.getByRole('heading', { name: 'Payment Gateway REST API' }).waitFor({ timeout: 30_000 });
      if (SHOTS) await page.screenshot({ path: join(SHOTS, `docs-${name}.png`) });

      expect(await noSidewaysScroll(page)).toEqual({ content: viewport.width, screen: viewport.width });

      // Search, pick the operation, land on it. On a desktop with Ctrl K, as the search box says.
      // On a phone the navigation (and its search box) sits behind the menu button, and a person
      // taps the search box there. (Ctrl K would not do: in Scalar 1.76 the open menu holds a second
      // search box, and each box opens its own search dialog on Ctrl K, the query typed in one, the
      // other on top of it, empty.)
      if (viewport.width < 600) {
        await page.getByRole('button', { name: 'Open Menu' }).click();
        await page.getByRole('button', { name: /^Open Search/ }).click();
      } else await page.keyboard.press('Control+k');
      await page.getByRole('combobox', { name: 'Enter search query' }).pressSequentially('charge');
      const hit = page.getByRole('option', { name: /Operation:\s+Charge a mandate\s*,/ });
      await hit.waitFor();
      if (SHOTS) await page.screenshot({ path: join(SHOTS, `docs-${name}-search.png`) });
      await hit.click();
      await page.waitForURL(/charge/);
      const operation = page.getByRole('heading', { name: 'Charge a mandate', exact: true });
      await operation.waitFor();
      // Its request example, from the document's examples (minor units, not "0").
      await page.getByText('"amount": 12500').first().waitFor({ state: 'attached' });
      if (SHOTS) await page.screenshot({ path: join(SHOTS, `docs-${name}-operation.png`) });

      expect(await noSidewaysScroll(page)).toEqual({ content: viewport.width, screen: viewport.width });
      expect(offline.outside).toEqual([]);
      expect(offline.cspViolations).toEqual([]);
    } finally {
      await offline.close();
    }
  });

  // Issue 31: the console said "Invalid YAML object" (Scalar mounting itself a second time on
  // #api-reference), a CSP refusal (zod's eval probe) and a 404 (/favicon.ico). Scalar 1.76 added
  // "Hydration completed but contains mismatches" (it hydrated the outline in its mount element).
  it('loads with a clean console: no error, no failed request, no answer in error', async () => {
    const offline = await launchOfflineBrowser();
    try {
      const page = await offline.context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => message.type() === 'error' && problems.push(`console: ${message.text()}`));
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
      page.on(
        'response',
        (response) => response.status() >= 400 && problems.push(`${response.status()} ${response.url()}`),
      );
      await page.goto(`${rest.url}/docs`);
      await page
        .locator('.t-doc__sidebar')
        .getByText('Identity registry', { exact: true })
        .waitFor({ timeout: 30_000 });
      // Late requests (the icon, lazy chunks) have their moment.
      await page.waitForTimeout(1500);
      // Scalar took the outline's place (it is not left below the reference).
      expect(await page.locator('.outline').count()).toBe(0);
      expect(problems).toEqual([]);
      expect(offline.outside).toEqual([]);
    } finally {
      await offline.close();
    }
  });

  // Issue 47: the sidebar used to open with the bank-operator routes; a merchant looks for Payments.
  it("opens Scalar's sidebar with Payments, the bank-operator routes after", async () => {
    const offline = await launchOfflineBrowser({ width: 1280, height: 900 });
    try {
      const page = await offline.context.newPage();
      await page.goto(`${rest.url}/docs`);
      const sidebar = page.locator('.t-doc__sidebar');
      await sidebar.getByText('Identity registry', { exact: true }).waitFor({ timeout: 30_000 });
      const tags = buildOpenApiDocument(ROUTES, rest.url).tags.map((tag) => tag.name);
      const shown = (await sidebar.innerText())
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => tags.includes(line));
      expect(shown[0]).toBe('Payments');
      for (const operatorTag of ['Banks', 'Bank callbacks', 'Merchants', 'Settlement', 'Operations'])
        expect(shown.indexOf(operatorTag)).toBeGreaterThan(shown.indexOf('Payments'));
    } finally {
      await offline.close();
    }
  });

  it('shows the operation list before Scalar has read the document, and without JavaScript', async () => {
    const offline = await launchOfflineBrowser();
    try {
      const context = await offline.browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(`${rest.url}/docs`);
      const operations = Object.values(buildOpenApiDocument(ROUTES, rest.url).paths).flatMap(Object.values);
      await page.getByText('Create a payment session').waitFor();
      expect(await page.locator('.outline li').count()).toBe(operations.length);
      await page.getByRole('heading', { name: 'Identity registry' }).waitFor();
      expect(await page.locator('a[href="/openapi.json"]').count()).toBe(1);
    } finally {
      await offline.close();
    }
  });
});
