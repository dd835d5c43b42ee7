import { inflateSync } from 'node:zlib';

/** A decoded 8-bit PNG (what headless Chromium's screenshots are): width, height and RGBA pixels. */
export interface Png {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** Decodes an 8-bit, non-interlaced greyscale, RGB or RGBA PNG: enough to look at a screenshot. */
export function decodePng(bytes: Buffer): Png {
  if (bytes.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const depth = body[8]!;
      const colour = body[9]!;
      if (depth !== 8 || body[12] !== 0) throw new Error(`unsupported PNG: depth ${depth}, interlace ${body[12]}`);
      channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[colour] ?? 0;
      if (channels === 0) throw new Error(`unsupported PNG colour type ${colour}`);
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const corner = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels]! : 0;
      pixels[y * stride + x] = (line[x]! + predict(filter, left, up, corner)) & 0xff;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const p = pixels.subarray(i * channels, (i + 1) * channels);
    const [r, g, b] = channels >= 3 ? [p[0]!, p[1]!, p[2]!] : [p[0]!, p[0]!, p[0]!];
    rgba.set([r, g, b, channels === 4 ? p[3]! : channels === 2 ? p[1]! : 255], i * 4);
  }
  return { width, height, rgba };
}

function predict(filter: number, a: number, b: number, c: number): number {
  switch (filter) {
    case 0: return 0;
    case 1: return a;
    case 2: return b;
    case 3: return (a + b) >> 1;
    case 4: {
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    default: throw new Error(`bad PNG filter ${filter}`);
  }
}

/** Pixels within `tolerance` of a `#rrggbb` colour (anti-aliased edges aside). */
export function countColour(png: Png, hex: string, tolerance = 12): number {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  let n = 0;
  for (let i = 0; i < png.rgba.length; i += 4) {
    if (Math.abs(png.rgba[i]! - r!) <= tolerance && Math.abs(png.rgba[i + 1]! - g!) <= tolerance && Math.abs(png.rgba[i + 2]! - b!) <= tolerance) n++;
  }
  return n;
}
