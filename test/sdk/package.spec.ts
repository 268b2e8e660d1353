import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
const SDK = join(ROOT, 'packages', 'sdk');
const run = promisify(execFile);

/**
 * The package as published (packages/sdk/build.ts): plain CommonJS with declarations, loadable by
 * Node without this repository's TypeScript hooks, importing nothing of the platform, and typed
 * for a strict consumer from the built declarations alone.
 */
describe('@gateway/sdk as published', () => {
  let out: string;
  beforeAll(async () => {
    mkdirSync(join(SDK, 'dist'), { recursive: true });
    // Inside packages/sdk so that its dependencies (openapi-fetch) resolve as they would once installed.
    out = mkdtempSync(join(SDK, 'dist', 'check-'));
    await run(process.execPath, ['-r', '../../scripts/register.js', 'build.ts', '--out', out], { cwd: SDK });
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('has a manifest pointing at the built files, with only its own runtime dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@gateway/sdk', main: 'index.js', types: 'index.d.ts' });
    expect(manifest.scripts).toBeUndefined();
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['openapi-fetch', 'openapi-typescript-helpers']);
    for (const version of Object.values<string>(manifest.dependencies)) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    const files = readdirSync(out, { recursive: true }).map(String);
    expect(files).toEqual(
      expect.arrayContaining(['index.js', 'index.d.ts', 'README.md', join('generated', 'schema.d.ts')]),
    );
    expect(files.some((file) => file.endsWith('.spec.js'))).toBe(false);
    for (const file of files.filter((name) => name.endsWith('.js')))
      expect(readFileSync(join(out, file), 'utf8')).not.toMatch(/require\("@gateway\//);
  });

  it('loads in plain Node, signs and verifies a webhook, and builds a client', async () => {
    const script = `
      const sdk = require(${JSON.stringify(out)});
      const body = JSON.stringify({ id: 'evt_1', event: 'payment.completed', created_at: new Date().toISOString(), livemode: false, data: {} });
      const headers = sdk.webhooks.sign(body, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { id: 'evt_1' });
      const event = sdk.webhooks.verify(body, headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
      const client = new sdk.GatewayClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'mk_test_x' });
      const money = require(${JSON.stringify(join(out, 'money.js'))}).formatMoney(12500, 'LYD');
      console.log(JSON.stringify({ event: event.event, get: typeof client.get, paginate: typeof client.paginate, money }));
    `;
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: SDK });
    expect(JSON.parse(stdout)).toEqual({
      event: 'payment.completed',
      get: 'function',
      paginate: 'function',
      money: '12.500 LYD',
    });
  }, 30_000);

  it('type-checks a strict consumer against the built declarations', async () => {
    const consumer = join(out, 'consumer');
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, 'shop.ts'),
      `import { GatewayApiError, GatewayClient, webhooks, type WebhookEvent } from '..';
       export async function pay(gateway: GatewayClient, rawBody: string, headers: Record<string, string>) {
         const session = await gateway.post('/payments/sessions', {
           body: { amount: 1500, currency: 'LYD', destination: { type: 'alias', value: 'shop' } },
         });
         const url: string = session.checkout_url;
         for await (const item of gateway.paginate('/payments/sessions')) void item.session_id;
         try { await gateway.get('/payments/sessions/{session_id}', { params: { path: { session_id: 'ops_x' } } }); }
         catch (error) { if (error instanceof GatewayApiError && error.code === 'SESSION_NOT_FOUND') void error.requestId; }
         await gateway.post('/payments/sessions/{session_id}/refunds', { params: { path: { session_id: session.session_id } }, body: { amount: 500, reason: 'returned' } });
         const event: WebhookEvent = webhooks.verify(rawBody, headers, 'whsec_x');
         // @ts-expect-error amount is an integer of minor units
         await gateway.post('/payments/sessions', { body: { amount: '15', currency: 'LYD', destination: { type: 'alias', value: 's' } } });
         return [url, event.id];
       }`,
    );
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'commonjs',
          types: ['node'],
          lib: ['ES2023', 'DOM'],
        },
        files: ['shop.ts'],
      }),
    );
    const tsc = require.resolve('typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', consumer], { cwd: consumer }).catch(
      (failure: { stdout?: string }) => failure,
    );
    expect(result.stdout).toBe('');
  }, 120_000);
});
