// Documents pull in nothing: a document that names another file (a linked section, INCLUDETEXT,
// an external reference, WEBSERVICE, DDE…) does not get that file's content, in a DocBuilder
// worker (convert to pdf / txt / csv, extract text) or in an editing kit (open, the recalculation
// keys, the update commands, select all + copy, save, PDF export). The engine's own layer is
// tested: the canary file lies next to the document, in a folder the engine may read (workers/
// confine.ts; a kit's own folder, where its document is handed in), and the commands go straight
// to the kit, past the editing server. The settings that hold, and what LibreOffice 7.4 does
// without any: workers/profile.ts (PROFILE_SETTINGS).
//
// Linked pictures (issue 44 item 4) are tested the same way, with a magenta canary picture inside
// the engine's readable set (a worker's own profile folder, a kit's own folder) and the pages and
// tiles looked at for its colour: BlockUntrustedRefererLinks holds an ODF linked draw:image and a
// docx r:link picture; an SVG picture's <image href> and RTF's INCLUDEPICTURE have no setting and
// are rewritten out of the engine's copy (workers/linked-pictures.ts).
//
// What no setting stops: LibreOffice 7.4 fills a Writer linked section whenever
// .uno:UpdateAllLinks or .uno:UpdateAll is dispatched. The kit refuses both (as the editing
// server's door does), and the confinement refuses the read of anything outside its own folder.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { strFromU8, unzipSync } from "fflate";
import { memoryLogger } from "./log";
import { systemClock } from "./clock";
import { WorkerPool } from "./docbuilder/pool";
import type { Kit } from "./edsrv/kits";
import { useKitPool } from "./edsrv/testing/kit-pool";
import { docxPulling, odmWithSubdocuments, odsHolding, odsPulling, odtWithLinkedSections, xlsxPulling } from "./testing/pulling-documents";
import type { TextResult } from "../workers/protocol";
import { isAllowedUnoName } from "./edsrv/protocol/uno-commands";
import { scaled } from "./testing/until";
import { docxLinkedImages, fodtWithInlinePicture, magentaPixels, magentaPng, odtLinkedImages, pngRgb, rtfLinkedImages, svgLinking } from "./testing/linked-pictures";

const T = scaled(180_000);
/** The kits and the workers may read this folder: documents and canaries lie side by side in it. */
const { dir, pool: kits } = useKitPool("svc-pull-nothing-");
const MARKER = `PULLCANARY${crypto.randomUUID().replace(/-/g, "").slice(0, 16).toUpperCase()}`;
const at = (name: string) => path.join(dir, name);
let workers: WorkerPool;
let seq = 0;

/** Each document names the canaries by absolute path, by path relative to itself, and a system file (not asserted on: the confinement's business). */
function hostileDocuments(): { name: string; bytes: Uint8Array; to: string[]; save: string | null }[] {
  const txt = [at("canary.txt"), "canary.txt", "/etc/hostname"];
  const sheets = [at("canary.ods"), "canary.ods"];
  const xml = [at("canary.xml"), "/etc/hostname"];
  return [
    { name: "sections.odt", bytes: odtWithLinkedSections(txt), to: ["pdf", "txt"], save: "odt" },
    { name: "sections-no-mode.odt", bytes: odtWithLinkedSections(txt, { linkUpdateMode: null }), to: ["pdf", "txt"], save: "odt" },
    { name: "master.odm", bytes: odmWithSubdocuments(txt), to: ["pdf"], save: null },
    { name: "pulling.docx", bytes: docxPulling(txt), to: ["pdf", "txt"], save: "docx" },
    { name: "pulling.ods", bytes: odsPulling(sheets, xml), to: ["pdf", "csv"], save: "ods" },
    { name: "pulling.xlsx", bytes: xlsxPulling(sheets, xml), to: ["pdf", "csv"], save: "xlsx" },
  ];
}
const DOCS = hostileDocuments();

