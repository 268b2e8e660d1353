/**
 * GET /favicon.ico, answered by every server a browser opens (rest-compat's pages and docs, the
 * router's GraphiQL): browsers ask for it on every page, and a 404 there fills consoles and logs.
 * The icon is drawn here (a 32×32 ICO: a green rounded square with a white coin) rather than kept
 * as a binary file, so the repository stays text and the picture is reviewable.
 */

const SIZE = 32;
/** Sub-samples per pixel and axis: smooth edges without an image library. */
const SAMPLES = 4;
const GREEN = [0x0b, 0x6e, 0x4f] as const;

export const FAVICON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'image/x-icon',
  // Not versioned (browsers ask for this one name), so cached for a day rather than a year.
  'cache-control': 'public, max-age=86400',
  'x-content-type-options': 'nosniff',
};

let drawn: Buffer | undefined;

/** The icon's bytes, drawn on first use. */
export function favicon(): Buffer {
  return (drawn ??= drawFavicon());
}

/** How much of the point (x, y) is the shape: the rounded square, and the coin's ring and dot in white. */
function paint(x: number, y: number): { square: boolean; white: boolean } {
  const radius = 7;
  const cx = Math.min(Math.max(x, radius), SIZE - radius);
  const cy = Math.min(Math.max(y, radius), SIZE - radius);
  const square = (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
  const fromCentre = Math.hypot(x - SIZE / 2, y - SIZE / 2);
  const white = (fromCentre >= 8 && fromCentre <= 11) || fromCentre <= 3.5;
  return { square, white };
}

function drawFavicon(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row += 1) {
    for (let column = 0; column < SIZE; column += 1) {
      let covered = 0;
      let white = 0;
      for (let sy = 0; sy < SAMPLES; sy += 1)
        for (let sx = 0; sx < SAMPLES; sx += 1) {
          const point = paint(column + (sx + 0.5) / SAMPLES, row + (sy + 0.5) / SAMPLES);
          if (!point.square) continue;
          covered += 1;
          if (point.white) white += 1;
        }
      const share = covered ? white / covered : 0;
      const [red, green, blue] = GREEN.map((channel) => Math.round(channel + (255 - channel) * share));
      // BMP rows run bottom-up, each pixel blue, green, red, alpha.
      const at = ((SIZE - 1 - row) * SIZE + column) * 4;
      pixels[at] = blue!;
      pixels[at + 1] = green!;
      pixels[at + 2] = red!;
      pixels[at + 3] = Math.round((255 * covered) / SAMPLES ** 2);
    }
  }
  // The AND mask (1 bit per pixel, rows padded to 4 bytes) is unused with an alpha channel: all zero.
  const mask = Buffer.alloc(SIZE * Math.ceil(SIZE / 32) * 4);
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0); // BITMAPINFOHEADER
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8); // colour and mask, stacked
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // an icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}
