import { TEST_OTP, TEST_PAYERS } from '@gateway/bank-sandbox';
import { TEST_PAYER_NAMES, TEST_PAYER_OTP } from './client/test-payers';

describe('dashboard test payers', () => {
  it('are the test bank’s own, in its order, with its OTP', () => {
    expect([...TEST_PAYER_NAMES]).toEqual(TEST_PAYERS.map((payer) => payer.name));
    expect(TEST_PAYER_OTP).toBe(TEST_OTP);
  });
});