beforeAll(async () => {
  writeFileSync(at("canary.txt"), `${MARKER} text\n`);
  writeFileSync(at("canary.xml"), `<r><x>${MARKER} xml</x></r>`);
  writeFileSync(at("canary.ods"), odsHolding(`${MARKER} sheet`));
  for (const d of DOCS) writeFileSync(at(d.name), d.bytes);
  workers = new WorkerPool({ size: 1, maxJobs: 1000, maxAgeMs: 3_600_000, profileRoot: at("workers"), logger: memoryLogger("warn"), clock: systemClock });
  await workers.start();
}, scaled(120_000));
afterAll(async () => {
  await workers?.shutdown(5_000);
});

/** The text of an output file: pdftotext for a PDF, the XML parts of a package, the bytes otherwise. */
function textOf(file: string): string {
  const bytes = readFileSync(file);
  if (bytes.subarray(0, 5).toString("latin1") === "%PDF-") return execFileSync("pdftotext", [file, "-"]).toString();
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    const parts = unzipSync(new Uint8Array(bytes));
    return Object.entries(parts).map(([name, b]) => (/\.(xml|rels)$/.test(name) ? strFromU8(b) : "")).join("\n");
  }
  return bytes.toString("utf8");
}

async function convert(input: string, to: string): Promise<string> {
  const output = at(`out-${++seq}.${to}`);
  await workers.run({ op: "convert", id: `pull${seq}`, input, output, to }, { runTimeoutMs: 60_000 });
  return textOf(output);
}

describe("documents pull in nothing: DocBuilder", () => {
  test("control: a document that carries the marker itself shows it in every output the checks read", async () => {
    const own = at("own-marker.odt");
    writeFileSync(own, odtWithLinkedSections([], { linkUpdateMode: null, ownText: `${MARKER} own` }));
    for (const to of ["pdf", "txt"]) expect(await convert(own, to)).toContain(MARKER);
    const sheet = at("own-marker.ods");
    writeFileSync(sheet, odsHolding(`${MARKER} own`));
    expect(await convert(sheet, "csv")).toContain(MARKER);
    const text = await workers.run<TextResult>({ op: "text", id: `pull${++seq}`, input: own }, { runTimeoutMs: 60_000 });
    expect(text.text).toContain(MARKER);
  }, T);

  for (const d of DOCS) {
    test(`${d.name}: converted to ${d.to.join(", ")} and its text extracted, with its own cached content and nothing of the canary`, async () => {
      if (d.name.endsWith(".odm")) {
        // A master document is no document type DocBuilder converts: refused, nothing read.
        await expect(convert(at(d.name), "pdf")).rejects.toMatchObject({ code: "unsupported_format" });
        return;
      }
      for (const to of d.to) {
        const out = await convert(at(d.name), to);
        expect(out).toContain("The end.");
        expect(out).toMatch(/cached (section|includetext|extref) 0/);
        expect(out).not.toContain(MARKER);
      }
      const text = await workers.run<TextResult>({ op: "text", id: `pull${++seq}`, input: at(d.name) }, { runTimeoutMs: 60_000 });
      expect(text.text).toContain("The end.");
      expect(text.text).not.toContain(MARKER);
    }, T);
  }
});

// VCL key codes (vcl/keycodes.hxx): KEY_F1 = 768, so F9 = 776; SHIFT 4096, MOD1 (Ctrl) 8192.
const F9 = 776, SHIFT = 4096, MOD1 = 8192;
/** What a person, or a page past the editing server, can make the engine do after the open. */
const STEPS: { name: string; key?: number; command?: string }[] = [
  { name: "F9", key: F9 },
  { name: "Ctrl+Shift+F9", key: F9 | SHIFT | MOD1 },
  { name: ".uno:UpdateFields", command: ".uno:UpdateFields" },
  { name: ".uno:Calculate", command: ".uno:Calculate" },
  { name: ".uno:CalculateHard", command: ".uno:CalculateHard" },
  { name: ".uno:UpdateTableLinks", command: ".uno:UpdateTableLinks" },
  { name: ".uno:UpdateAllLinks", command: ".uno:UpdateAllLinks" },
  { name: ".uno:UpdateAll", command: ".uno:UpdateAll" },
];
/** LibreOffice 7.4 follows a Writer linked section on these whatever the settings (see the top). */
const FOLLOWS_SECTIONS = new Set([".uno:UpdateAllLinks", ".uno:UpdateAll"]);

