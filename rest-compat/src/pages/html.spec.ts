import { maskAlias } from './html';

describe('maskAlias', () => {
  it('keeps enough of the handle to recognise it and the bank part whole', () => {
    expect(maskAlias('amina.salem@alpha')).toBe('am***@alpha');
    expect(maskAlias('amina')).toBe('am***');
    expect(maskAlias('ali')).toBe('a***');
    expect(maskAlias('a@bank')).toBe('a***@bank');
    expect(maskAlias('')).toBe('***');
  });

  it('counts characters, not UTF-16 units', () => {
    expect(maskAlias('😀😀😀😀@b')).toBe('😀😀***@b');
  });
});
