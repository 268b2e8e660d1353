import { holdLease, renewalIntervalMs, type LeaseRenewal } from './lease';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `condition`, up to `ms`: what happens after a timer is late on a busy machine, not lost. */
const until = async (condition: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await pause(20);
};

/** A lease row in memory: who holds it (token) and until when. */
function row(token: string) {
  const state = { token, until: 0, renewals: 0 };
  const renewal = (mine: string, overrides: Partial<LeaseRenewal> = {}) => {
    const told = { lost: 0, errors: 0 };
    const held = holdLease({
      leaseMs: 300,
      renew: async (until) => {
        if (state.token !== mine) return false;
        state.until = until.getTime();
        state.renewals += 1;
        return true;
      },
      onLost: () => (told.lost += 1),
      onError: () => (told.errors += 1),
      ...overrides,
    });
    return { held, told };
  };
  return { state, renewal };
}

describe('leases renewed while the work runs', () => {
  it('renews every third of the lease, so the lease stays ahead of the clock while the owner works', async () => {
    expect(renewalIntervalMs(4_000)).toBe(1_333);
    const { state, renewal } = row('mine');
    const { held, told } = renewal('mine');
    await pause(700);
    expect(state.renewals).toBeGreaterThanOrEqual(3);
    expect(state.until).toBeGreaterThan(Date.now());
    await held.release();
    const renewals = state.renewals;
    await pause(250);
    expect(state.renewals).toBe(renewals);
    expect([held.lost(), told.lost]).toEqual([false, 0]);
  });

  it('finds the lease lost once another owner took it, tells it once, and stops renewing', async () => {
    const { state, renewal } = row('mine');
    const { held, told } = renewal('mine');
    await pause(150);
    state.token = 'successor';
    await pause(350);
    expect([held.lost(), told.lost]).toEqual([true, 1]);
    await held.release();
  });

  it("a refused renewal is no loss when the row is still the owner's (its own record moved it on)", async () => {
    const { renewal } = row('mine');
    const { held, told } = renewal('mine', { renew: async () => false, confirmLost: async () => false });
    await pause(350);
    expect([held.lost(), told.lost]).toEqual([false, 0]);
    await held.release();
  });

  it('skips renewals while idle, and keeps going after a database error', async () => {
    let idle = true;
    let failures = 1;
    const { state, renewal } = row('mine');
    const { held, told } = renewal('mine', {
      idle: () => idle,
      renew: async (until) => {
        if (failures-- > 0) throw new Error('connection reset');
        state.until = until.getTime();
        state.renewals += 1;
        return true;
      },
    });
    await pause(250);
    expect(state.renewals).toBe(0);
    idle = false;
    // The first renewal fails; one of the next ones lands (a CI machine's timers once ran 400 ms late).
    await until(() => told.errors >= 1 && state.renewals >= 1);
    expect(told.errors).toBe(1);
    expect(state.renewals).toBeGreaterThanOrEqual(1);
    await held.release();
  });

  it('release waits for a renewal in flight, so the owner’s next write is never overtaken by it', async () => {
    let landed = false;
    const { renewal } = row('mine');
    const { held } = renewal('mine', {
      renew: async () => {
        await pause(200);
        landed = true;
        return true;
      },
    });
    await pause(120);
    await held.release();
    expect(landed).toBe(true);
  });
});
