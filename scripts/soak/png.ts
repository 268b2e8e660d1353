import { writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The SVG charts as PNGs, screenshotted by Debian's chromium through playwright-core (as the
 * browser tests launch it): no image library needed. Answers an error's message instead of
 * throwing (the SVGs are written anyway; a machine without chromium still gets its report).
 */
export async function renderPngs(
  charts: ReadonlyArray<{ svg: string; png: string; width: number; height: number }>,
): Promise<string | undefined> {
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    const page = await browser.newPage();
    for (const chart of charts) {
      await page.setViewportSize({ width: chart.width, height: chart.height });
      await page.setContent(`<!doctype html><html><body style="margin:0">${chart.svg}</body></html>`);
      writeFileSync(
        chart.png,
        await page.screenshot({ clip: { x: 0, y: 0, width: chart.width, height: chart.height } }),
      );
    }
    return undefined;
  } catch (error) {
    return `charts not rendered as PNG (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); the SVGs are there`;
  } finally {
    await browser?.close().catch(() => undefined);
  }
}
