// The engines make no network request (issue 21, item 3): LibreOffice, in a DocBuilder worker or
// in an editing-server kit, fetches nothing that a document or a paste refers to. Canary servers
// listen on 127.0.0.1, 127.0.0.2 and [::1] (and are named as 0x7f000002 too); every document here
// links pictures and stylesheets on all of them, and each test fails if a single connection
// arrives, whatever it asked for. Real gate and workers, real editing server and kits, a loopback
// WOPI host. How the engines are cut off: workers/profile.ts.
//
// The same documents also name pictures and stylesheets on this machine's disk, by file: URL and
// by path, in a folder outside the engines' own: LibreOffice read them (a select all + copy
// carried such a picture's bytes back to the page) until the engines were confined to their own
// folders (workers/confine.ts).

import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { strFromU8, unzipSync } from "fflate";
import { parseConfig } from "./config";
import { memoryLogger } from "./log";
import { createEdsrv, type Edsrv } from "./edsrv/server";
import { startWopiHost } from "./edsrv/testing/wopi-host";
import { TestSocket, docWsUrl } from "./edsrv/testing/ws-client";
import { CANARY_PNG, startCanary, type Canary } from "./testing/canary";
import { AUTH, enterpriseEnv, form, startTestService, type Harness } from "./testing/harness";
import { docxLinkingImages, htmlLinkingResources, odtLinkingImages } from "./testing/linking-documents";
import { quietFor, scaled } from "./testing/until";

let canary: Canary;
let svc: Harness;
let ed: Edsrv;
let host: ReturnType<typeof startWopiHost>;
let origin: string;
/** The documents, by name: each links pictures (and the HTML stylesheets) on every canary. */
const DOC_NAMES = ["linked.docx", "linked.odt", "page-as.docx", "page-as.odt", "page-as.doc", "page-as.rtf"] as const;
let docs: { name: string; bytes: Uint8Array }[];
let seq = 0;
/** Hits already reported by an earlier test (each test reports only its own). */
let reported = 0;

/** A folder outside every engine's own, holding the pictures and stylesheets the documents name by path. */
let localDir: string;

beforeAll(async () => {
  canary = startCanary();
  localDir = mkdtempSync(path.join(tmpdir(), "svc-local-links-"));
  const b = [...canary.bases, `file://${localDir}`, localDir];
  for (let i = 0; i < b.length; i++) {
    for (const kind of ["docx", "odt", "html"]) writeFileSync(path.join(localDir, `${kind}-image-${i}.png`), CANARY_PNG);
    writeFileSync(path.join(localDir, `style-${i}.css`), "p { color: #ff0000 }");
  }
  const html = new TextEncoder().encode(htmlLinkingResources(b));
  // HTML delivered under office names: LibreOffice detects it by content and imports it as HTML.
  const bytesOf = (name: string) => (name === "linked.docx" ? docxLinkingImages(b) : name === "linked.odt" ? odtLinkingImages(b) : html);
  docs = DOC_NAMES.map((name) => ({ name, bytes: bytesOf(name) }));
  host = startWopiHost();
  host.addToken("tok_edit", "u1", true, "Alice");
  const [s, e] = await Promise.all([
    startTestService({ SVC_DOCBUILDER_WORKERS: "1", ...enterpriseEnv() }),
    createEdsrv({
      config: parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "edsrv-nonet-")), SVC_ONLINE_ALIASGROUP1: host.origin }),
      logger: memoryLogger("warn"),
      listen: { hostname: "127.0.0.1", port: 0 },
      idleKits: 1,
      autosaveSeconds: 0,
    }),
  ]);
  svc = s;
  ed = e;
  origin = `http://${new URL(ed.url).host}`;
}, scaled(120_000));

afterAll(async () => {
  await ed?.close();
  host?.stop();
  await svc?.close();
  canary?.stop();
});

