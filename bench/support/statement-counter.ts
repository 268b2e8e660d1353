/**
 * Preloaded into a platform process by bench/statements.ts (`-r`): counts every SQL statement the
 * process sends to PostgreSQL (each `query` of the `pg` driver, BEGIN and COMMIT included: each is
 * a round trip) by its text, and answers the counts as JSON on 127.0.0.1:BENCH_STATEMENTS_PORT.
 * Measurement only: nothing in the product loads it.
 */
import { createServer } from 'node:http';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the driver as knex loads it, to patch it before first use
const pg = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };

const byText = new Map<string, number>();
let total = 0;

/**
 * The statement's text without literal values, so one statement of many payments counts as one row;
 * long enough that statements sharing a prefix (a relay's take, idle poll and lease renewal all
 * begin with the same stamping CTE) stay apart, as bench/statements.ts subtracts polling per text.
 */
const shapeOf = (text: string): string =>
  text
    .replace(/\s+/g, ' ')
    .replace(/'[^']*'/g, "'…'")
    .replace(/\b\d+\b/g, 'N')
    .trim()
    .slice(0, 1000);

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(this: unknown, ...args: unknown[]) {
  const [config] = args;
  const text = typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '?');
  const shape = shapeOf(text);
  byText.set(shape, (byText.get(shape) ?? 0) + 1);
  total += 1;
  return query.apply(this, args);
};

const port = Number(process.env.BENCH_STATEMENTS_PORT);
if (port) {
  createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ total, byText: Object.fromEntries(byText) }));
  })
    .listen(port, '127.0.0.1')
    .unref();
}
