import { memoized } from './memoized';

describe('memoized', () => {
  it('computes each key once, null and undefined answers included', () => {
    const computed: string[] = [];
    const lookup = memoized(10, (key) => {
      computed.push(key);
      return key === 'none' ? undefined : key === 'null' ? null : key.length;
    });
    expect([lookup('abc'), lookup('none'), lookup('null'), lookup('abc'), lookup('none'), lookup('null')]).toEqual([
      3,
      undefined,
      null,
      3,
      undefined,
      null,
    ]);
    expect(computed).toEqual(['abc', 'none', 'null']);
  });

  it('keeps at least the last `max` keys used and forgets the rest, whatever a client sends', () => {
    const computed: string[] = [];
    const lookup = memoized(3, (key) => computed.push(key));
    for (const key of ['a', 'b', 'c']) lookup(key);
    for (const key of ['a', 'd', 'e']) lookup(key); // the last 3 keys used
    computed.length = 0;
    lookup('a');
    lookup('d');
    lookup('e');
    expect(computed).toEqual([]);
    for (let i = 0; i < 100; i += 1) lookup(`client-chosen-${i}`);
    computed.length = 0;
    lookup('b');
    expect(computed).toEqual(['b']); // long unused: forgotten, computed again
  });
});
