import { raw } from '@mikro-orm/core';
import { boundParameters } from './bound-parameters';

const quote = (id: string) => `"${id}"`;

describe('values kept as parameters (boundParameters)', () => {
  it('binds each ? as MikroORM would write it in: scalars, lists, JSON, identifiers, raw fragments', () => {
    const at = new Date('2026-11-29T12:00:00Z');
    expect(
      boundParameters(
        'update ?? set a = ?, b = ?, n = ?, data = ?, tags = ? where id in (?) and c = ? and q = \\?',
        ['t', 'x', at, 5, { k: [1] }, raw('coalesce(tags, ?)', ['[]']), ['i1', 'i2'], null],
        quote,
      ),
    ).toEqual({
      sql: 'update "t" set a = ?, b = ?, n = ?, data = ?, tags = coalesce(tags, ?) where id in (?, ?) and c = ? and q = \\?',
      values: ['x', at, 5, '{"k":[1]}', '[]', 'i1', 'i2', null],
    });
  });

  it('leaves to MikroORM what it cannot bind the same way: an empty or nested list, a count that does not match', () => {
    expect(boundParameters('select ? in (?)', [1, []], quote)).toBeUndefined();
    expect(boundParameters('select ?', [[[1]]], quote)).toBeUndefined();
    expect(boundParameters('select ?, ?', [1], quote)).toBeUndefined();
    expect(boundParameters('select ?', [1, 2], quote)).toBeUndefined();
  });
});
