import { z } from 'zod';
import { parseInput } from './validation';
import { isPrivateNetworkHost, webhookUrlRule } from './webhook-url';

const check = (production: boolean, webhookUrl: string) => {
  try {
    return parseInput(z.object({ webhookUrl: webhookUrlRule(production) }), { webhookUrl }).webhookUrl;
  } catch (error) {
    return (error as { detail: string }).detail;
  }
};

describe('webhook URL rule', () => {
  it.each([
    'localhost',
    'LOCALHOST.',
    'api.localhost',
    '127.0.0.1',
    '127.255.0.9',
    '0.0.0.0',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.10',
    '169.254.169.254',
    '[::1]',
    '[::]',
    '[fc00::1]',
    '[fd12:3456::1]',
    '[fe80::1]',
    '[::ffff:7f00:1]',
    '[::ffff:a00:1]',
  ])('treats %s as a private-network host', (host) => {
    expect(isPrivateNetworkHost(host)).toBe(true);
  });

  it.each(['hooks.example.com', '8.8.8.8', '172.15.255.255', '172.32.0.1', '192.169.0.1', '169.255.0.1', '[2001:db8::1]', '[fbff::1]', 'localhost.example.com'])(
    'treats %s as a public host',
    (host) => {
      expect(isPrivateNetworkHost(host)).toBe(false);
    },
  );

  it('refuses private targets in production, however the address is spelled', () => {
    // WHATWG URL parsing canonicalises these to 127.0.0.1 / ::ffff:7f00:1 before the check.
    for (const url of [
      'https://127.0.0.1/hook',
      'https://2130706433/hook',
      'https://0x7f.1/hook',
      'https://127.1/hook',
      'https://[0:0:0:0:0:0:0:1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://localhost:8443/',
    ]) {
      expect(check(true, url)).toBe('webhook_url: must not point to a loopback, private or link-local address in production mode');
    }
  });

  it('requires https in production and http(s) in development', () => {
    expect(check(true, 'http://hooks.example.com/x')).toBe('webhook_url: must be an https URL');
    expect(check(true, 'https://hooks.example.com/x')).toBe('https://hooks.example.com/x');
    expect(check(false, 'http://127.0.0.1:9000/x')).toBe('http://127.0.0.1:9000/x');
    expect(check(false, 'ftp://hooks.example.com/x')).toBe('webhook_url: must be an http(s) URL');
    expect(check(false, 'not a url')).toBe('webhook_url: must be an http(s) URL');
    expect(check(false, `https://hooks.example.com/${'a'.repeat(2048)}`)).toMatch(/^webhook_url: /);
  });

  it('stores the URL without surrounding whitespace', () => {
    expect(check(false, '  https://hooks.example.com/x \n')).toBe('https://hooks.example.com/x');
  });
});
