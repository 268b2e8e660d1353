import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, type CliIo } from '@gateway/cli';
import { formatMoney, webhooks, type WebhookEvent } from '@gateway/sdk';
import { MINOR_UNITS_BESIDE_A_CODE } from '../support/money';
import { eventually, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver } from '../support/webhook-receiver';

/** A CLI run's output, captured. */
interface Captured extends CliIo {
  lines: string[];
  errors: string[];
}

/**
 * The `gateway` CLI against a running platform, as a merchant uses it on a laptop: login keeps a
 * test key (a live one only when asked), `listen --forward-to` follows the events API and POSTs each
 * event to a local server signed with the secret it printed, `trigger` produces the event for real
 * with the right test payer, `events list|resend` and `sessions list|get` read what happened.
 */
describe('gateway CLI', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  let dir: string;
  let apiKey: string;
  let receiver: { server: Server; url: string; received: Array<{ event: WebhookEvent | null; error: string | null }> };
  let secret: () => Promise<string>;

  const io = (signal?: AbortSignal): Captured => {
    const lines: string[] = [];
    const errors: string[] = [];
    return {
      lines,
      errors,
      out: (text) => lines.push(...text.split('\n')),
      err: (text) => errors.push(text),
      interactive: false,
      env: { GATEWAY_CONFIG: join(dir, 'config.json'), GATEWAY_BASE_URL: t.platform.restUrl },
      signal,
    };
  };
  const gateway = async (...argv: string[]) => {
    const captured = io();
    const code = await run(argv, captured);
    return { code, ...captured };
  };

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    bank = await startPaymentBank(t);
    const settlement = await bank.customer();
    ({ apiKey } = await t.seed.createMerchant({ mode: 'test', settlement_iban: settlement.iban }));
    dir = await mkdtemp(join(tmpdir(), 'gateway-cli-'));
    secret = async () => JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')).forward_secret;
    const received: Array<{ event: WebhookEvent | null; error: string | null }> = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        try {
          received.push({
            event: webhooks.verify(Buffer.concat(chunks), request.headers, await secret()),
            error: null,
          });
          response.writeHead(200).end('ok');
        } catch (error) {
          received.push({ event: null, error: (error as Error).message });
          response.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, received };
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver?.server.close(resolve));
    await bank?.sandbox.stop();
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('login keeps a test key in a file only the user reads, and refuses a live key unless asked', async () => {
    const live = await gateway('login', '--api-key', 'mk_live_abc');
    expect(live.code).toBe(2);
    expect(live.errors.join('\n')).toContain('--live');

    const wrong = await gateway('login', '--api-key', 'mk_test_wrong');
    expect(wrong.code).toBe(1);
    expect(wrong.errors.join('\n')).toContain('INVALID_API_KEY');

    const ok = await gateway('login', '--api-key', apiKey, '--bank', bank.handle, '--json');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.lines[0]!)).toMatchObject({ mode: 'test', bank: bank.handle });
    const file = join(dir, 'config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ api_key: apiKey, bank: bank.handle });
  });

  it('listen + trigger payment.completed delivers a verified event to a local server', async () => {
    const stop = new AbortController();
    const listening = io(stop.signal);
    const running = run(['listen', '--forward-to', receiver.url, '--poll-ms', '200'], listening);
    await eventually(async () => listening.lines.find((line) => line.includes('whsec_')), 'listen ready');
    expect(listening.lines.join('\n')).toContain(await secret());

    const triggered = await gateway('trigger', 'payment.completed', '--json');
    expect(triggered.code).toBe(0);
    const { session_id: sessionId, status } = JSON.parse(triggered.lines[0]!);
    expect(status).toBe('COMPLETED');

    const delivered = await eventually(
      async () =>
        receiver.received.find(
          (entry) => entry.event?.event === 'payment.completed' && entry.event.data.session_id === sessionId,
        ),
      'payment.completed forwarded',
    );
    expect(delivered.event).toMatchObject({
      event: 'payment.completed',
      livemode: false,
      data: { session_id: sessionId },
    });
    await eventually(async () => listening.lines.find((line) => line.includes('<-- [200]')), 'listen shows the answer');
    stop.abort();
    expect(await running).toBe(0);
    expect(receiver.received.filter((entry) => entry.error)).toEqual([]);
  });

  it('triggers a failed payment and a refund, lists them, and resends an event to a local URL', async () => {
    const failed = await gateway('trigger', 'payment.failed', '--json');
    expect(failed.code).toBe(0);
    expect(JSON.parse(failed.lines[0]!)).toMatchObject({ status: 'FAILED' });

    const refunded = await gateway('trigger', 'refund.completed', '--json');
    expect(refunded.code).toBe(0);
    expect(JSON.parse(refunded.lines[0]!)).toMatchObject({
      refund_id: expect.stringMatching(/^rfd_/),
      refund_status: 'COMPLETED',
    });

    const events = await eventually(async () => {
      const listed = await gateway('events', 'list', '--type', 'payment.failed', '--json');
      const page = JSON.parse(listed.lines[0]!);
      return page.events.length > 0 ? page.events : undefined;
    }, 'payment.failed in the events API');
    expect(events[0]).toMatchObject({ event: 'payment.failed', livemode: false });

    const before = receiver.received.length;
    const resent = await gateway('events', 'resend', events[0].id, '--forward-to', receiver.url);
    expect(resent.code).toBe(0);
    expect(receiver.received.slice(before).map((entry) => entry.event?.id)).toEqual([events[0].id]);

    const sessions = await gateway('sessions', 'list', '--json');
    const listed = JSON.parse(sessions.lines[0]!).sessions;
    expect(listed.map((session: { status: string }) => session.status)).toEqual(
      expect.arrayContaining(['COMPLETED', 'FAILED']),
    );
    // What a person reads: major units with the currency, never minor units beside a code.
    const table = await gateway('sessions', 'list');
    const row = table.lines.find((line) => line.startsWith(listed[0].session_id))!;
    expect(row).toContain(formatMoney(listed[0].amount, listed[0].currency));
    expect(table.lines.join('\n')).not.toMatch(MINOR_UNITS_BESIDE_A_CODE);
    const one = await gateway('sessions', 'get', listed[0].session_id);
    expect(one.lines).toContain(`session_id: ${listed[0].session_id}`);
  });

  it("resends an event to an endpoint it reached already by retrying that delivery, whatever the endpoint's age", async () => {
    const endpoint = await startTestReceiver();
    try {
      const created = await t.rest('POST', '/webhooks/endpoints', {
        headers: { authorization: `Bearer ${apiKey}` },
        body: { url: endpoint.url, enabled_events: ['payment.failed'] },
      });
      expect(created.status).toBe(201);
      const endpointId = created.body.endpoint_id as string;
      // Older than a day: a replay no longer sends it an event it got (issue 46); the retry does.
      await t.platform.db
        .knex('payments.webhook_endpoints')
        .where({ id: endpointId })
        .update({ created_at: new Date(Date.now() - 2 * 86_400_000) });
      expect((await gateway('trigger', 'payment.failed')).code).toBe(0);
      const first = await endpoint.waitFor(() => true, 'payment.failed at the endpoint');
      await eventually(async () => {
        const shown = await t.rest('GET', `/events/${first.envelope.id}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        const delivery = shown.body.deliveries?.find((one: { endpoint_id: string }) => one.endpoint_id === endpointId);
        return delivery?.status === 'DELIVERED' ? true : undefined;
      }, 'the delivery recorded');
      const resent = await gateway('events', 'resend', first.envelope.id, '--endpoint', endpointId);
      expect(resent.code).toBe(0);
      expect(resent.lines.join('\n')).toMatch(/\(delivery whd_\w+ queued\)/);
      const again = await endpoint.waitFor((w) => endpoint.received.indexOf(w) >= 1, 'the resent event');
      expect(again.envelope.id).toBe(first.envelope.id);
    } finally {
      await endpoint.stop();
    }
  });

  it('says what is wrong with a command line (exit 2) and never sends a live key to trigger', async () => {
    expect((await gateway('trigger', 'payment.unknown')).code).toBe(2);
    expect((await gateway('listen')).code).toBe(2);
    expect((await gateway('frobnicate')).code).toBe(2);
    const help = await gateway('--help');
    expect(help.lines.join('\n')).toContain('gateway listen --forward-to URL');
  });
});
