import { createRateLimiter, limitClassesOf } from './rate-limit';

describe('rate limits keyed by client', () => {
  it('charges a token request to its client, and to the IP when the client is unknown', async () => {
    const limiter = await createRateLimiter({ ob_token: { points: 2 } });
    const anonymous = { kind: 'anonymous' as const, ip: '10.0.0.1' };
    const classes = limitClassesOf('mutation', ['exchangeAuthorizationCode']);
    expect(classes).toEqual(['ob_token']);
    expect((await limiter.check(classes, anonymous, 'tpp_a')).allowed).toBe(true);
    expect((await limiter.check(classes, anonymous, 'tpp_a')).allowed).toBe(true);
    expect(await limiter.check(classes, anonymous, 'tpp_a')).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
    // Same IP, another client: its own budget; unknown client: the IP's budget.
    expect((await limiter.check(classes, anonymous, 'tpp_b')).allowed).toBe(true);
    expect(await limiter.check(classes, anonymous)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.check(limitClassesOf('mutation', ['refreshAccessToken']), { kind: 'anonymous', ip: '10.0.0.2' })).toMatchObject({ remaining: 1 });
  });
});
