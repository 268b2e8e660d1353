import { BankCoreError } from '@gateway/bank-core-client';
import { createLogger } from '@gateway/kernel';
import { outcomeOf } from './outcome';

describe("a core call's failure, for the money", () => {
  const logger = createLogger('test', 'silent');
  const refusal = (coreCode: string | undefined, reason: 'client_error' | 'replay_refused' = 'client_error') =>
    new BankCoreError('CBS_ERROR', `bank core b1 refused debit: HTTP 422 ${coreCode ?? ''}`.trim(), {
      bankHandle: 'b1',
      operation: 'debit',
      reason,
      attempts: 1,
      coreStatus: 422,
      ...(coreCode ? { coreCode } : {}),
    });
  const outcome = (error: Error) =>
    outcomeOf(() => Promise.reject(error), logger) as Promise<{ ok: false; kind: string; code: string }>;

  it('a refusal whose code says currency is CURRENCY_MISMATCH (422), not CBS_ERROR (502), whatever the core calls it', async () => {
    for (const code of ['CURRENCY_MISMATCH', 'INVALID_CURRENCY', 'wrong_currency'])
      expect(await outcome(refusal(code))).toMatchObject({ ok: false, kind: 'refused', code: 'CURRENCY_MISMATCH' });
    expect(await outcome(refusal('ACCOUNT_CLOSED'))).toMatchObject({ kind: 'refused', code: 'CBS_ERROR' });
    expect(await outcome(refusal(undefined))).toMatchObject({ kind: 'refused', code: 'CBS_ERROR' });
  });

  it('after an attempt that may have booked, the same refusal proves nothing: still unknown, still CBS_ERROR', async () => {
    expect(await outcome(refusal('CURRENCY_MISMATCH', 'replay_refused'))).toMatchObject({
      kind: 'unknown',
      code: 'CBS_ERROR',
    });
  });
});
