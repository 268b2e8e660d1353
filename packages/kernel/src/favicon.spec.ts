import { favicon, FAVICON_HEADERS } from './favicon';

/** The pixel at (column, row) from the top left: [red, green, blue, alpha]. */
function pixel(ico: Buffer, column: number, row: number): number[] {
  const at = 22 + 40 + ((31 - row) * 32 + column) * 4;
  return [ico[at + 2]!, ico[at + 1]!, ico[at]!, ico[at + 3]!];
}

describe('favicon', () => {
  it('is one 32×32 icon with an alpha channel, as browsers read /favicon.ico', () => {
    const ico = favicon();
    // ICONDIR: reserved 0, type 1 (icon), one image; its entry: 32×32, 1 plane, 32 bits, size, offset.
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect([ico[6], ico[7], ico.readUInt16LE(10), ico.readUInt16LE(12)]).toEqual([32, 32, 1, 32]);
    expect(ico.readUInt32LE(14)).toBe(ico.length - 22);
    expect(ico.readUInt32LE(18)).toBe(22);
    // BITMAPINFOHEADER: colour and mask stacked (height 64), no compression.
    expect([ico.readUInt32LE(22), ico.readInt32LE(26), ico.readInt32LE(30), ico.readUInt32LE(38)]).toEqual([
      40, 32, 64, 0,
    ]);
    expect(ico.length).toBe(22 + 40 + 32 * 32 * 4 + 32 * 4);
    expect(favicon()).toBe(ico);
  });

  it('draws a green rounded square with a white coin: transparent corners, white centre, green edge', () => {
    const ico = favicon();
    expect(pixel(ico, 0, 0)[3]).toBe(0);
    expect(pixel(ico, 31, 31)[3]).toBe(0);
    expect(pixel(ico, 16, 16)).toEqual([255, 255, 255, 255]);
    expect(pixel(ico, 3, 16)).toEqual([0x0b, 0x6e, 0x4f, 255]);
  });

  it('is an icon, cached for a day', () => {
    expect(FAVICON_HEADERS).toMatchObject({ 'content-type': 'image/x-icon', 'cache-control': 'public, max-age=86400' });
  });
});
