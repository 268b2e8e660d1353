import {
  addressScope,
  egressPolicyFrom,
  egressEnvSchema,
  egressTargetProblem,
  hostScope,
  mayConnectTo,
  privateTargetsSet,
  PUBLIC_ADDRESS_REQUIRED,
} from './egress';
import { loadConfig } from './config';

describe('egress: the scope of an address', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.1',
    '192.169.0.1',
    '169.255.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '198.17.255.255',
    '198.20.0.1',
  ])('public IPv4 %s', (address) => expect(addressScope(address)).toBe('public'));

  it.each([
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '[2a00:1450:4001:80b::200e]',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '::ffff:8.8.8.8',
  ])('public IPv6 %s (a NAT64, 6to4 or mapped form carrying a public IPv4 is public too)', (address) =>
    expect(addressScope(address)).toBe('public'),
  );

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.253', 'link-local (next to the metadata service)'],
    ['::1', 'IPv6 loopback'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:a00:1', 'IPv4-mapped private'],
    ['::ffff:0:a00:1', 'IPv4-translated private'],
  ])('private: %s (%s)', (address) => expect(addressScope(address)).toBe('private'));

  it.each([
    ['0.0.0.0', 'this network: reaches the local host on Linux'],
    ['0.1.2.3', 'this network'],
    ['100.64.0.1', 'shared address space'],
    ['100.100.100.200', 'shared address space (a cloud metadata address)'],
    ['100.127.255.255', 'shared address space'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.1', 'documentation'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['2001::1', 'Teredo'],
    ['fec0::1', 'deprecated site-local'],
    ['100::1', 'discard-only'],
    ['4000::1', 'outside 2000::/3: not allocated'],
    ['::7f00:1', 'IPv4-compatible ::/96 (deprecated): ::127.0.0.1'],
    ['::808:808', 'IPv4-compatible ::/96 (deprecated): ::8.8.8.8'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['64:ff9b::6464:64c8', 'NAT64 of 100.100.100.200'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['64:ff9b:1::a00:1', 'local-use NAT64 prefix'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    ['2002:c612:1::1', '6to4 of 198.18.0.1'],
    ['::ffff:100.100.100.200', 'IPv4-mapped shared address space'],
    ['::ffff:198.18.0.1', 'IPv4-mapped benchmarking'],
    ['::ffff:0.0.0.0', 'IPv4-mapped this network'],
    ['169.254.169.254', 'cloud instance metadata (AWS, GCP, Azure, Oracle)'],
    ['169.254.170.2', 'ECS task credentials'],
    ['169.254.170.23', 'EKS pod identity'],
    ['fd00:ec2::254', 'AWS instance metadata over IPv6'],
    ['[fd00:ec2:0::23]', 'EKS pod identity over IPv6'],
    ['::ffff:169.254.169.254', 'IPv4-mapped cloud metadata'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped cloud metadata, in hex'],
    ['not-an-address', 'not an IP address'],
  ])('forbidden: %s (%s)', (address) => expect(addressScope(address)).toBe('forbidden'));
});

describe('egress: what may be connected to', () => {
  it('public only by default; loopback, private and link-local with PRIVATE_TARGETS; the forbidden ranges never', () => {
    const closed = { privateTargets: false };
    const open = { privateTargets: true };
    expect(mayConnectTo('8.8.8.8', closed)).toBe(true);
    expect(mayConnectTo('2606:4700:4700::1111', closed)).toBe(true);
    for (const address of ['127.0.0.1', '::1', '10.1.2.3', '192.168.0.1', 'fd00::1', '::ffff:127.0.0.1']) {
      expect(mayConnectTo(address, closed)).toBe(false);
      expect(mayConnectTo(address, open)).toBe(true);
    }
    for (const address of [
      '169.254.169.254',
      'fd00:ec2::254',
      '100.100.100.200',
      '198.18.0.1',
      '0.0.0.0',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
      '::7f00:1',
      '224.0.0.1',
    ]) {
      expect(mayConnectTo(address, open)).toBe(false);
    }
  });

  it('judges a URL hostname by itself only when it is a literal or a localhost name', () => {
    expect(hostScope('localhost')).toBe('private');
    expect(hostScope('LOCALHOST.')).toBe('private');
    expect(hostScope('api.localhost')).toBe('private');
    expect(hostScope('[::1]')).toBe('private');
    expect(hostScope('[64:ff9b::a9fe:a9fe]')).toBe('forbidden');
    expect(hostScope('8.8.8.8')).toBe('public');
    expect(hostScope('hooks.example.com')).toBeNull();
    expect(hostScope('localhost.example.com')).toBeNull();
  });
});

describe('egress: the one registration check of every URL the gateway calls', () => {
  const closed = { privateTargets: false };
  const open = { privateTargets: true };
  const problem = (url: string, policy: { privateTargets: boolean }) => egressTargetProblem(new URL(url), policy);

  it('refuses a literal host that is not public, however it is spelled, unless PRIVATE_TARGETS opens it', () => {
    for (const url of [
      'http://169.254.1.1/latest/meta-data',
      'https://10.0.0.5',
      'https://10.0.0.5:8443/core/',
      'http://127.0.0.1:9/core',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://[::1]:7001/',
      'http://[::ffff:10.0.0.5]/',
      'http://[fd12::1]/',
      'http://localhost:7001/',
      'http://core.localhost/',
    ]) {
      expect(problem(url, closed)).toBe(PUBLIC_ADDRESS_REQUIRED);
      expect(problem(url, open)).toBeNull();
    }
  });

  it('refuses cloud metadata and the reserved ranges whatever the setting', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/latest',
      'http://[::ffff:169.254.169.254]/',
      'http://100.100.100.200/latest',
      'http://0.0.0.0:7001/',
      'http://[64:ff9b::a00:5]/',
      'http://198.18.0.1/',
    ]) {
      expect(problem(url, closed)).toBe(PUBLIC_ADDRESS_REQUIRED);
      expect(problem(url, open)).toBe(PUBLIC_ADDRESS_REQUIRED);
    }
  });

  it('passes public literals and DNS names: a name is judged on what it resolves to, at every connection', () => {
    for (const url of ['https://8.8.8.8/hooks', 'https://core.bank.example/v1', 'http://localhost.example.com/']) {
      expect(problem(url, closed)).toBeNull();
    }
  });

  it('reads PRIVATE_TARGETS, and WEBHOOK_PRIVATE_TARGETS (its former name) only when PRIVATE_TARGETS is not set', () => {
    const policy = (env: Record<string, string>) => egressPolicyFrom(loadConfig(egressEnvSchema, env)).privateTargets;
    expect(policy({})).toBe(false);
    expect(policy({ PRIVATE_TARGETS: 'on' })).toBe(true);
    expect(policy({ PRIVATE_TARGETS: '0' })).toBe(false);
    expect(policy({ WEBHOOK_PRIVATE_TARGETS: '1' })).toBe(true);
    expect(policy({ WEBHOOK_PRIVATE_TARGETS: '1', PRIVATE_TARGETS: 'off' })).toBe(false);
    expect(policy({ WEBHOOK_PRIVATE_TARGETS: '0', PRIVATE_TARGETS: 'true' })).toBe(true);
    expect(() => policy({ PRIVATE_TARGETS: 'sometimes' })).toThrow(/PRIVATE_TARGETS/);
    expect([privateTargetsSet({}), privateTargetsSet({ WEBHOOK_PRIVATE_TARGETS: '0' })]).toEqual([false, true]);
  });
});
