import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortBase } from '../support/free-ports';

const ROOT = join(__dirname, '..', '..');

interface CollectedSpan {
  traceId: string;
  name: string;
  attributes: Record<string, unknown>;
}

/** A tiny OTLP/HTTP receiver: the JSON encoding the exporter sends to <endpoint>/v1/traces. */
function startReceiver(): Promise<{ server: Server; url: string; spans: CollectedSpan[]; paths: string[] }> {
  const spans: CollectedSpan[] = [];
  const paths: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      paths.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      const payload = JSON.parse(body) as {
        resourceSpans: Array<{
          scopeSpans: Array<{
            spans: Array<{
              traceId: string;
              name: string;
              attributes?: Array<{ key: string; value: Record<string, unknown> }>;
            }>;
          }>;
        }>;
      };
      for (const resource of payload.resourceSpans)
        for (const scope of resource.scopeSpans)
          for (const span of scope.spans) {
            const attributes = Object.fromEntries(
              (span.attributes ?? []).map((attribute) => [attribute.key, Object.values(attribute.value)[0]]),
            );
            spans.push({ traceId: span.traceId, name: span.name, attributes });
          }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, paths }),
    ),
  );
}

async function eventually<T>(check: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * `npm start` with OTEL_EXPORTER_OTLP_ENDPOINT set, as a process of its own (instrumentation
 * hooks the real module loader, which jest replaces), exporting to a receiver in this test.
 */
describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-tracing-'));
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let child: ChildProcess | undefined;
  let stdout = '';
  let stderr = '';

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    receiver?.server.closeAllConnections();
    await new Promise((resolve) => receiver?.server.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('follows one payment in one trace across rest-compat, router, payments and the bank core, with the request id, and logs JSON only on stdout', async () => {
    receiver = await startReceiver();
    child = spawn(process.execPath, ['-r', './scripts/register.js', 'platform/src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: dataDir,
        REST_PORT: '0',
        ROUTER_PORT: '0',
        SANDBOX_PORT_BASE: String(await freePortBase()),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const lines = () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, any>);
    const ready = await eventually(
      () => lines().find((line) => line.step === 'ready'),
      `the ready line\n${stdout}\n${stderr}`,
      90_000,
    );

    // Start-up progress, each step said as it starts, on stdout as JSON; the banner on stderr.
    const steps = new Set(lines().map((line) => line.step));
    for (const step of ['database', 'migrations', 'composition', 'seeding', 'ready']) expect(steps).toContain(step);
    expect(lines().find((line) => line.step === 'database')!.msg).toMatch(/^opening the embedded database/);
    expect(stderr).toContain('Payment gateway is running');
    expect(stdout).not.toContain('Payment gateway is running');
    expect(stdout).not.toMatch(/adm_|mk_test_|mk_live_/);

    const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'));
    const payer = demo.customers.find((customer: any) => customer.bank_handle === 'oasis');
    const payee = demo.customers.find((customer: any) => customer.bank_handle === 'atlas');
    const created = await fetch(`${ready.rest_url}/payments/sessions`, {
      method: 'POST',
      // The live demo merchant: a live payment is the one whose trace reaches the (sandbox) bank's core.
      headers: { authorization: `Bearer ${demo.live_merchant.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1_500, currency: 'LYD', destination: { type: 'alias', value: payee.alias } }),
    });
    const session = (await created.json()) as { session_id: string };
    const paid = await fetch(`${ready.rest_url}/pay/${session.session_id}/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payer: { type: 'alias', value: payer.alias }, otp: payer.otp }),
    });
    expect(paid.status).toBe(200);
    const requestId = paid.headers.get('x-request-id')!;
    expect(requestId).toMatch(/^req_/);

    const tagged = (service: string) => (span: CollectedSpan) =>
      span.attributes['gateway.service'] === service && span.attributes['gateway.request_id'] === requestId;
    const trace = await eventually(() => {
      const front = receiver.spans.find(tagged('rest-compat'));
      if (!front) return undefined;
      const inTrace = receiver.spans.filter((span) => span.traceId === front.traceId);
      const complete =
        ['router', 'payments'].every((service) => inTrace.some(tagged(service))) &&
        inTrace.some((span) => span.name === 'bank-core debit');
      return complete ? inTrace : undefined;
    }, 'the payment trace');

    // One trace id from the REST call to the bank core, every hop tagged with the one request id.
    const debit = trace.find((span) => span.name === 'bank-core debit')!;
    expect(debit.attributes).toMatchObject({
      'gateway.request_id': requestId,
      'gateway.bank': payer.bank_handle,
      'gateway.bank_core.operation': 'debit',
    });
    expect(trace.find((span) => span.name === 'bank-core verifyCustomer')?.attributes['gateway.request_id']).toBe(
      requestId,
    );
    // The HTTP call to the core itself (undici), and the core's own server span, in the same trace.
    expect(trace.some((span) => String(span.attributes['url.full'] ?? '').endsWith('/accounts/debit'))).toBe(true);
    expect(receiver.paths[0]).toMatch(/^POST \/v1\/traces application\/json/);
    // Every stdout line was JSON (lines() would have thrown otherwise), and all carry a level.
    expect(lines().every((line) => typeof line.level === 'number')).toBe(true);
  }, 150_000);
});
