import { createContext } from './context';

const io = (env: Record<string, string>) => ({
  out: () => undefined,
  err: () => undefined,
  interactive: false,
  env: { GATEWAY_CONFIG: '/nonexistent/c.json', ...env },
});

describe("the CLI's gateway address", () => {
  it('reads GATEWAY_URL, as the example app does, before the older GATEWAY_BASE_URL', async () => {
    expect((await createContext(io({ GATEWAY_URL: 'https://pay.example.ly/' }), {})).baseUrl).toBe(
      'https://pay.example.ly',
    );
    expect(
      (
        await createContext(
          io({ GATEWAY_URL: 'https://pay.example.ly', GATEWAY_BASE_URL: 'https://old.example.ly' }),
          {},
        )
      ).baseUrl,
    ).toBe('https://pay.example.ly');
  });

  it('still reads GATEWAY_BASE_URL alone; --base-url wins over both; unset, the local platform', async () => {
    expect((await createContext(io({ GATEWAY_BASE_URL: 'https://old.example.ly' }), {})).baseUrl).toBe(
      'https://old.example.ly',
    );
    expect(
      (await createContext(io({ GATEWAY_URL: 'https://pay.example.ly' }), { 'base-url': 'http://localhost:9090' }))
        .baseUrl,
    ).toBe('http://localhost:9090');
    expect((await createContext(io({}), {})).baseUrl).toBe('http://localhost:8080');
  });
});
