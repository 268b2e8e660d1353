import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAPROXY_BINARY, haproxyConfig, haproxyInstalled } from '../../scripts/cluster/haproxy';

const services = [
  {
    name: 'payments',
    frontendPort: 20001,
    servers: [
      { name: 'payments-1', port: 20011 },
      { name: 'payments-2', port: 20012 },
    ],
  },
  {
    name: 'rest-compat',
    frontendPort: 20002,
    servers: [{ name: 'rest-compat-1', port: 20021 }],
    public: true,
    deduplicatedPaths: ['/payments/sessions', '/recurring/mandates/{mandate_id}/charge'],
  },
];
const config = haproxyConfig(services, 20000, { intervalMs: 1000, fall: 2, rise: 2 });
const section = (header: string) => config.split('\n\n').find((block) => block.startsWith(header)) ?? '';

describe('the cluster HAProxy configuration', () => {
  it('health-checks every instance on GET /readyz', () => {
    const backend = section('backend payments\n');
    expect(backend).toContain('option httpchk GET /readyz');
    expect(backend).toMatch(
      /server payments-1 127\.0\.0\.1:20011 check\n\s+server payments-2 127\.0\.0\.1:20012 check/,
    );
    expect(config).toMatch(/default-server inter 1000ms fall 2 rise 2/);
    expect(config).toContain('option redispatch 1');
  });

  // Their behaviour, with HAProxy running: haproxy-retries.e2e.ts.
  it('behind an internal frontend, replays a request that may have reached an instance only when it is GET/HEAD', () => {
    const backend = section('backend payments\n');
    expect(backend).toMatch(/retry-on conn-failure empty-response 503$/m);
    expect(backend).toContain('http-request disable-l7-retry unless METH_GET\n');
    expect(backend).not.toContain('idempotency');
  });

  it('also replays a POST with Idempotency-Key on the public paths that deduplicate it', () => {
    const backend = section('backend rest-compat\n');
    expect(backend).toContain('acl idempotency_key req.hdr(idempotency-key) -m found');
    expect(backend).toContain('acl deduplicated_path path_reg ^(/payments/sessions|/recurring/mandates/[^/]+/charge)$');
    expect(backend).toContain(
      'http-request disable-l7-retry unless METH_GET || METH_POST idempotency_key deduplicated_path',
    );
  });

  it('refuses the framed channel on every frontend, so calls stay balanced per request', () => {
    for (const frontend of ['frontend rest-compat_in\n', 'frontend payments_in\n'])
      expect(section(frontend)).toContain(
        'http-request deny deny_status 400 if { req.hdr(upgrade) -i gateway-frames.v1 }',
      );
  });

  it('adds X-Forwarded-For only on the public frontend', () => {
    expect(section('frontend rest-compat_in\n')).toContain('option forwardfor');
    expect(section('frontend payments_in\n')).not.toContain('forwardfor');
  });

  // CI installs Debian's haproxy (.ci/run): there the configuration must be one HAProxy accepts.
  (haproxyInstalled() || process.env.CI === 'true' ? it : it.skip)('is accepted by haproxy -c', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-haproxy-'));
    try {
      writeFileSync(join(dir, 'haproxy.cfg'), config);
      expect(() =>
        execFileSync(HAPROXY_BINARY, ['-c', '-q', '-f', join(dir, 'haproxy.cfg')], { stdio: 'pipe' }),
      ).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
