import Fastify, { type FastifyInstance } from 'fastify';
import { requestIdOf, useRequestId } from './request-id';

describe('the request id stage', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = Fastify();
    useRequestId(app);
    app.get('/echo', async (request) => ({ requestId: request.requestId }));
    await app.ready();
  });
  afterAll(() => app.close());

  it("keeps the caller's well-formed request id, on the request and in the answer's header", async () => {
    const answer = await app.inject({
      method: 'GET',
      url: '/echo',
      headers: { 'x-request-id': 'req_fromRestCompat42' },
    });
    expect(answer.json()).toEqual({ requestId: 'req_fromRestCompat42' });
    expect(answer.headers['x-request-id']).toBe('req_fromRestCompat42');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  it('gives a request without one, or with a malformed one, a new id', async () => {
    for (const headers of [
      {},
      { 'x-request-id': 'req_<script>' },
      { 'x-request-id': `req_${'a'.repeat(65)}` },
      { 'x-request-id': 'abc' },
    ]) {
      const answer = await app.inject({ method: 'GET', url: '/echo', headers });
      const { requestId } = answer.json<{ requestId: string }>();
      expect(requestId).toMatch(/^req_[0-9A-Za-z]+$/);
      expect(requestId).not.toBe(headers['x-request-id' as keyof typeof headers]);
      expect(answer.headers['x-request-id']).toBe(requestId);
    }
  });

  it('answers ids alike off HTTP (the in-process edge)', () => {
    expect(requestIdOf('req_abc')).toBe('req_abc');
    expect(requestIdOf(['req_abc'])).not.toBe('req_abc');
    expect(requestIdOf(undefined)).toMatch(/^req_/);
  });
});
