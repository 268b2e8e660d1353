import { transitionLookup, type Transition } from './transitions';

type Row = Transition<'A' | 'B', 'go' | 'stop', 'went' | null>;

describe('transitionLookup', () => {
  const rows: Row[] = [
    { from: null, trigger: 'go', to: 'A', event: null },
    { from: 'A', trigger: 'go', to: 'B', event: 'went' },
  ];

  it('finds the row of a move, and nothing for a move the table has not', () => {
    const find = transitionLookup(rows);
    expect(find(null, 'go')).toBe(rows[0]);
    expect(find('A', 'go')).toBe(rows[1]);
    expect(find('B', 'go')).toBeUndefined();
    expect(find('A', 'stop')).toBeUndefined();
  });

  it('refuses a table with two rows for one move', () => {
    expect(() => transitionLookup([...rows, { from: 'A', trigger: 'go', to: 'A', event: null }])).toThrow(
      'two rows move A on go',
    );
  });
});