/** Everything a person could take away from the kit's document now: the copy, a PDF, the saved file. */
async function whatLeaves(kit: Kit, viewId: number, save: string | null): Promise<string> {
  await kit.request("uno", { viewId, command: ".uno:SelectAll" });
  const copy = await kit.request("selection", { viewId });
  const parts = [copy.html, copy.text];
  if (save) {
    for (const format of ["pdf", save]) {
      const out = at(`kit-out-${++seq}.${format}`);
      await kit.request("save", { path: out, format });
      parts.push(textOf(out));
    }
  }
  return parts.join("\n");
}

async function step(kit: Kit, viewId: number, s: { key?: number; command?: string }): Promise<void> {
  if (s.key !== undefined) {
    await kit.request("key", { viewId, type: "input", char: 0, key: s.key });
    await kit.request("key", { viewId, type: "up", char: 0, key: s.key });
  } else if (isAllowedUnoName(s.command!)) await kit.request("uno", { viewId, command: s.command! });
  // Off the editing server's list: the kit refuses it too (its second wall), and LibreOffice never runs it.
  else await expect(kit.request("uno", { viewId, command: s.command! })).rejects.toThrow("not allowed");
  await kit.request("settle", {});
}

async function openInKit(name: string): Promise<{ kit: Kit; viewId: number }> {
  const kit = await kits().acquire();
  // The document is handed into the kit's own folder, the one it may read: the canaries go there
  // too, so that a document naming them by a relative path could read them but for the settings.
  for (const c of ["canary.txt", "canary.xml", "canary.ods"]) copyFileSync(at(c), path.join(kit.documentDir, c));
  await kit.request("load", { path: at(name) });
  const { viewId } = await kit.request("view", { readOnly: false, author: "t" });
  return { kit, viewId };
}

describe("documents pull in nothing: editing kit", () => {
  for (const d of DOCS) {
    const steps = STEPS;
    test(`${d.name}: open, then ${steps.map((s) => s.name).join(", ")}: the copy${d.save ? `, the PDF and the saved ${d.save}` : ""} hold nothing of the canary`, async () => {
      const { kit, viewId } = await openInKit(d.name);
      try {
        const opened = await whatLeaves(kit, viewId, d.save);
        expect(opened).toContain("The end.");
        expect(opened).not.toContain(MARKER);
        for (const s of steps) {
          await step(kit, viewId, s);
          expect([s.name, (await whatLeaves(kit, viewId, d.save)).includes(MARKER)]).toEqual([s.name, false]);
        }
      } finally {
        kits().release(kit);
      }
    }, T);
  }

  test("the commands that fill a linked section whatever the settings (.uno:UpdateAllLinks, .uno:UpdateAll) are refused by the kit itself, and the section stays empty", async () => {
    // LibreOffice 7.4 follows a Writer linked section on these commands whatever the profile says
    // (workers/profile.ts): no setting holds them, so neither the editing server's door nor the
    // kit lets them through, and the confinement refuses the read besides.
    const { kit, viewId } = await openInKit("sections.odt");
    try {
      for (const command of FOLLOWS_SECTIONS) {
        await expect(kit.request("uno", { viewId, command })).rejects.toThrow("not allowed");
      }
      const after = await whatLeaves(kit, viewId, "odt");
      expect(after).toContain("The end.");
      expect(after).not.toContain(MARKER);
    } finally {
      kits().release(kit);
    }
  }, T);
});

// ---------------------------------------------------------------------------------------------
// Linked pictures (issue 44 item 4): the canary lies inside the engine's readable set, so only
// the engine's settings and the rewrite of its copy keep it out.

/** Magenta pixels on every page of a PDF (rendered small by pdftoppm). */
function pdfMagenta(pdf: string): number {
  const prefix = `${pdf}-page`;
  execFileSync("pdftoppm", ["-r", "30", "-png", pdf, prefix]);
  const dirOf = path.dirname(pdf);
  return require("node:fs")
    .readdirSync(dirOf)
    .filter((f: string) => f.startsWith(path.basename(prefix)))
    .reduce((n: number, f: string) => n + magentaPixels(pngRgb(readFileSync(path.join(dirOf, f)))), 0);
}

