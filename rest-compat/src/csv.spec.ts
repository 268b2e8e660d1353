import { csvCell, csvRow } from './csv';

describe('CSV cells', () => {
  it('quotes commas, quotes and line breaks as RFC 4180 says, and leaves plain text and numbers alone', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(1234)).toBe('1234');
    expect(csvCell(false)).toBe('false');
    expect(csvCell(null)).toBe('');
    expect(csvRow(['a', null, 3])).toBe('a,,3\r\n');
  });

  it('puts an apostrophe before text a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://evil","x")')).toBe(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    // Numbers are the gateway's own, never a formula.
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell('order=5')).toBe('order=5');
  });
});
