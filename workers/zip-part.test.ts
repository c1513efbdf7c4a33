// workers/zip-part.ts: a part is inflated no further than the size it declares, plus a bounded
// overshoot, whichever inflate does it (the zip guard runs it on the service's event loop).
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { deflateRawSync } from "node:zlib";
import { NATIVE_INFLATE_OVERSHOOT_BYTES, inflatePart, inflatesNatively } from "./zip-part";

const spies: { mockRestore(): void }[] = [];
afterEach(() => {
  for (const s of spies.splice(0)) s.mockRestore();
});

/** Calls of Bun's native inflate (which takes no output bound) while `run` runs, and their output sizes. */
function nativeInflates(run: () => void): number[] {
  const sizes: number[] = [];
  const real = Bun.inflateSync.bind(Bun);
  const spy = spyOn(Bun, "inflateSync").mockImplementation(((data: Uint8Array, options?: Bun.ZlibCompressionOptions) => {
    const out = real(data as Uint8Array<ArrayBuffer>, options);
    sizes.push(out.length);
    return out;
  }) as typeof Bun.inflateSync);
  spies.push(spy);
  run();
  return sizes;
}

describe("zip part inflation (zip bomb guard)", () => {
  test("a part declaring less than it inflates to is refused without inflating past its declared size plus the overshoot", () => {
    // 64 MiB of zeros deflate to about 64 kB: the part declares a kilobyte.
    const bomb = deflateRawSync(Buffer.alloc(64 << 20));
    expect(bomb.length).toBeLessThanOrEqual(64 * 1024);
    let outcome: ReturnType<typeof inflatePart> | undefined;
    const natively = nativeInflates(() => {
      outcome = inflatePart(bomb, 1024);
    });
    expect(outcome).toBe("over");
    for (const size of natively) expect(size).toBeLessThanOrEqual(1024 + NATIVE_INFLATE_OVERSHOOT_BYTES);
  });

  test("an ordinary small part is inflated natively, whole and exact", () => {
    const xml = Buffer.from(`<?xml version="1.0"?><w:document>${"<w:p><w:r><w:t>Xin chào</w:t></w:r></w:p>".repeat(300)}</w:document>`);
    const raw = deflateRawSync(xml);
    let out: ReturnType<typeof inflatePart> | undefined;
    const natively = nativeInflates(() => {
      out = inflatePart(raw, xml.length);
    });
    expect(natively).toEqual([xml.length]);
    expect(Buffer.from(out as Uint8Array).equals(xml)).toBe(true);
  });

  test("a part inflating past its declared size is over by either inflate; a broken one is broken", () => {
    const xml = Buffer.from("<a>" + "b".repeat(5000) + "</a>");
    const raw = deflateRawSync(xml);
    expect(inflatesNatively(raw.length, xml.length - 1)).toBe(true);
    expect(inflatePart(raw, xml.length - 1)).toBe("over");
    const large = deflateRawSync(Buffer.from(Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(65 + ((i * 7919) % 26))).join("")));
    expect(inflatesNatively(large.length, 1000)).toBe(false);
    expect(inflatePart(large, 1000)).toBe("over");
    expect(inflatePart(new Uint8Array([0xff, 0xff, 0xff, 0xff]), 10)).toBe("broken");
  });
});