/** Each document names the canary one way; the SVG one carries the linking SVG as a picture named .png (known by content). */
function pictureDocuments(canary: string): { name: string; bytes: Uint8Array }[] {
  return [
    { name: "linked-image.odt", bytes: odtLinkedImages([canary]) },
    { name: "linked-image.docx", bytes: docxLinkedImages([canary], { ways: ["link"] }) },
    { name: "includepicture.docx", bytes: docxLinkedImages([canary], { ways: ["includepicture"] }) },
    { name: "svg-image.docx", bytes: docxLinkedImages([canary], { ways: ["svg"] }) },
    { name: "svg-image.odt", bytes: odtLinkedImages([], { embedded: new TextEncoder().encode(svgLinking(canary)) }) },
    // A prolog longer than the first 4 kB the check reads of a part.
    { name: "svg-long-comment.docx", bytes: docxLinkedImages([], { svg: svgLinking(canary).replace("?>\n", `?>\n<!--${"x".repeat(6000)}-->\n`) }) },
    { name: "svg-long-comment.odt", bytes: odtLinkedImages([], { embedded: new TextEncoder().encode(svgLinking(canary).replace("?>\n", `?>\n<!--${"x".repeat(6000)}-->\n`)) }) },
    // UTF-16 (LibreOffice reads nothing of it: kept here in case that changes).
    { name: "svg-utf16.docx", bytes: docxLinkedImages([], { svg: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(svgLinking(canary).replace('encoding="UTF-8"', 'encoding="UTF-16"'), "utf16le")]) }) },
    // An SVG inside another root element (LibreOffice shows nothing of it: kept in case that changes).
    { name: "svg-nested-image.odt", bytes: odtLinkedImages([], { embedded: new TextEncoder().encode(`<?xml version="1.0"?><picture>${svgLinking(canary).replace(/^<\?xml[^>]*>\n/, "")}</picture>`) }) },
    // An SVG that starts with UTF-8's byte-order mark is an SVG to LibreOffice too.
    { name: "svg-bom-image.odt", bytes: odtLinkedImages([], { embedded: new TextEncoder().encode(`\uFEFF${svgLinking(canary)}`) }) },
    { name: "includepicture.rtf", bytes: rtfLinkedImages([canary]) },
    { name: "svg-inline.fodt", bytes: fodtWithInlinePicture(new TextEncoder().encode(svgLinking(canary))) },
    { name: "svg-in-svg.docx", bytes: docxLinkedImages([], { svg: svgLinking(`data:image/svg+xml;base64,${Buffer.from(svgLinking(canary)).toString("base64")}`) }) },
  ];
}

