import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventFilter } from './commands/listen';
import { baseUrlProblem, configPath, keyProblem, newForwardSecret, readConfig, writeConfig } from './config';
import { envelopeOf } from './forward';
import { table } from './io';
import { run } from './main';

describe('gateway CLI pieces', () => {
  it('keeps test keys, and a live key only when asked', () => {
    expect(keyProblem('mk_test_abc', false)).toBeNull();
    expect(keyProblem('mk_live_abc', false)).toContain('--live');
    expect(keyProblem('mk_live_abc', true)).toBeNull();
    expect(keyProblem('tpk_abc', true)).toContain('mk_test_');
  });

  it('finds the profile in GATEWAY_CONFIG, XDG_CONFIG_HOME or ~/.config, and writes it for the user only', async () => {
    expect(configPath({ GATEWAY_CONFIG: '/x/c.json' })).toBe('/x/c.json');
    expect(configPath({ XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/gateway/config.json');
    expect(configPath({})).toMatch(/\.config\/gateway\/config\.json$/);
    const dir = await mkdtemp(join(tmpdir(), 'cli-spec-'));
    const file = join(dir, 'nested', 'config.json');
    expect(await readConfig(file)).toEqual({});
    await writeConfig(file, { api_key: 'mk_test_x' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readConfig(file)).toEqual({ api_key: 'mk_test_x' });
    await rm(dir, { recursive: true });
  });

  it('makes Standard Webhooks secrets', () => {
    const secret = newForwardSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  });

  it('filters event names by exact name or prefix.*', () => {
    const wanted = eventFilter('payment.*, refund.completed');
    expect(
      ['payment.completed', 'payment.failed', 'refund.completed', 'refund.failed', 'mandate.activated'].filter(wanted),
    ).toEqual(['payment.completed', 'payment.failed', 'refund.completed']);
    expect(eventFilter(undefined)('anything')).toBe(true);
    expect(eventFilter('*')('anything')).toBe(true);
  });

  it('forwards the webhook envelope and nothing the events API adds', () => {
    const body = JSON.parse(
      envelopeOf({
        id: 'evt_1',
        event: 'payment.completed',
        created_at: '2026-11-26T00:00:00.000Z',
        livemode: false,
        sequence: 2,
        data: { session_id: 'ops_1' },
        deliveries: [],
      } as never),
    );
    expect(Object.keys(body)).toEqual(['id', 'event', 'created_at', 'livemode', 'sequence', 'data']);
  });

  it('pads tables', () => {
    expect(
      table([
        ['A', 'BB'],
        ['ccc', 'd'],
      ]),
    ).toBe('A    BB\nccc  d');
  });

  it('sends the API key over plain http to this machine only (issue 46)', async () => {
    for (const local of [
      'http://localhost:8080',
      'http://127.0.0.1:8080',
      'http://127.4.5.6',
      'http://[::1]:8080',
      'https://pay.example.ly',
      'https://10.0.0.5',
    ])
      expect(baseUrlProblem(local)).toBeNull();
    expect(baseUrlProblem('http://pay.example.ly:8080')).toBe(
      'refusing to send the API key over plain http to pay.example.ly:8080: use --base-url https://pay.example.ly:8080 (plain http only to localhost, 127.0.0.0/8 or [::1])',
    );
    for (const remote of ['http://10.0.0.5', 'http://128.0.0.1', 'http://localhost.evil.example', 'http://[::2]'])
      expect(baseUrlProblem(remote)).toMatch(
        /^refusing to send the API key over plain http to .*: use --base-url https:/,
      );
    expect(baseUrlProblem('ftp://pay.example.ly')).toMatch(/not http\(s\)/);
    expect(baseUrlProblem('pay.example.ly')).toMatch(/not a URL/);

    // Before: the key went out in clear (the request below would have reached the host). Now: exit 2, one line, nothing sent.
    const errors: string[] = [];
    const io = {
      out: () => undefined,
      err: (text: string) => errors.push(text),
      interactive: false,
      env: { GATEWAY_CONFIG: '/nonexistent/c.json', GATEWAY_API_KEY: 'mk_test_abc' },
    };
    const sent = jest.spyOn(globalThis, 'fetch');
    expect(await run(['sessions', 'list', '--base-url', 'http://192.0.2.10:8080'], io)).toBe(2);
    expect(await run(['login', '--base-url', 'http://192.0.2.10:8080'], io)).toBe(2);
    expect(sent).not.toHaveBeenCalled();
    sent.mockRestore();
    expect(errors).toEqual([
      expect.stringMatching(
        /^gateway: refusing to send the API key over plain http to 192\.0\.2\.10:8080: use --base-url https:\/\/192\.0\.2\.10:8080 /,
      ),
      expect.stringMatching(/^gateway: refusing to send the API key over plain http to 192\.0\.2\.10:8080/),
    ]);
    expect(errors.every((line) => !line.includes('\n'))).toBe(true);
  });

  it('answers usage mistakes with exit code 2 and a message', async () => {
    const errors: string[] = [];
    const io = {
      out: () => undefined,
      err: (text: string) => errors.push(text),
      interactive: false,
      env: { GATEWAY_CONFIG: '/nonexistent/c.json' },
    };
    expect(await run(['--nope'], io)).toBe(2);
    expect(await run(['sessions', 'list'], io)).toBe(2);
    expect(errors.join('\n')).toContain('gateway login');
  });
});
