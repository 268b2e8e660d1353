import { coreReadsPerRequest } from './core-reads';

describe('one request’s bank-core reads', () => {
  it('makes each distinct read once and refuses the one past the cap before calling', async () => {
    const readsOf = coreReadsPerRequest(2);
    const request = { requestId: 'req_one' };
    let calls = 0;
    const read = (value: string) => async () => {
      calls += 1;
      return value;
    };
    const answers = await Promise.all([
      readsOf(request).once('a', read('A')),
      readsOf(request).once('a', read('other')),
      readsOf(request).once('b', read('B')),
    ]);
    expect({ answers, calls }).toEqual({ answers: ['A', 'A', 'B'], calls: 2 });
    expect(() => readsOf(request).once('c', read('C'))).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
    expect(calls).toBe(2);
    // Another request has a budget of its own.
    expect(await readsOf({ requestId: 'req_two' }).once('c', read('C'))).toBe('C');
  });
});
