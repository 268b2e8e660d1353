import { foldDeepObjects } from './deep-object';

describe('foldDeepObjects (?metadata[key]=value)', () => {
  it('folds field[key] parameters into one object per field and leaves the rest as sent', () => {
    expect(foldDeepObjects({ 'metadata[order_id]': '42', 'metadata[Shop]': 'a b', limit: '5' })).toEqual({
      metadata: { order_id: '42', Shop: 'a b' },
      limit: '5',
    });
  });

  it('keeps a key the client chose exactly, even one named like a prototype', () => {
    const folded = foldDeepObjects({ 'metadata[__proto__]': 'x' });
    expect(Object.keys(folded.metadata as object)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('leaves names that are not field[key] alone, so a strict schema refuses them by name', () => {
    expect(foldDeepObjects({ 'metadata[a][b]': '1', 'Meta[a]': '2', 'metadata[': '3' })).toEqual({
      'metadata[a][b]': '1',
      'Meta[a]': '2',
      'metadata[': '3',
    });
  });

  it('does not merge into a field also sent bare (the schema sees both as sent)', () => {
    expect(foldDeepObjects({ metadata: 'x', 'metadata[a]': '1' })).toEqual({ metadata: 'x', 'metadata[a]': '1' });
  });
});