describe("linked pictures resolve to nothing, the canary inside the engine's readable set", () => {
  /** The worker's own profile folder: a file the engine may read, confinement or not. */
  const workerCanary = () => at("workers/worker-0/canary.png");

  test("control: the same picture embedded shows in the PDF and the thumbnail", async () => {
    writeFileSync(workerCanary(), magentaPng());
    const own = at("embedded-picture.odt");
    writeFileSync(own, odtLinkedImages([], { embedded: magentaPng() }));
    const pdf = at(`out-${++seq}.pdf`);
    await workers.run({ op: "convert", id: `pull${seq}`, input: own, output: pdf, to: "pdf" }, { runTimeoutMs: 60_000 });
    expect(pdfMagenta(pdf)).toBeGreaterThan(100);
    const png = at(`out-${++seq}.png`);
    await workers.run({ op: "thumbnail", id: `pull${seq}`, input: own, output: png, width: 256 }, { runTimeoutMs: 60_000 });
    expect(magentaPixels(pngRgb(readFileSync(png)))).toBeGreaterThan(100);
  }, T);

  for (const d of pictureDocuments("/placeholder")) {
    test(`DocBuilder: ${d.name} converted to PDF and its thumbnail show nothing of the canary`, async () => {
      writeFileSync(workerCanary(), magentaPng());
      const doc = pictureDocuments(workerCanary()).find((x) => x.name === d.name)!;
      const input = at(`w-${doc.name}`);
      writeFileSync(input, doc.bytes);
      const pdf = at(`out-${++seq}.pdf`);
      await workers.run({ op: "convert", id: `pull${seq}`, input, output: pdf, to: "pdf" }, { runTimeoutMs: 60_000 });
      expect(execFileSync("pdftotext", [pdf, "-"]).toString()).toContain("The end.");
      expect([doc.name, pdfMagenta(pdf)]).toEqual([doc.name, 0]);
      const png = at(`out-${++seq}.png`);
      await workers.run({ op: "thumbnail", id: `pull${seq}`, input, output: png, width: 256 }, { runTimeoutMs: 60_000 });
      expect([doc.name, magentaPixels(pngRgb(readFileSync(png)))]).toEqual([doc.name, 0]);
    }, T);

    test(`editing kit: ${d.name} opened shows nothing of the canary in its tiles, its PDF or its saved copy`, async () => {
      const kit = await kits().acquire();
      try {
        const canary = path.join(kit.documentDir, "canary.png");
        writeFileSync(canary, magentaPng());
        const doc = pictureDocuments(canary).find((x) => x.name === d.name)!;
        writeFileSync(at(`k-${doc.name}`), doc.bytes);
        await kit.request("load", { path: at(`k-${doc.name}`) });
        const { viewId } = await kit.request("view", { readOnly: false, author: "t" });
        const r = await kit.request("tiles", { viewId, part: 0, width: 256, height: 256, w: 3840, h: 3840, tiles: [[0, 0, 0], [3840, 0, 0], [0, 3840, 0], [3840, 3840, 0]] });
        if (r.stale) throw new Error("tiles answered stale");
        const tiles = r.tiles.reduce((n, t) => n + (t.png ? magentaPixels(pngRgb(Buffer.from(t.png, "base64"))) : 0), 0);
        expect([doc.name, "tiles", tiles]).toEqual([doc.name, "tiles", 0]);
        const pdf = at(`kit-out-${++seq}.pdf`);
        await kit.request("save", { path: pdf, format: "pdf" });
        expect([doc.name, "pdf", pdfMagenta(pdf)]).toEqual([doc.name, "pdf", 0]);
        // The saved copy, opened again by a worker: still nothing (a link kept would be read there).
        const ext = path.extname(doc.name).slice(1);
        const saved = at(`kit-out-${++seq}.${ext}`);
        await kit.request("save", { path: saved, format: ext });
        const again = at(`out-${++seq}.pdf`);
        writeFileSync(workerCanary(), magentaPng());
        await workers.run({ op: "convert", id: `pull${seq}`, input: saved, output: again, to: "pdf" }, { runTimeoutMs: 60_000 });
        expect([doc.name, "saved", pdfMagenta(again)]).toEqual([doc.name, "saved", 0]);
      } finally {
        kits().release(kit);
      }
    }, T);
  }
});

describe("a picture inserted or pasted in the editor pulls in nothing either", () => {
  for (const how of ["insertgraphic", "paste"] as const) {
    test(`${how}: an SVG naming the canary, sent as image/png, shows nothing of the canary`, async () => {
      const kit = await kits().acquire();
      try {
        const canary = path.join(kit.documentDir, "canary.png");
        writeFileSync(canary, magentaPng());
        writeFileSync(at(`ins-${how}.odt`), odtLinkedImages([]));
        await kit.request("load", { path: at(`ins-${how}.odt`) });
        const { viewId } = await kit.request("view", { readOnly: false, author: "t" });
        const data = Buffer.from(svgLinking(canary)).toString("base64");
        // Refused by the kit (the bytes are no PNG), or inserted without the canary: either way nothing of it shows.
        await kit.request(how, { viewId, mime: "image/png", data }).catch((e: Error) => expect(e.message).toContain("not a"));
        await kit.request("settle", {});
        const pdf = at(`kit-out-${++seq}.pdf`);
        await kit.request("save", { path: pdf, format: "pdf" });
        expect([how, pdfMagenta(pdf)]).toEqual([how, 0]);
      } finally {
        kits().release(kit);
      }
    }, T);
  }
});
