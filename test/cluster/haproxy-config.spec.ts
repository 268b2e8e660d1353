import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haproxyConfig } from '../../scripts/cluster/haproxy';

const services = [
  {
    name: 'payments',
    frontendPort: 20001,
    servers: [
      { name: 'payments-1', port: 20011 },
      { name: 'payments-2', port: 20012 },
    ],
  },
  { name: 'rest-compat', frontendPort: 20002, servers: [{ name: 'rest-compat-1', port: 20021 }], public: true },
];
const config = haproxyConfig(services, 20000, { intervalMs: 1000, fall: 2, rise: 2 });
const section = (header: string) => config.split('\n\n').find((block) => block.startsWith(header)) ?? '';

const haproxyInstalled = (() => {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('the cluster HAProxy configuration', () => {
  it('health-checks every instance on GET /readyz and sends writes elsewhere only when they never reached one', () => {
    const backend = section('backend payments\n');
    expect(backend).toContain('option httpchk GET /readyz');
    expect(backend).toMatch(/server payments-1 127\.0\.0\.1:20011 check\n\s+server payments-2 127\.0\.0\.1:20012 check/);
    // A POST answered 503 may have done its work: never sent again.
    expect(backend).toMatch(/retry-on conn-failure empty-response$/m);
    expect(config).toMatch(/default-server inter 1000ms fall 2 rise 2/);
    expect(config).toContain('option redispatch 1');
  });

  it('retries reads on a 503 with the same servers, following their health', () => {
    expect(section('frontend payments_in\n')).toContain('use_backend payments_reads if METH_GET');
    const reads = section('backend payments_reads\n');
    expect(reads).toContain('retry-on conn-failure empty-response 503');
    expect(reads).toContain('server payments-2 127.0.0.1:20012 track payments/payments-2');
  });

  it('adds X-Forwarded-For only on the public frontend', () => {
    expect(section('frontend rest-compat_in\n')).toContain('option forwardfor');
    expect(section('frontend payments_in\n')).not.toContain('forwardfor');
  });

  // CI installs Debian's haproxy (.ci/run): there the configuration must be one HAProxy accepts.
  (haproxyInstalled || process.env.CI === 'true' ? it : it.skip)('is accepted by haproxy -c', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-haproxy-'));
    try {
      writeFileSync(join(dir, 'haproxy.cfg'), config);
      expect(() => execFileSync('haproxy', ['-c', '-q', '-f', join(dir, 'haproxy.cfg')], { stdio: 'pipe' })).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
