import { createHmac } from 'node:crypto';
import { nextAttemptAt, DEFAULT_RETRY_SCHEDULE_SECONDS } from './retry-schedule';
import { serializeEnvelope, signedHeaders, standardWebhooksKey } from './signature';
import { createWebhookSender } from './webhook-sender';
import { deliveryTargetProblem } from './webhook-target';

describe('webhook signing', () => {
  const secret = 'whsec_0123456789ABCDEFGHIJKLMNOPQRSTUV';
  const body = serializeEnvelope({
    id: 'evt_1',
    event: 'payment.completed',
    created_at: '2026-01-01T00:00:00.000Z',
    livemode: true,
    data: { session_id: 'ops_1' },
  });
  const now = new Date('2026-01-02T03:04:05.678Z');
  const headers = signedHeaders(body, 'evt_1', secret, now);

  it('signs the raw body as the spec says: sha256= and the lowercase hex HMAC-SHA256', () => {
    expect(headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    expect(headers['x-service-event-id']).toBe('evt_1');
    expect(headers['x-service-timestamp']).toBe('2026-01-02T03:04:05.678Z');
  });

  it('adds the Standard Webhooks headers: v1,<base64 HMAC of id.timestamp.body> keyed with the base64 part of whsec_', () => {
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(standardWebhooksKey(secret)).toEqual(key);
    expect(headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', key).update(`evt_1.${headers['webhook-timestamp']}.${body}`).digest('base64')}`,
    );
  });

  it('serialises the envelope with exactly id, event, created_at, livemode, data', () => {
    expect(Object.keys(JSON.parse(body))).toEqual(['id', 'event', 'created_at', 'livemode', 'data']);
  });
});

describe('retry schedule', () => {
  it('retries first within 10 seconds, grows, lasts at least 24 hours, then stops', () => {
    const now = new Date(0);
    const first = nextAttemptAt(1, DEFAULT_RETRY_SCHEDULE_SECONDS, now)!.getTime();
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(10_000);
    const pauses = DEFAULT_RETRY_SCHEDULE_SECONDS;
    for (let i = 1; i < pauses.length; i += 1) expect(pauses[i]!).toBeGreaterThan(pauses[i - 1]!);
    expect(pauses.reduce((sum, pause) => sum + pause, 0) * 0.9).toBeGreaterThanOrEqual(24 * 3600);
    expect(nextAttemptAt(pauses.length + 1, pauses, now)).toBeNull();
  });
});

describe('webhook targets', () => {
  const production = { production: true, privateTargets: false };
  const development = { production: false, privateTargets: false };
  const localReceivers = { production: false, privateTargets: true };

  it('production: https only', () => {
    expect(deliveryTargetProblem('http://shop.example/hooks', production)).toMatch(/https/);
    expect(deliveryTargetProblem('https://shop.example/hooks', production)).toBeNull();
  });

  it('every mode: a literal that is not public is refused before any connection, in one wording; PRIVATE_TARGETS opens loopback and private ones', () => {
    for (const settings of [production, development]) {
      for (const url of [
        'https://127.0.0.1/hooks',
        'https://[::ffff:10.0.0.1]/hooks',
        'https://169.254.169.254/latest',
        'https://100.100.100.200/',
        'https://localhost:1/',
      ]) {
        expect(deliveryTargetProblem(url, settings)).toBe('target refused: not a public address');
      }
    }
    expect(deliveryTargetProblem('http://127.0.0.1:9000/hooks', localReceivers)).toBeNull();
    expect(deliveryTargetProblem('http://100.100.100.200/hooks', localReceivers)).toBe(
      'target refused: not a public address',
    );
  });

  it('every mode: a name that resolves to an address the policy refuses is refused at connection time, and nothing is sent', async () => {
    const { createServer } = await import('node:http');
    let reached = 0;
    const server = createServer((_request, response) => {
      reached += 1;
      response.end();
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const port = (server.address() as { port: number }).port;
    const sender = createWebhookSender({ policy: { privateTargets: false }, timeoutMs: 2000 });
    const outcome = await sender.post(`http://localhost:${port}/hooks`, '{}', { 'content-type': 'application/json' });
    const opened = createWebhookSender({ policy: { privateTargets: true }, timeoutMs: 2000 });
    const allowed = await opened.post(`http://localhost:${port}/hooks`, '{}', { 'content-type': 'application/json' });
    await sender.close();
    await opened.close();
    server.close();
    expect(outcome).toEqual({ error: 'target refused: not a public address', durationMs: expect.any(Number) });
    expect(allowed.statusCode).toBe(200);
    expect(reached).toBe(1);
  });

  it('development: a receiver that does not answer in time is a timeout, not a hang', async () => {
    const { createServer } = await import('node:http');
    const server = createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const sender = createWebhookSender({ policy: { privateTargets: true }, timeoutMs: 300 });
    const outcome = await sender.post(`http://127.0.0.1:${(server.address() as { port: number }).port}/`, '{}', {});
    await sender.close();
    server.closeAllConnections();
    server.close();
    expect(outcome).toMatchObject({ error: 'no answer within 300 ms' });
  });
});
