import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventFilter } from './commands/listen';
import { configPath, keyProblem, newForwardSecret, readConfig, writeConfig } from './config';
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
