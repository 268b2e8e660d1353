import { assertCoreBaseUrl, createBankCoreClient } from './index';

describe('assertCoreBaseUrl', () => {
  it.each([
    ['https://core.bank1.example', true],
    ['https://core.bank1.example/api/v1/', true],
    ['http://127.0.0.1:7001', false],
  ])('accepts %s (production: %s)', (url, production) => {
    expect(assertCoreBaseUrl(url, production)).toBeNull();
  });

  it.each([
    ['core.bank1.example', false, 'absolute URL'],
    ['ftp://core.bank1.example', false, 'https'],
    ['http://core.bank1.example', true, 'https in production'],
    ['https://user:pw@core.bank1.example', true, 'credentials'],
    ['https://core.bank1.example/?a=1', true, 'query'],
  ])('refuses %s (production: %s)', (url, production, problem) => {
    expect(assertCoreBaseUrl(url, production)).toContain(problem);
  });
});

describe('createBankCoreClient in production mode', () => {
  it('refuses a non-https base URL at construction, naming the bank', () => {
    const build = () =>
      createBankCoreClient({
        bankHandle: 'bank1',
        baseUrl: 'http://core.bank1.example',
        internalKey: 'k',
        production: true,
      });
    expect(build).toThrow('https in production');
    expect(build).toThrow('bank1');
  });

  it('accepts an https base URL and strips trailing slashes', () => {
    const client = createBankCoreClient({
      bankHandle: 'bank1',
      baseUrl: 'https://core.bank1.example/core/',
      internalKey: 'k',
      production: true,
    });
    expect(client.baseUrl).toBe('https://core.bank1.example/core');
  });
});
