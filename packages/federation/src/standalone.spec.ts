import { z } from '@gateway/kernel';
import { loadStandaloneEnv } from './standalone';

const BASE = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x', PLATFORM_SECRET: 'p'.repeat(32) };
const TOKEN = 'metrics-token-0123456789abcdef';

describe('a subgraph running alone: its environment', () => {
  it("listens on loopback unless SUBGRAPH_HOST says otherwise: HOST, the public services' address, does not open it", () => {
    expect(loadStandaloneEnv(undefined, { ...BASE, HOST: '0.0.0.0' }).SUBGRAPH_HOST).toBe('127.0.0.1');
    expect(loadStandaloneEnv(undefined, { ...BASE, SUBGRAPH_HOST: '0.0.0.0' }).SUBGRAPH_HOST).toBe('0.0.0.0');
  });

  it("refuses production mode without METRICS_TOKEN, together with its own variables' problems", () => {
    const own = { schema: z.object({ SESSION_TTL_SECONDS: z.coerce.number().min(60) }), options: () => ({}) };
    expect(() => loadStandaloneEnv(own, { ...BASE, NODE_ENV: 'production', SESSION_TTL_SECONDS: '1' })).toThrow(
      /METRICS_TOKEN: required in production mode[\s\S]*SESSION_TTL_SECONDS|SESSION_TTL_SECONDS[\s\S]*METRICS_TOKEN/,
    );
    expect(
      loadStandaloneEnv(own, { ...BASE, NODE_ENV: 'production', SESSION_TTL_SECONDS: '60', METRICS_TOKEN: TOKEN })
        .METRICS_TOKEN,
    ).toBe(TOKEN);
  });
});
