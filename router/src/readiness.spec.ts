import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { useReadiness, type ReadinessOptions } from './readiness';

async function readyz(options: ReadinessOptions) {
  const app = Fastify();
  useReadiness(app, options);
  const [health, ready] = [
    await app.inject({ method: 'GET', url: '/healthz' }),
    await app.inject({ method: 'GET', url: '/readyz' }),
  ];
  await app.close();
  return {
    health: { status: health.statusCode, body: health.json() },
    ready: { status: ready.statusCode, body: ready.json() },
  };
}

describe('the readiness stage', () => {
  let up: Server;
  let upUrl: string;

  beforeAll(async () => {
    up = createServer((request, response) => response.writeHead(request.url === '/healthz' ? 200 : 404).end());
    await new Promise<void>((resolve) => up.listen(0, '127.0.0.1', resolve));
    upUrl = `http://127.0.0.1:${(up.address() as AddressInfo).port}/graphql`;
  });
  afterAll(() => new Promise((resolve) => up.close(resolve)));

  it('is ready when the database, every subgraph and the runner say so', async () => {
    const answer = await readyz({
      databaseReady: async () => true,
      subgraphs: [{ name: 'banks', url: upUrl }],
      readinessChecks: () => ({ seeded: true }),
    });
    expect(answer.health).toEqual({ status: 200, body: { status: 'ok' } });
    expect(answer.ready).toEqual({
      status: 200,
      body: { status: 'ready', checks: { database: true, seeded: true, banks: true } },
    });
  });

  it('answers 503 naming what is down: a subgraph that does not answer, the database, a runner check', async () => {
    const down = 'http://127.0.0.1:1/graphql';
    const answer = await readyz({
      databaseReady: async () => false,
      subgraphs: [
        { name: 'banks', url: upUrl },
        { name: 'identity', url: down },
      ],
      readinessChecks: () => ({ stopping: false }),
    });
    expect(answer.health.status).toBe(200);
    expect(answer.ready).toEqual({
      status: 503,
      body: { status: 'unavailable', checks: { database: false, stopping: false, banks: true, identity: false } },
    });
  });
});
