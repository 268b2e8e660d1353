import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const DESKTOP = { width: 1280, height: 860 } as const;
export const PHONE = { width: 375, height: 667 } as const;

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });

/** A page whose script errors and console errors are collected (each view must render without any). */
export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

export async function watchedPage(browser: Browser, viewport: { width: number; height: number }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  return { context, page, errors };
}

export async function signIn(page: Page, restUrl: string, apiKey: string): Promise<void> {
  await page.goto(`${restUrl}/dashboard`);
  await page.fill('#api-key', apiKey);
  await page.click('#sign-in-button');
  await page.waitForSelector('#merchant-name');
}

/** Screenshots for the report: /tmp/dash-<name>.png. */
export const shoot = (page: Page, name: string) => page.screenshot({ path: `/tmp/dash-${name}.png`, fullPage: true });

/** Nothing wider than the screen: no sideways scrolling at phone width. */
export async function fitsTheScreen(page: Page): Promise<void> {
  const widths = await page
    .locator('html')
    .evaluate((html) => ({ content: html.scrollWidth, screen: html.clientWidth }));
  expect(widths.content).toBeLessThanOrEqual(widths.screen);
}

/**
 * How many pixels of a chart's canvas are drawn in a colour (within a small tolerance, opaque):
 * bars and lines of data, not only the axes, which are grey.
 */
export function drawnPixels(page: Page, canvasId: string, hex: string): Promise<number> {
  const rgb = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
  return page.$eval(
    `#${canvasId}`,
    (canvas, colour) => {
      const context = (canvas as any).getContext('2d');
      const { data } = context.getImageData(0, 0, (canvas as any).width, (canvas as any).height);
      let count = 0;
      for (let at = 0; at < data.length; at += 4)
        if (
          data[at + 3] > 200 &&
          Math.abs(data[at] - colour[0]!) < 12 &&
          Math.abs(data[at + 1] - colour[1]!) < 12 &&
          Math.abs(data[at + 2] - colour[2]!) < 12
        )
          count += 1;
      return count;
    },
    rgb,
  );
}
