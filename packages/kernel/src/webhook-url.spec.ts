import { z } from 'zod';
import { parseInput } from './validation';
import { webhookUrlRule } from './webhook-url';

const REFUSED = 'webhook_url: must point to a public address (not loopback, private, link-local or reserved)';

const check = (production: boolean, webhookUrl: string, privateTargets = false) => {
  try {
    return parseInput(z.object({ webhookUrl: webhookUrlRule({ production, privateTargets }) }), { webhookUrl })
      .webhookUrl;
  } catch (error) {
    return (error as { detail: string }).detail;
  }
};

describe('webhook URL rule', () => {
  it('refuses non-public targets in production, however the address is spelled', () => {
    // WHATWG URL parsing canonicalises these to 127.0.0.1 / ::ffff:7f00:1 before the check.
    for (const url of [
      'https://127.0.0.1/hook',
      'https://2130706433/hook',
      'https://0x7f.1/hook',
      'https://127.1/hook',
      'https://[0:0:0:0:0:0:0:1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://localhost:8443/',
      'https://100.100.100.200/latest',
      'https://198.18.0.1/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://[2002:7f00:1::1]/',
    ]) {
      expect(check(true, url)).toBe(REFUSED);
    }
    expect(check(true, 'https://8.8.8.8/hook')).toBe('https://8.8.8.8/hook');
  });

  it('with PRIVATE_TARGETS production registers loopback and private targets, never the forbidden ranges', () => {
    expect(check(true, 'https://10.0.0.5/hook', true)).toBe('https://10.0.0.5/hook');
    expect(check(true, 'https://localhost:8443/', true)).toBe('https://localhost:8443/');
    expect(check(true, 'https://100.100.100.200/latest', true)).toBe(REFUSED);
  });

  it('development checks the host as production does: a target never called is refused at registration', () => {
    expect(check(false, 'http://127.0.0.1:9000/x')).toBe(REFUSED);
    expect(check(false, 'http://169.254.169.254/latest/meta-data')).toBe(REFUSED);
    expect(check(false, 'http://127.0.0.1:9000/x', true)).toBe('http://127.0.0.1:9000/x');
    expect(check(false, 'http://169.254.169.254/latest/meta-data', true)).toBe(REFUSED);
    expect(check(false, 'http://hooks.example.com/x')).toBe('http://hooks.example.com/x');
  });

  it('requires https in production and http(s) in development', () => {
    expect(check(true, 'http://hooks.example.com/x')).toBe('webhook_url: must be an https URL');
    expect(check(true, 'https://hooks.example.com/x')).toBe('https://hooks.example.com/x');
    expect(check(false, 'ftp://hooks.example.com/x')).toBe('webhook_url: must be an http(s) URL');
    expect(check(false, 'not a url')).toBe('webhook_url: must be an http(s) URL');
    expect(check(false, `https://hooks.example.com/${'a'.repeat(2048)}`)).toMatch(/^webhook_url: /);
  });

  it('stores the URL without surrounding whitespace', () => {
    expect(check(false, '  https://hooks.example.com/x \n')).toBe('https://hooks.example.com/x');
  });
});
