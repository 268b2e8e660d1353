import { RateLimiterMemory } from 'rate-limiter-flexible';
import {
  budgetOf,
  createRateLimiter,
  limitClassesOf,
  limitCostsOf,
  memoryBudget,
  takenAhead,
  type Budget,
} from './rate-limit';

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
    expect(
      await limiter.check(limitClassesOf('mutation', ['refreshAccessToken']), { kind: 'anonymous', ip: '10.0.0.2' }),
    ).toMatchObject({ remaining: 1 });
  });
});

describe('rate limits keyed by client address (issue 28, item 5)', () => {
  it('gives two IPv6 addresses of one /64 one bucket, and another /64 its own', async () => {
    const limiter = await createRateLimiter({ identity_resolve: { points: 2 } });
    const from = (ip: string) => limiter.check(['identity_resolve'], { kind: 'anonymous', ip });
    expect(await from('2001:db8:1:2::1')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await from('2001:db8:1:2:ffff:ffff:ffff:fffe')).toMatchObject({ allowed: true, remaining: 0 });
    expect(await from('2001:db8:1:2::3')).toMatchObject({ allowed: false, remaining: 0 });
    expect(await from('2001:db8:1:3::1')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('keys IPv4 per address, and an IPv4-mapped IPv6 peer as its IPv4', async () => {
    const limiter = await createRateLimiter({ identity_resolve: { points: 2 } });
    const from = (ip: string) => limiter.check(['identity_resolve'], { kind: 'anonymous', ip });
    expect(await from('198.51.100.7')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await from('::ffff:198.51.100.7')).toMatchObject({ allowed: true, remaining: 0 });
    expect(await from('198.51.100.7')).toMatchObject({ allowed: false });
    expect(await from('198.51.100.8')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('charges alias(handle), which answers an IBAN, to identity resolution, not read', () => {
    expect(limitClassesOf('query', ['alias'])).toEqual(['identity_resolve']);
    expect(
      limitCostsOf('query', [
        { name: 'alias', args: { handle: 'amina' } },
        { name: 'resolveAlias', args: { alias: 'omar' } },
      ]),
    ).toEqual({ identity_resolve: 2 });
  });
});

describe('rate limits of Open Banking data calls', () => {
  it('spend one read budget per consent, whichever of its access tokens or client IPs is used', async () => {
    const limiter = await createRateLimiter({ read: { points: 3 } });
    // Two access tokens of one consent (before and after a refresh) carry the same principal.
    const first = {
      kind: 'ob_token' as const,
      id: 'con_a',
      consentId: 'con_a',
      scopes: ['accounts:read'],
      ip: '10.0.0.1',
    };
    const refreshed = { ...first, ip: '10.0.0.2' };
    expect((await limiter.check(['read'], first)).remaining).toBe(2);
    expect((await limiter.check(['read'], refreshed)).remaining).toBe(1);
    expect((await limiter.check(['read'], first)).allowed).toBe(true);
    expect(await limiter.check(['read'], refreshed)).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    // Another consent (of the same TPP or another) has its own budget.
    expect(
      await limiter.check(['read'], { kind: 'ob_token', id: 'con_b', consentId: 'con_b', ip: '10.0.0.1' }),
    ).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('defaults to the contract: 300 GETs a minute', async () => {
    const limiter = await createRateLimiter();
    expect(await limiter.check(['read'], { kind: 'ob_token', id: 'con_c', consentId: 'con_c' })).toMatchObject({
      allowed: true,
      limit: 300,
      remaining: 299,
      resetSeconds: 60,
    });
  });
});

describe('rate limit of payment orders', () => {
  it('100 creations a minute per TPP, whichever consent (principal) the access token speaks for', async () => {
    const limiter = await createRateLimiter({ payment_order_create: { points: 2 } });
    const classes = limitClassesOf('mutation', ['createPaymentOrder']);
    expect(classes).toEqual(['payment_order_create']);
    const consentA = { kind: 'ob_token' as const, id: 'con_a', consentId: 'con_a', clientId: 'tpp_a' };
    const consentB = { kind: 'ob_token' as const, id: 'con_b', consentId: 'con_b', clientId: 'tpp_a' };
    expect((await limiter.check(classes, consentA, consentA.clientId)).remaining).toBe(1);
    expect(await limiter.check(classes, consentB, consentB.clientId)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.check(classes, consentA, consentA.clientId)).toMatchObject({ allowed: false, limit: 2 });
    // Another TPP has its own budget.
    expect((await limiter.check(classes, { kind: 'ob_token', id: 'con_c', consentId: 'con_c' }, 'tpp_b')).allowed).toBe(
      true,
    );
    expect(await (await createRateLimiter()).check(classes, consentA, 'tpp_a')).toMatchObject({ limit: 100 });
  });
});

describe('operation costs (issue 13: cost, not requests)', () => {
  it('costs one point of its class per root field selection, and one per key of a list argument', () => {
    expect(
      limitCostsOf(
        'query',
        Array.from({ length: 200 }, () => ({ name: 'resolveAlias', args: { phone: '+218912345678' } })),
      ),
    ).toEqual({ identity_resolve: 200 });
    expect(
      limitCostsOf('mutation', [
        { name: 'createPaymentSession' },
        { name: 'createPaymentSession' },
        { name: 'registerMerchant' },
      ]),
    ).toEqual({ session_create: 2, write: 1 });
    expect(
      limitCostsOf('query', [
        { name: 'resolveAlias', args: { phone: ['+1', '+2', '+3'] } },
        { name: 'bank', args: { handle: 'x' } },
      ]),
    ).toEqual({ identity_resolve: 3, read: 1 });
  });

  it('spends all or nothing: a request over any class budget is refused and spends in no class', async () => {
    const limiter = await createRateLimiter({ identity_resolve: { points: 10 }, read: { points: 10 } });
    const caller = { kind: 'anonymous' as const, ip: '10.0.0.9' };
    expect(await limiter.check({ identity_resolve: 7, read: 1 }, caller)).toMatchObject({
      allowed: true,
      remaining: 3,
      limitClass: 'identity_resolve',
    });
    expect(await limiter.check({ read: 2, identity_resolve: 4 }, caller)).toMatchObject({
      allowed: false,
      limit: 10,
      remaining: 3,
      cost: 4,
      limitClass: 'identity_resolve',
    });
    // Neither class kept the refused request's points.
    expect(await limiter.check({ read: 1, identity_resolve: 3 }, caller)).toMatchObject({
      allowed: true,
      remaining: 0,
      limitClass: 'identity_resolve',
    });
    expect(await limiter.check(['read'], caller)).toMatchObject({ allowed: true, remaining: 7 });
  });

  it('answers at once, without a promise, when its budgets are in memory and the request is allowed', async () => {
    const limiter = await createRateLimiter({ read: { points: 2 } });
    const caller = { kind: 'anonymous' as const, ip: '10.0.0.10' };
    expect(limiter.check(['read'], caller)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.check({ read: 1 }, caller)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.check(['read'], caller)).toMatchObject({ allowed: false, remaining: 0 });
  });
});

describe('a budget in memory (one router)', () => {
  afterEach(() => jest.useRealTimers());

  it('counts a window per key from its first take, answers at once, and a refusal spends nothing', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const budget = memoryBudget(10, 60);
    expect(budget.take('ip:1', 4)).toEqual({ allowed: true, remaining: 6, msBeforeNext: 60_000 });
    jest.setSystemTime(1_000_000 + 15_000);
    expect(budget.take('ip:1', 7)).toEqual({ allowed: false, remaining: 6, msBeforeNext: 45_000 });
    expect(budget.take('ip:1', 6)).toEqual({ allowed: true, remaining: 0, msBeforeNext: 45_000 });
    expect(budget.take('ip:2', 10)).toMatchObject({ allowed: true, remaining: 0, msBeforeNext: 60_000 });
  });

  it('opens a new window once one ends, for that key only', () => {
    jest.useFakeTimers({ now: 2_000_000 });
    const budget = memoryBudget(3, 60);
    budget.take('a', 3);
    jest.setSystemTime(2_000_000 + 30_000);
    budget.take('b', 3);
    jest.setSystemTime(2_000_000 + 60_000);
    expect(budget.take('a', 1)).toEqual({ allowed: true, remaining: 2, msBeforeNext: 60_000 });
    expect(budget.take('b', 1)).toEqual({ allowed: false, remaining: 0, msBeforeNext: 30_000 });
  });

  it('takes back points given back within the window, never below nothing spent', async () => {
    jest.useFakeTimers({ now: 3_000_000 });
    const budget = memoryBudget(5, 60);
    budget.take('k', 5);
    await budget.giveBack('k', 2);
    expect(budget.take('k', 2)).toMatchObject({ allowed: true, remaining: 0 });
    await budget.giveBack('k', 50);
    expect(budget.take('k', 6)).toMatchObject({ allowed: false, remaining: 5 });
  });
});

describe('a shared budget taken ahead (routers counting together in PostgreSQL)', () => {
  /** A shared counter (memory stands in for PostgreSQL here) that counts the statements sent to it. */
  function sharedCounter(limit: number) {
    const memory = new RateLimiterMemory({ points: limit, duration: 60 });
    const budget = budgetOf(memory, limit);
    const counted = { statements: 0 };
    const shared: Budget = {
      take: (key, points) => {
        counted.statements += 1;
        return budget.take(key, points);
      },
      giveBack: (key, points) => {
        counted.statements += 1;
        return budget.giveBack(key, points);
      },
    };
    const consumed = async (key: string) => (await memory.get(key))?.consumedPoints ?? 0;
    return { shared, counted, consumed };
  }

  it('claims 1% of the limit ahead: 25 requests of one caller cost 3 statements, and the counter holds what was claimed', async () => {
    const { shared, counted, consumed } = sharedCounter(1000);
    const router = takenAhead(shared, 1000);
    const answers = [];
    for (let i = 0; i < 25; i += 1) answers.push(await router.take('ip:1', 1));
    expect(answers.every((answer) => answer.allowed)).toBe(true);
    expect(counted.statements).toBe(3);
    expect(await consumed('ip:1')).toBe(33);
    expect(answers.at(-1)!.remaining).toBe(1000 - 25);
  });

  it('never allows more than the limit across routers, and at most 1% less per router', async () => {
    const { shared, consumed } = sharedCounter(1000);
    const routers = [takenAhead(shared, 1000), takenAhead(shared, 1000)];
    let allowed = 0;
    for (let i = 0; i < 1100; i += 1) if ((await routers[i % 2]!.take('merchant:m', 1)).allowed) allowed += 1;
    expect(allowed).toBeLessThanOrEqual(1000);
    expect(allowed).toBeGreaterThanOrEqual(1000 - 2 * 10);
    expect(await consumed('merchant:m')).toBeLessThanOrEqual(1000);
  });

  it('spends nothing on a refusal; points given back are spent again here', async () => {
    const { shared, consumed } = sharedCounter(1000);
    const router = takenAhead(shared, 1000);
    expect((await router.take('k', 995)).allowed).toBe(true);
    expect(await consumed('k')).toBe(995); // no room for 10 ahead: exactly what was asked
    expect(await router.take('k', 10)).toMatchObject({ allowed: false, remaining: 5 });
    expect(await consumed('k')).toBe(995);
    expect((await router.take('k', 5)).allowed).toBe(true);
    expect(await consumed('k')).toBe(1000);
    await router.giveBack('k', 5);
    expect((await router.take('k', 5)).allowed).toBe(true);
    expect((await router.take('k', 1)).allowed).toBe(false);
  });

  it('counts a limit under 200 exactly, a statement per request', async () => {
    const { shared } = sharedCounter(150);
    expect(takenAhead(shared, 150)).toBe(shared);
  });
});
