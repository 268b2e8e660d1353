import { SpentNonces } from './spent-nonces';

describe('SpentNonces: a replay memory that holds only what is recent', () => {
  const KEEP_MS = 60_000;

  it('refuses a nonce spent again within its keep time, whenever in a generation it was first spent', () => {
    const start = 1_000_000;
    for (const spentAt of [start, start + KEEP_MS - 1, start + KEEP_MS, start + 2 * KEEP_MS - 1]) {
      const nonces = new SpentNonces(KEEP_MS, 1_000, start);
      expect(nonces.spend('once', spentAt)).toBe(true);
      for (const later of [spentAt, spentAt + 1, spentAt + KEEP_MS / 2, spentAt + KEEP_MS - 1])
        expect(nonces.spend('once', later)).toBe(false);
    }
  });

  it('forgets what is older than two generations: its size stays that of the recent calls, not of all calls ever (issue 52)', () => {
    const nonces = new SpentNonces(KEEP_MS, 100_000, 0);
    // An hour of 30 calls a second.
    let most = 0;
    for (let second = 0; second < 3_600; second += 1) {
      for (let call = 0; call < 30; call += 1) expect(nonces.spend(`n${second}_${call}`, second * 1_000)).toBe(true);
      most = Math.max(most, nonces.size);
    }
    // At most two generations of 60 s: 3,600 nonces, never the hour's 108,000.
    expect(most).toBeLessThanOrEqual(2 * 60 * 30 + 30);
    expect(nonces.size).toBeGreaterThanOrEqual(60 * 30);
  });

  it('turns a generation early when one fills: memory stays bounded under a flood', () => {
    const nonces = new SpentNonces(KEEP_MS, 100, 0);
    for (let i = 0; i < 1_000; i += 1) expect(nonces.spend(`flood${i}`, 10)).toBe(true);
    expect(nonces.size).toBeLessThanOrEqual(200);
    expect(nonces.spend('flood999', 11)).toBe(false);
  });
});
