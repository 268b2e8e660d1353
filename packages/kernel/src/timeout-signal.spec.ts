import { timeoutSignal } from './timeout-signal';

describe('timeoutSignal', () => {
  it('aborts with a TimeoutError once its time has passed, as AbortSignal.timeout does', async () => {
    const { signal } = timeoutSignal(10);
    const reason = await new Promise<unknown>((resolve) =>
      signal.addEventListener('abort', () => resolve(signal.reason)),
    );
    expect(signal.aborted).toBe(true);
    expect(reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('never aborts once cleared', async () => {
    const { signal, clear } = timeoutSignal(10);
    clear();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(signal.aborted).toBe(false);
  });
});
