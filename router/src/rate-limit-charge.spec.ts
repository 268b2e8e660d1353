import type { Principal } from '@gateway/kernel';
import { inspectOperation } from './operation';
import { createRateLimiter } from './rate-limit';
import { createLimitCharges } from './rate-limit-charge';

const merchant: Principal = { kind: 'merchant', id: 'mer_charge' };
const operationOf = (query: string) => inspectOperation({ query })!;
// No token request here: the vault is never asked who a token request's client is.
const noVault = () => {
  throw new Error('the vault is not consulted for these operations');
};

describe('the rate-limit stage', () => {
  it('answers the X-RateLimit headers with every charge, and refuses with Retry-After and RATE_LIMITED once spent', async () => {
    const charges = createLimitCharges(await createRateLimiter({ read: { points: 2, durationSeconds: 60 } }), noVault);
    const query = operationOf('{ banks { handle } }');
    expect(await charges.operation(merchant, query)).toEqual({
      headers: { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '60' },
    });
    await charges.operation(merchant, query);
    const refused = await charges.operation(merchant, query);
    expect(refused.headers).toEqual({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '60',
      'retry-after': '60',
    });
    expect(refused.refusal).toMatchObject({
      code: 'RATE_LIMITED',
      detail: 'limit of 2 requests reached; retry in 60 s',
    });
  });

  it('says what a document of several root fields costs, and to split one costing more than the whole limit', async () => {
    const charges = createLimitCharges(await createRateLimiter({ read: { points: 4, durationSeconds: 60 } }), noVault);
    await charges.operation(merchant, operationOf('{ a: banks { handle } b: banks { handle } }'));
    const over = await charges.operation(
      merchant,
      operationOf('{ a: banks { handle } b: banks { handle } c: banks { handle } }'),
    );
    expect(over.refusal?.detail).toBe(
      'this operation costs 3 points of the read limit (one per root field and per field read from a bank core, aliases included); 2 of 4 left; retry in 60 s',
    );
    const huge = await charges.operation(
      { kind: 'merchant', id: 'mer_other' },
      operationOf(`{ ${Array.from({ length: 5 }, (_, i) => `f${i}: banks { handle }`).join(' ')} }`),
    );
    expect(huge.refusal?.detail).toBe(
      'this operation costs 5 points of the read limit (one per root field and per field read from a bank core, aliases included); the limit is 4 per window: split the operation',
    );
  });

  it('charges a subscribe one read point, and never a service', async () => {
    const charges = createLimitCharges(await createRateLimiter({ read: { points: 1, durationSeconds: 60 } }), noVault);
    expect(await charges.subscribe(merchant)).toBeUndefined();
    expect(await charges.subscribe(merchant)).toMatchObject({
      code: 'RATE_LIMITED',
      detail: 'limit of 1 requests reached; retry in 60 s',
    });
    const service: Principal = { kind: 'service', id: 'payments' };
    expect(await charges.subscribe(service)).toBeUndefined();
    expect(await charges.subscribe(service)).toBeUndefined();
  });
});
