import type { ExecutionResult } from 'graphql';
import { createLogger, GatewayError, type Principal } from '@gateway/kernel';
import { whileCredentialHolds } from './credential-gate';
import { CredentialSweep } from './credential-sweep';

const merchant: Principal = { kind: 'merchant', id: 'mer_a', scopes: ['test'] };
const message = (n: number): ExecutionResult => ({ data: { n } });

/** A stream that yields the given messages, then waits; `returned` tells whether it was ended. */
function streamOf(messages: ExecutionResult[]) {
  const state = { returned: false };
  const stream = {
    next: async (): Promise<IteratorResult<ExecutionResult>> =>
      messages.length ? { value: messages.shift()!, done: false } : new Promise(() => undefined),
    return: async (): Promise<IteratorResult<ExecutionResult>> => {
      state.returned = true;
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => stream,
  };
  return { stream, state };
}

describe('whileCredentialHolds: no message leaves on a credential not known valid within the period', () => {
  let now = 0;
  let answer: () => Principal;
  let asked = 0;
  let closed: { code?: number; reason?: string };
  const setUp = () => {
    now = 1_000_000;
    asked = 0;
    closed = {};
    answer = () => merchant;
    const sweep = new CredentialSweep({ logger: createLogger('router-test', 'silent'), now: () => now, periodMs: 10 });
    const watched = sweep.watch({
      socket: { close: (code, reason) => (closed = { code, reason }) },
      principal: merchant,
      credentialKey: 'mk_a',
      authenticate: async () => {
        asked += 1;
        return answer();
      },
    });
    return watched;
  };

  it('within the period a message goes without asking; after it, only once the vault said yes again', async () => {
    const watched = setUp();
    const { stream } = streamOf([message(1), message(2)]);
    const gated = whileCredentialHolds(stream, watched);
    expect(await gated.next()).toEqual({ value: message(1), done: false });
    expect(asked).toBe(0);
    now += 11;
    expect(await gated.next()).toEqual({ value: message(2), done: false });
    expect(asked).toBe(1);
  });

  it('a credential refused at delivery: the message is not sent, the socket is closed 4403 and the stream ended', async () => {
    const watched = setUp();
    const { stream, state } = streamOf([message(1)]);
    now += 11;
    answer = () => {
      throw new GatewayError('INVALID_API_KEY');
    };
    expect(await whileCredentialHolds(stream, watched).next()).toEqual({ value: undefined, done: true });
    expect(closed.code).toBe(4403);
    expect(state.returned).toBe(true);
  });

  it('while the vault cannot be asked the message waits, then goes once it answers', async () => {
    const watched = setUp();
    const { stream } = streamOf([message(1)]);
    now += 11;
    answer = () => {
      throw new Error('database unreachable');
    };
    const delivered = whileCredentialHolds(stream, watched).next();
    await new Promise((resolve) => setTimeout(resolve, 25));
    expect(asked).toBeGreaterThanOrEqual(2);
    answer = () => merchant;
    expect(await delivered).toEqual({ value: message(1), done: false });
    expect(closed.code).toBeUndefined();
  });
});
