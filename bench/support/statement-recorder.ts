/**
 * Preloaded into a platform process by bench/payment-floor.ts (`-r`): records the SQL statements
 * the process sends to PostgreSQL while asked to (each `query` of the `pg` driver, BEGIN and
 * COMMIT included), with their parameter values as the driver sends them and the connection that
 * sent each, so that the same statements can be sent again without the platform around them.
 * POST /start on 127.0.0.1:BENCH_RECORDER_PORT starts a recording, POST /stop answers it as JSON.
 * Measurement only: nothing in the product loads it.
 */
import { createServer } from 'node:http';

/** One statement as the driver sent it; `connection` numbers the pg client that sent it. */
export interface RecordedStatement {
  connection: number;
  text: string;
  values: Array<string | null>;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the driver as knex loads it, to patch it before first use
const pg = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the driver's own conversion of a parameter to its wire text
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

const connections = new WeakMap<object, number>();
let numbered = 0;
let recording: RecordedStatement[] | null = null;

/** A parameter as text, as the driver puts it on the wire (bytea as PostgreSQL's hex form). */
const wire = (value: unknown): string | null => {
  const prepared = prepareValue(value);
  if (prepared === null || prepared === undefined) return null;
  return Buffer.isBuffer(prepared) ? `\\x${prepared.toString('hex')}` : String(prepared);
};

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function recordedQuery(this: object, ...args: unknown[]) {
  if (recording) {
    const [config, second] = args;
    const text = typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '');
    const values =
      typeof config === 'string'
        ? Array.isArray(second)
          ? second
          : []
        : ((config as { values?: unknown[] } | undefined)?.values ?? []);
    if (!connections.has(this)) connections.set(this, (numbered += 1));
    if (text) recording.push({ connection: connections.get(this)!, text, values: values.map(wire) });
  }
  return query.apply(this, args);
};

const port = Number(process.env.BENCH_RECORDER_PORT);
if (port) {
  createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    if (request.url === '/start') {
      recording = [];
      response.end('{}');
    } else {
      const recorded = recording ?? [];
      recording = null;
      response.end(JSON.stringify(recorded));
    }
  })
    .listen(port, '127.0.0.1')
    .unref();
}
