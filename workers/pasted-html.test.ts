// Pasted HTML cannot bring the server's files into a document (issue 21's leftover: a pasted
// `<img src="file:///…">` embedded any readable local picture).
import { beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { unzipSync } from "fflate";
import type { Kit } from "../app/edsrv/kits";
import { useKitPool } from "../app/edsrv/testing/kit-pool";
import { confinePastedHtml } from "./pasted-html";
import { scaled } from "../app/testing/until";

/** A small red PNG (8×8). */
function redPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
  const crc = (b: Buffer) => { let c = 0xffffffff; for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
  const chunk = (type: string, data: Buffer) => { const t = Buffer.concat([Buffer.from(type), data]); const len = Buffer.alloc(4); len.writeUInt32BE(data.length); const c = Buffer.alloc(4); c.writeUInt32BE(crc(t)); return Buffer.concat([len, t, c]); };
  const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(8, 0); ihdr.writeUInt32BE(8, 4); ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.concat(Array.from({ length: 8 }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(24, 0).map((_, i) => (i % 3 === 0 ? 255 : 0))])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

const { dir, pool } = useKitPool("svc-paste-");
const secretPicture = path.join(dir, "secret.png");
beforeAll(() => writeFileSync(secretPicture, redPng()));

/** Pastes `html` into a fresh hello.docx in a kit and answers the pictures the saved file holds. */
async function picturesAfterPasting(html: string): Promise<string[]> {
  const kit: Kit = await pool().acquire();
  try {
    const doc = path.join(dir, `doc-${Math.random().toString(36).slice(2)}.docx`);
    copyFileSync(path.join(import.meta.dir, "../fixtures/hello.docx"), doc);
    await kit.request("load", { path: doc });
    const { viewId } = await kit.request("view", { readOnly: false, author: "t" });
    await kit.request("paste", { viewId, mime: "text/html", data: Buffer.from(html).toString("base64") });
    const out = path.join(dir, `out-${Math.random().toString(36).slice(2)}.docx`);
    await kit.request("save", { path: out, format: "docx" });
    return Object.keys(unzipSync(new Uint8Array(readFileSync(out)))).filter((n) => n.startsWith("word/media/"));
  } finally {
    pool().release(kit);
  }
}

describe("pasted HTML", () => {
  test("a picture the page carries (data:image) is pasted: the check can see a picture arrive", async () => {
    const html = `<html><body><p>with a picture <img src="data:image/png;base64,${redPng().toString("base64")}" width="8" height="8"></p></body></html>`;
    expect((await picturesAfterPasting(html)).length).toBe(1);
  }, scaled(60_000));

  test("a picture named by a file: URL, however spelled, or by a relative path, is not read from the server's disk", async () => {
    const srcs = [`file://${secretPicture}`, `FILE://${secretPicture}`, `file&#58;//${secretPicture}`, `fi\tle://${secretPicture}`, path.relative(dir, secretPicture), secretPicture];
    const html = `<html><body>${srcs.map((src) => `<p>no picture <img src="${src}" width="8" height="8"></p>`).join("")}</body></html>`;
    expect(await picturesAfterPasting(html)).toEqual([]);
  }, scaled(60_000));

  test("confinePastedHtml keeps what the page carries and the web's links, empties everything else", () => {
    expect(confinePastedHtml('<a href="https://example.org/">x</a><img src="data:image/png;base64,AAA">')).toBe('<a href="https://example.org/">x</a><img src="data:image/png;base64,AAA">');
    expect(confinePastedHtml("<img src='file:///etc/x.png'><td background=/etc/y.png>")).toBe(`<img src=""><td background="">`);
    expect(confinePastedHtml('<p style="background:url(file:///x.png)">')).toBe('<p style="background:url()">');
    expect(confinePastedHtml('<style>@import "file:///x.css"; p{}</style>')).toBe("<style> p{}</style>");
  });
});
