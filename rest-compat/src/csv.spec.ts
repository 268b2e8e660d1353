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
    expect(csvCell('\t=1')).toBe(`"'\t'=1"`);
    expect(csvCell('\r=1')).toBe(`"'\r'=1"`);
    // Numbers are the gateway's own, never a formula: a negative amount stays a number.
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell('order=5')).toBe('order=5');
    expect(csvCell('a-b')).toBe('a-b');
  });

  it('guards a formula after any separator inside a cell, and quotes every separator (issue 46)', () => {
    // The review's probes: a spreadsheet splitting on ; or tabs saw a formula cell in each.
    expect(csvCell('x;=2+5;')).toBe(`"x;'=2+5;"`);
    expect(csvCell('x\t=2+5')).toBe(`"x\t'=2+5"`);
    expect(csvCell('a,@SUM(A1)')).toBe(`"a,'@SUM(A1)"`);
    expect(csvCell('one\n-2+3')).toBe(`"one\n'-2+3"`);
    expect(csvCell('a;;+1')).toBe(`"a;;'+1"`);
    expect(csvCell('\uFF1D1+1')).toBe("'\uFF1D1+1");
    // Separators alone are quoted whatever a reader splits on; text between them is kept as is.
    expect(csvCell('a;b')).toBe('"a;b"');
    expect(csvCell('a\tb')).toBe('"a\tb"');
    expect(csvCell('total: 5 = 2+3')).toBe('total: 5 = 2+3');
    expect(csvRow(['x;=2+5;', -500, 'ok'])).toBe(`"x;'=2+5;",-500,ok\r\n`);
  });
});
