import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatMoney } from '@gateway/sdk';
import { amountsNotInMajorUnits } from './support/money';

/**
 * Money a person reads is in major units with its currency, written by one formatter: the docs and
 * the READMEs (their examples included). Error details that name an amount are checked beside
 * their rules (refund.rules.spec), the CLI's table in test/cli.
 */
const ROOT = join(__dirname, '..');
const markdown = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).map((name) => join('docs', name)),
  ...readdirSync(join(ROOT, 'packages')).map((name) => join('packages', name, 'README.md')),
  ...readdirSync(join(ROOT, 'examples')).map((name) => join('examples', name, 'README.md')),
].filter((path) => path.endsWith('.md') && readable(join(ROOT, path)));

function readable(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}

describe('money shown to a person', () => {
  it('finds minor units written as major ones', () => {
    expect(amountsNotInMajorUnits('12500 LYD, 12.500 LYD, 1,000.00 LYD, 5 USD, 0.05 EUR')).toEqual([
      '12500 LYD',
      '1,000.00 LYD',
      '5 USD',
    ]);
  });

  it.each(markdown)('%s writes every amount in major units', (path) => {
    expect(amountsNotInMajorUnits(readFileSync(join(ROOT, path), 'utf8'))).toEqual([]);
  });

  it("an example's comment on minor units says what the formatter says", () => {
    for (const path of markdown) {
      const text = readFileSync(join(ROOT, path), 'utf8');
      for (const [, minor, major] of text.matchAll(/amount: (\d+),? *\/\/ minor units: ([\d,.]+ [A-Z]{3})/g)) {
        expect(`${path}: ${major}`).toBe(`${path}: ${formatMoney(Number(minor), major!.slice(-3))}`);
      }
    }
  });
});
