import { GatewayError } from '@gateway/kernel';
import type { ServiceClient } from './service-client';
import { Directory } from './directory';

/** A stand-in for the router: counts calls and answers what the test says. */
function fakeRouter(answer: (query: string, variables: Record<string, unknown>) => unknown) {
  const calls: Array<Record<string, unknown>> = [];
  const call = (async (query: string, variables: Record<string, unknown> = {}) => {
    calls.push(variables);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const result = answer(query, variables);
    if (result instanceof Error) throw result;
    return result;
  }) as ServiceClient;
  return { call, calls };
}

const alias = {
  handle: 'amina',
  iban: 'LY83002048000020100120361',
  bankHandle: 'oasis',
  institutionCode: '002',
  bankCustomerRef: 'c1',
  status: 'ACTIVE',
};

describe('Directory (registry answers for payments and open banking)', () => {
  it('shares one call among concurrent asks and reuses the answer within its lifetime only', async () => {
    const router = fakeRouter(() => ({ aliasRouting: alias }));
    const directory = new Directory(router.call, { bankMs: 0, aliasMs: 40 });
    expect(
      await Promise.all([
        directory.alias({ alias: 'amina' }, undefined, 'live'),
        directory.alias({ alias: ' Amina ' }, undefined, 'live'),
      ]),
    ).toEqual([alias, alias]);
    expect(router.calls).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    await directory.alias({ alias: 'amina' }, undefined, 'live');
    expect(router.calls).toHaveLength(2);
  });

  it('never reuses a refusal, and asks every time when caching is off', async () => {
    let refuse = true;
    const router = fakeRouter(() => (refuse ? new GatewayError('ALIAS_NOT_FOUND') : { aliasRouting: alias }));
    const directory = new Directory(router.call, { bankMs: 0, aliasMs: 10_000 });
    await expect(directory.alias({ alias: 'amina' }, undefined, 'live')).rejects.toMatchObject({
      code: 'ALIAS_NOT_FOUND',
    });
    refuse = false;
    expect(await directory.alias({ alias: 'amina' }, undefined, 'live')).toEqual(alias);

    const uncached = fakeRouter(() => ({ bankRouting: { handle: 'oasis' } }));
    const fresh = new Directory(uncached.call, { bankMs: 0, aliasMs: 0 });
    await fresh.bank({ handle: 'oasis' });
    await fresh.bank({ handle: 'oasis' });
    expect(uncached.calls).toEqual([{ handle: 'oasis' }, { handle: 'oasis' }]);
  });

  it('answers test payers in the test world only; live resolution asks the registry, which knows none of them', async () => {
    const bank = { handle: 'oasis', institutionCode: '002' };
    const router = fakeRouter((query) =>
      query.includes('bankRouting') ? { bankRouting: bank } : new GatewayError('ALIAS_NOT_FOUND'),
    );
    const directory = new Directory(router.call, { bankMs: 0, aliasMs: 0 });
    const payer = await directory.alias({ alias: 'Success@oasis' }, undefined, 'test');
    expect(payer).toMatchObject({
      handle: 'success@oasis',
      bankHandle: 'oasis',
      institutionCode: '002',
      bankCustomerRef: 'test-success',
      status: 'ACTIVE',
    });
    expect(await directory.alias({ iban: payer.iban }, undefined, 'test')).toEqual(payer);
    await expect(directory.alias({ alias: 'success@oasis' }, undefined, 'live')).rejects.toMatchObject({
      code: 'ALIAS_NOT_FOUND',
    });
    await expect(directory.alias({ iban: payer.iban }, undefined, 'live')).rejects.toMatchObject({
      code: 'ALIAS_NOT_FOUND',
    });
    // A real customer's alias resolves in the test world too (as a destination, or a payer whose money moves at the test bank).
    await expect(directory.alias({ alias: 'amina' }, undefined, 'test')).rejects.toMatchObject({
      code: 'ALIAS_NOT_FOUND',
    });
    expect(router.calls.filter((variables) => 'alias' in variables || 'iban' in variables)).toHaveLength(3);
  });

  it('routes work in flight to a suspended bank (includeSuspended) while new work is refused, reusing an active answer for new work', async () => {
    let status = 'ACTIVE';
    const router = fakeRouter((_query, variables) =>
      status === 'ACTIVE' || variables.includeSuspended
        ? { bankRouting: { handle: 'oasis', status } }
        : new GatewayError('BANK_NOT_PARTICIPATING'),
    );
    const directory = new Directory(router.call, { bankMs: 60_000, aliasMs: 0 });
    await directory.bank({ handle: 'oasis' });
    // The active routing cached for new work serves the engine as well: no second call.
    expect(await directory.bankInFlight({ handle: 'oasis' })).toEqual({ handle: 'oasis', status: 'ACTIVE' });
    expect(router.calls).toEqual([{ handle: 'oasis' }]);

    status = 'SUSPENDED';
    const fresh = new Directory(router.call, { bankMs: 60_000, aliasMs: 0 });
    await expect(fresh.bank({ handle: 'oasis' })).rejects.toMatchObject({ code: 'BANK_NOT_PARTICIPATING' });
    expect(await fresh.bankInFlight({ handle: 'oasis' })).toEqual({ handle: 'oasis', status: 'SUSPENDED' });
    expect(router.calls.slice(1)).toEqual([{ handle: 'oasis' }, { handle: 'oasis', includeSuspended: true }]);
    // The in-flight answer never serves new work.
    await expect(fresh.bank({ handle: 'oasis' })).rejects.toMatchObject({ code: 'BANK_NOT_PARTICIPATING' });
  });
});