/** A fetch that happened may still be on its way (LibreOffice loads some pictures late): a quiet window, failing at the first request. */
async function expectNoRequest(): Promise<void> {
  await quietFor(300, "no request reached the canary after the engine finished", () => (canary.hits.length > reported ? canary.hits.slice(reported).map((h) => `${h.on} ${h.line}`) : false));
  const mine = canary.hits.slice(reported);
  reported = canary.hits.length;
  expect(mine.map((h) => `${h.on} ${h.line}`)).toEqual([]);
}
afterEach(() => {
  reported = canary.hits.length;
});

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("engines make no network request: DocBuilder", () => {
  for (const [i, name] of DOC_NAMES.entries()) {
    test(`convert to pdf: ${name} (${name.startsWith("linked") ? "linked pictures" : "HTML with linked stylesheets and pictures"})`, async () => {
      const d = docs[i]!;
      const res = await fetch(`${svc.url}/v1/convert`, { method: "POST", headers: AUTH, body: form({ bytes: d.bytes, name: d.name }, { to: "pdf" }) });
      // HTML under a ZIP name is refused as not a package; the others convert.
      if (d.name.startsWith("linked") || d.name.endsWith(".doc") || d.name.endsWith(".rtf")) expect(res.status).toBe(200);
      await res.arrayBuffer();
      await expectNoRequest();
    }, scaled(60_000));
  }

  test("convert to odt and extract text: linked pictures stay links", async () => {
    for (const d of docs.slice(0, 2)) {
      const res = await fetch(`${svc.url}/v1/convert`, { method: "POST", headers: AUTH, body: form({ bytes: d.bytes, name: d.name }, { to: "odt" }) });
      expect(res.status).toBe(200);
      const content = strFromU8(unzipSync(new Uint8Array(await res.arrayBuffer()))["content.xml"]!);
      expect(content).toContain(`${canary.bases[1]}/`);
      const text = await fetch(`${svc.url}/v1/extract/text`, { method: "POST", headers: AUTH, body: form({ bytes: d.bytes, name: d.name }) });
      expect(text.status).toBe(200);
      await text.arrayBuffer();
    }
    await expectNoRequest();
  }, scaled(60_000));

  test("thumbnail of documents with linked pictures", async () => {
    for (const d of [docs[0]!, docs[1]!, docs[4]!]) {
      const res = await fetch(`${svc.url}/v1/extract/thumbnail`, { method: "POST", headers: AUTH, body: form({ bytes: d.bytes, name: d.name }) });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    await expectNoRequest();
  }, scaled(60_000));
});

async function openInEditor(name: string, bytes: Uint8Array): Promise<{ s: TestSocket; id: string }> {
  const id = `nonet${++seq}`;
  const src = host.addFile(id, name, bytes);
  const s = new TestSocket(docWsUrl(ed.url, src, "tok_edit"), origin);
  await s.opened;
  s.send(`load url=${encodeURIComponent(src)}`);
  const first = await Promise.race([s.waitText("status:"), s.waitText("error:")]);
  expect(first).toStartWith("status:");
  // The first screen painted, as a page asks for it: pictures are drawn (or fetched) now.
  s.send("tilecombine part=0 width=256 height=256 tileposx=0,3840 tileposy=0,0 tilewidth=3840 tileheight=3840 id=1");
  await s.wait((f) => typeof f !== "string" && new TextDecoder().decode(f.subarray(0, 12)).startsWith("tile: id=1 "));
  return { s, id };
}

describe("engines make no network request: editing server", () => {
  for (const [i, name] of DOC_NAMES.entries()) {
    test(`open and paint: ${name}`, async () => {
      const { s } = await openInEditor(name, docs[i]!.bytes);
      await expectNoRequest();
      s.close();
      await s.whenClosed();
    }, scaled(60_000));
  }

  test("select all + copy: the copied HTML carries no fetched picture, from the network or from the server's disk", async () => {
    for (const d of [docs[0]!, docs[1]!, docs[2]!]) {
      const { s } = await openInEditor(d.name, d.bytes);
      s.send("uno .uno:SelectAll");
      const n = s.frames.length;
      s.send("gettextselection mimetype=text/html,text/plain;charset=utf-8");
      const content = JSON.parse((await s.waitText("textselectioncontent:", n)).slice("textselectioncontent: ".length));
      expect(content["text/plain;charset=utf-8"]).toContain("The end.");
      expect(content["text/html"]).not.toContain(b64(CANARY_PNG).slice(0, 40));
      s.close();
      await s.whenClosed();
    }
    await expectNoRequest();
  }, scaled(60_000));

  test("paste of HTML with <img src=http://127.0.0.2:…>: nothing fetched, the stored docx keeps a link, no picture", async () => {
    const { s, id } = await openInEditor("hello.docx", docxLinkingImages([]));
    const html = `<html><body><p>Pasted <img src="${canary.bases[1]}/pasted.png" width="20" height="20"> and <img src="${canary.bases[2]}/pasted-v6.png"> and <img src="${canary.bases[3]}/pasted-hex.png"></p></body></html>`;
    s.send("uno .uno:GoToEndOfDoc");
    s.send(`paste mimetype=text/html data=${b64(new TextEncoder().encode(html))}`);
    await s.waitText("statechanged: .uno:ModifiedStatus=true");
    const n = s.frames.length;
    s.send("save notify=1");
    expect(JSON.parse((await s.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
    const stored = unzipSync(host.puts.filter((p) => p.fileId === id && p.status === 200).pop()!.bytes);
    expect(strFromU8(stored["word/document.xml"]!)).toContain("Pasted");
    const media = Object.keys(stored).filter((k) => k.startsWith("word/media/"));
    expect(media.filter((k) => Buffer.from(stored[k]!).equals(CANARY_PNG))).toEqual([]);
    expect(strFromU8(stored["word/_rels/document.xml.rels"]!)).toContain(`${canary.bases[1]}/pasted.png`);
    s.close();
    await expectNoRequest();
  }, scaled(60_000));

  test("print and export (PDF) of documents with linked pictures", async () => {
    for (const d of [docs[0]!, docs[1]!, docs[3]!]) {
      const { s } = await openInEditor(d.name, d.bytes);
      for (const purpose of ["print", "export"]) {
        const n = s.frames.length;
        s.send(`downloadas name=out.pdf id=${purpose} format=pdf`);
        const frame = await Promise.race([s.waitText("downloadas:", n), s.waitText("error:", n)]);
        const downloadId = /downloadid=(\S+)/.exec(frame)?.[1];
        expect(downloadId).toBeDefined();
        const res = await fetch(`${ed.url}/ed/x/download/${downloadId}`);
        expect(new TextDecoder().decode((await res.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
      }
      s.close();
      await s.whenClosed();
    }
    await expectNoRequest();
  }, scaled(60_000));
});

describe("engines make no network request: editing server conversion", () => {
  test("convert-to pdf of documents with linked pictures and stylesheets", async () => {
    for (const d of [docs[0]!, docs[2]!, docs[5]!]) {
      const body = new FormData();
      body.append("data", new Blob([d.bytes as Uint8Array<ArrayBuffer>]), d.name);
      const res = await fetch(`${ed.url}/ed/convert-to/pdf`, { method: "POST", body });
      expect(res.status).toBe(200);
      expect(new TextDecoder().decode((await res.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
    }
    await expectNoRequest();
  }, scaled(60_000));
});

test("engines make no network request: none arrived during the whole run", async () => {
  await quietFor(500, "no request reached the canary", () => (canary.hits.length ? canary.describe() : false));
  expect(canary.describe()).toBe("(none)");
});
