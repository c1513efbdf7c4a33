// Our tiles' PNGs decoded on the page's own thread while the person types.

/**
 * One of our tiles (workers/png.ts: 8-bit RGB, rows filtered None or Up) decoded on this thread
 * into a canvas, for tiles that arrive while the user types: Chromium runs image decoding
 * (createImageBitmap) behind input, and at automation speed nothing typed reached the screen until
 * typing stopped. Null for anything else (the browser's decoder then does it), and until
 * fflate.js (loaded after the first screen) is there.
 */
export function decodeNow(png: Uint8Array): HTMLCanvasElement | null {
  const fflate = window.fflate;
  if (!fflate) return null;
  try {
    const dv = new DataView(png.buffer, png.byteOffset, png.byteLength);
    const idat: Uint8Array[] = [];
    let off = 8, w = 0, h = 0, size = 0;
    while (off + 12 <= png.length) {
      const len = dv.getUint32(off), type = String.fromCharCode(png[off + 4]!, png[off + 5]!, png[off + 6]!, png[off + 7]!);
      if (type === "IHDR") {
        w = dv.getUint32(off + 8); h = dv.getUint32(off + 12);
        if (png[off + 16] !== 8 || png[off + 17] !== 2 || png[off + 20] !== 0) return null; // not 8-bit RGB, or interlaced
      } else if (type === "IDAT") { idat.push(png.subarray(off + 8, off + 8 + len)); size += len; }
      off += 12 + len;
    }
    if (!w || !h || !idat.length) return null;
    let z = idat[0]!;
    if (idat.length > 1) { z = new Uint8Array(size); for (let i = 0, at = 0; i < idat.length; at += idat[i]!.length, i++) z.set(idat[i]!, at); }
    const stride = w * 3, raw = fflate.unzlibSync(z, { out: new Uint8Array((stride + 1) * h) });
    const c = document.createElement("canvas"); c.width = w; c.height = h;
    const cx = c.getContext("2d")!, img = cx.createImageData(w, h), d = img.data;
    for (let y = 0, o = 0; y < h; y++) {
      const row = y * (stride + 1), f = raw[row];
      if (f === 2 && y > 0) { for (let x = 1; x <= stride; x++) raw[row + x] = (raw[row + x]! + raw[row - stride - 1 + x]!) & 255; }
      else if (f !== 0 && !(f === 2 && y === 0)) return null; // a filter our encoder does not use
      for (let p = row + 1, end = row + 1 + stride; p < end; p += 3) { d[o++] = raw[p]!; d[o++] = raw[p + 1]!; d[o++] = raw[p + 2]!; d[o++] = 255; }
    }
    cx.putImageData(img, 0, 0);
    return c;
  } catch {
    return null;
  }
}
