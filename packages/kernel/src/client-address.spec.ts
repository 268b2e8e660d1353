import { clientKeyOf } from './client-address';

describe('clientKeyOf', () => {
  it('keys IPv4 by address, an IPv4 inside IPv6 as that IPv4', () => {
    expect(clientKeyOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('keys IPv6 by its /64', () => {
    expect(clientKeyOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKeyOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientKeyOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('counts anything unreadable as one client', () => {
    for (const ip of [null, undefined, '', 'not-an-ip']) expect(clientKeyOf(ip)).toBe('unknown');
  });
});
