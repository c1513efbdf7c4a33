import { describe, expect, test } from "bun:test";
import { decodeImage, MAX_IMAGE_PIXELS } from "./images";
import { b64, makeJpeg, makePng } from "./testing";
import { ScriptRunError } from "./types";

const failure = (data: string): ScriptRunError => {
  try {
    decodeImage(data, "/body/7");
  } catch (e) {
    if (e instanceof ScriptRunError) return e;
    throw e;
  }
  throw new Error("expected a ScriptRunError");
};

describe("images are checked by us, not trusted to the libraries", () => {
  test("PNG and JPEG dimensions come from their headers", () => {
    expect(decodeImage(b64(makePng(31, 7)), "/x")).toMatchObject({ type: "png", width: 31, height: 7 });
    expect(decodeImage(`data:image/jpeg;base64,${b64(makeJpeg(50, 9))}`, "/x")).toMatchObject({ type: "jpg", width: 50, height: 9 });
    // Base64 with line breaks, as many encoders write it.
    expect(decodeImage(b64(makePng(3, 3)).replace(/(.{16})/g, "$1\n"), "/x").width).toBe(3);
  });

  test("a PNG whose pixel data does not match its header does not decode", () => {
    const e = failure(b64(makePng(10, 10, [1, 2, 3], { height: 20 })));
    expect(e.path).toBe("/body/7");
    expect(e.message).toContain("the pixel data has 310 bytes, the header promises 620");
  });

  test("a PNG without image data, or truncated, does not decode", () => {
    const png = makePng(4, 4);
    expect(failure(b64(png.subarray(0, 33))).message).toContain("PNG image does not decode");
    expect(failure(b64(png.subarray(0, png.length - 12))).message).toContain("no IEND");
  });

  test("an image over the pixel limit is refused before its data is inflated", () => {
    const side = Math.ceil(Math.sqrt(MAX_IMAGE_PIXELS)) + 1;
    expect(failure(b64(makePng(2, 2, [0, 0, 0], { width: side, height: side }))).message).toContain("image is too large");
  });

  test("a JPEG without a frame header or without its end marker does not decode; padding after the end is fine", () => {
    const jpg = makeJpeg(16, 16);
    const sof = jpg.findIndex((b, i) => b === 0xff && jpg[i + 1] === 0xc0);
    const noSof = new Uint8Array([...jpg.subarray(0, sof), ...jpg.subarray(sof + 13)]);
    expect(failure(b64(noSof)).message).toContain("no frame header");
    expect(failure(b64(jpg.subarray(0, jpg.length - 2))).message).toContain("no end-of-image marker");
    expect(decodeImage(b64(new Uint8Array([...jpg, 0, 0, 0])), "/x").width).toBe(16);
  });

  test("only PNG and JPEG are accepted", () => {
    expect(failure(b64(new TextEncoder().encode("GIF89a......"))).message).toBe("image data is neither a PNG nor a JPEG file");
    expect(failure("data:text/plain;base64,aGVsbG8=").message).toBe("image data is neither a PNG nor a JPEG file");
    expect(failure("not*base64").message).toBe("image data is not valid base64");
  });
});
