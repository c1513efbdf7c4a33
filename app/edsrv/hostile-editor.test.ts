// A person allowed to open a document in the editor, working as an attacker would (issue 30): UNO
// commands that name files, documents whose links point at files, a read-only view's tricks,
// commands that break the engine for everyone, oversized input. For each, the canary file outside
// the kit's folders, the engine's environment, the service's secrets and another customer's open
// document appear in no reply, copy, export or stored version, and the other person keeps typing
// and saving. Real kits, a loopback WOPI host.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { parseConfig } from "../config";
import { memoryLogger } from "../log";
import { createEdsrv, type Edsrv } from "./server";
import { startWopiHost } from "./testing/wopi-host";
import { TestSocket, openDocument } from "./testing/ws-client";
import { INPUT_LIMITS, KEY_RATE, PASTE_LIMITS } from "./view-commands";
import { quietFor, scaled, waitFor } from "../testing/until";

const FIX = path.resolve(import.meta.dir, "../../fixtures");
const CANARY = `canary-${crypto.randomUUID()}`;
const VICTIM = `victim-${crypto.randomUUID()}`;
/** The service's secrets as an operator sets them: none may reach an engine or a page. */
const SECRETS: Record<string, string> = {
  SVC_EMBED_JWT_SECRET: `jwt-${crypto.randomUUID()}`,
  SVC_EMBED_CALLBACK_SECRET: `cb-${crypto.randomUUID()}`,
  SVC_DOCBUILDER_API_KEYS: `key-${crypto.randomUUID()}`,
  SVC_DOCBUILDER_JWT_SECRET: `djwt-${crypto.randomUUID()}`,
  SVC_DOCBUILDER_CALLBACK_SECRET: `dcb-${crypto.randomUUID()}`,
};
const KEY_F9 = 768 + 8, KEY_SHIFT = 4096, KEY_MOD1 = 8192, KEY_MOD2 = 16384;
const KEY_LETTER = (c: string) => 512 + c.charCodeAt(0) - 65, KEY_F = (n: number) => 768 + n - 1;

let ed: Edsrv;
let host: ReturnType<typeof startWopiHost>;
const logger = memoryLogger("debug");
let origin: string;
let dataDir: string;
/** A file of the data directory, outside every kit's own folder. */
let canaryFile: string;
let victimSrc: string;
let victim: TestSocket;
let fileSeq = 0;
const savedEnv: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const [k, v] of Object.entries(SECRETS)) {
    savedEnv[k] = process.env[k];
    process.env[k] = v;
  }
  host = startWopiHost();
  dataDir = mkdtempSync(path.join(tmpdir(), "edsrv-hostile-"));
  canaryFile = path.join(dataDir, "canary.txt");
  writeFileSync(canaryFile, `${CANARY}\n`);
  const config = parseConfig({ SVC_DATA_DIR: dataDir, SVC_ONLINE_ALIASGROUP1: host.origin, SVC_EDSRV_ADMIN_PASSWORD: "admin-pw" });
  ed = await createEdsrv({ config, logger, listen: { hostname: "127.0.0.1", port: 0 }, idleKits: 2, autosaveSeconds: 0 });
  origin = `http://${new URL(ed.url).host}`;
  host.addToken("tok_alice", "u1", true, "Alice");
  host.addToken("tok_bob", "u2", true, "Bob");
  host.addToken("tok_carol", "u3", false, "Carol");
  host.addToken("tok_victim", "u9", true, "Victim");
  // Another customer's document, open meanwhile: its file lies in the editing server's folders.
  victimSrc = host.addFile("victim", "victim.odt", odt(`<text:p>${VICTIM}</text:p>`));
  victim = await open(victimSrc, "tok_victim");
}, scaled(120_000));

afterAll(async () => {
  victim?.close();
  await ed?.close();
  host?.stop();
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** A minimal ODT whose body is `body` (text:… elements). */
function odt(body: string): Uint8Array {
  const content =
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
    `xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3">` +
    `<office:body><office:text>${body}</office:text></office:body></office:document-content>`;
  const manifest =
    `<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">` +
    `<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>` +
    `<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`;
  return zipSync({
    mimetype: [strToU8("application/vnd.oasis.opendocument.text"), { level: 0 }],
    "content.xml": strToU8(content),
    "META-INF/manifest.xml": strToU8(manifest),
  });
}

/** Where another customer's document lies on the server's disk, as an attacker who guessed it would name it. */
function victimFile(): string {
  const b = [...ed.brokers.values()].find((x) => x.wopiSrc === victimSrc)!;
  return path.join(b.dir, "original.odt");
}

const open = (wopiSrc: string, token: string): Promise<TestSocket> => openDocument(ed.url, wopiSrc, token, { origin });

function newDoc(name: string, bytes: Uint8Array): string {
  return host.addFile(`h${++fileSeq}`, name, bytes);
}

/** Everything a reader might find a leak in: the markers, the secrets, /etc/passwd's and the environment's tell-tales. */
function leaks(text: string): string[] {
  const found = [CANARY, VICTIM, ...Object.values(SECRETS), "root:x:0:0", "SVC_KIT_PROFILE_DIR", "PATH=/"].filter((m) => text.includes(m));
  return found;
}

/** What the session can get out of its document: a copy of everything, a PDF export, a stored version. */
async function everythingOut(s: TestSocket, fileId: string): Promise<string> {
  s.send("textinput text=z");
  let n = s.frames.length;
  s.send("uno .uno:SelectAll");
  s.send("gettextselection mimetype=text/html,text/plain;charset=utf-8");
  const copy = await s.waitText("textselectioncontent:", n);
  n = s.frames.length;
  s.send("downloadas name=out.pdf id=export format=pdf");
  const id = /downloadid=(\S+)/.exec(await s.waitText("downloadas:", n))![1];
  const pdf = Buffer.from(await (await fetch(`${ed.url}/ed/x/download/${id}`)).arrayBuffer());
  const pdfText = Bun.spawnSync(["pdftotext", "-", "-"], { stdin: pdf }).stdout.toString();
  n = s.frames.length;
  s.send("save notify=1 force=1");
  expect(JSON.parse((await s.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
  const stored = host.puts.filter((p) => p.fileId === fileId && p.status === 200).pop()!;
  const storedText = Object.values(unzipSync(stored.bytes)).map((b) => strFromU8(b, true)).join("\n");
  return [copy, pdfText, storedText].join("\n");
}

/** Types `text` and saves; answers the stored version's text. */
async function typeAndStore(s: TestSocket, fileId: string, text: string): Promise<string> {
  s.send(`textinput text=${encodeURIComponent(text)}`);
  const n = s.frames.length;
  s.send("save notify=1");
  expect(JSON.parse((await s.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true, result: "stored" });
  const stored = unzipSync(host.puts.filter((p) => p.fileId === fileId && p.status === 200).pop()!.bytes);
  return strFromU8(stored["content.xml"] ?? stored["word/document.xml"]!).replace(/<[^>]+>/g, "");
}

const stringArg = (v: string) => ({ type: "string", value: v });

describe("a hostile editor cannot read the server", () => {
  test("UNO commands that name a file (the canary, /proc/self/environ, /etc/passwd, another customer's open document) are refused to that view, logged, and nothing reaches the document", async () => {
    const src = newDoc("attacker.odt", odt("<text:p>Attacker's own text.</text:p>"));
    const s = await open(src, "tok_alice");
    const targets = [canaryFile, "/proc/self/environ", "/etc/passwd", victimFile()];
    const frames = targets.flatMap((file) => {
      const url = `file://${file}`;
      return [
        `uno .uno:InsertDoc ${JSON.stringify({ Name: stringArg(url), Filter: stringArg("Text") })}`,
        `uno .uno:InsertDoc ${JSON.stringify({ Name: stringArg(url) })}`,
        `uno .uno:InsertGraphic ${JSON.stringify({ FileName: stringArg(url) })}`,
        `uno .uno:Open ${JSON.stringify({ URL: stringArg(url) })}`,
        `uno .uno:InsertSection ${JSON.stringify({ RegionName: stringArg("S"), LinkName: stringArg(url) })}`,
        `uno .uno:SetHyperlink ${JSON.stringify({ "Hyperlink.Text": stringArg("x"), "Hyperlink.URL": stringArg(url) })}`,
      ];
    });
    const n = s.frames.length;
    for (const f of frames) s.send(f);
    for (const c of [".uno:EditLinks", ".uno:UpdateAll", ".uno:UpdateAllLinks", ".uno:SaveAs", ".uno:ExportTo", ".uno:RunMacro", ".uno:BasicIDEAppear"]) s.send(`uno ${c}`);
    // Every one is answered, in order, with a refusal; none with the document changed.
    await s.wait((f) => s.frames.slice(n).filter((x) => typeof x === "string" && x.startsWith("error: cmd=uno")).length >= frames.length + 7);
    const refusals = s.texts().slice(-400).filter((t) => t.startsWith("error: cmd=uno"));
    expect(refusals.every((t) => /kind=(notallowed|badargs)$/.test(t))).toBe(true);
    expect(s.texts()).not.toContain("statechanged: .uno:ModifiedStatus=true");
    expect(logger.lines.filter((l) => l.includes('"uno_refused"')).length).toBeGreaterThanOrEqual(frames.length);
    // The refusals are logged by command name: no file name, no argument.
    expect(logger.lines.filter((l) => l.includes('"uno_refused"')).join("\n")).not.toContain("proc/self");
    expect(leaks(await everythingOut(s, "h" + fileSeq))).toEqual([]);
    // Nor does the engine itself hold a secret to give away.
    for (const b of ed.brokers.values()) {
      const environ = readFileSync(`/proc/${b.pid}/environ`, "utf8");
      expect(Object.entries(SECRETS).filter(([, v]) => environ.includes(v)).map(([k]) => k)).toEqual([]);
      // And it may read one folder of the data directory: its own (workers/confine.ts refuses the rest).
      const readable = /(?:^|\0)SVC_ENGINE_READABLE=([^\0]*)/.exec(environ)![1]!.split(path.delimiter);
      expect(readable.map((d) => path.relative(dataDir, d).replace(/kit-\d+-[0-9a-f]{32}$/, "kit-<own>"))).toEqual(["edsrv/docs/kit-<own>"]);
    }
    s.close();
  }, scaled(120_000));

  test("documents pull in nothing: linked sections naming the canary, the environment, /etc/passwd and another customer's document stay empty after the update commands and recalculation keys", async () => {
    const sources = [canaryFile, "/proc/self/environ", "/etc/passwd", victimFile()];
    const sections = sources
      .map((file, i) => `<text:section text:name="Linked${i}"><text:section-source xlink:href="file://${file}" xlink:type="simple" text:filter-name="Text"/><text:p>placeholder ${i}</text:p></text:section>`)
      .join("");
    const src = newDoc("linked.odt", odt(`<text:p>Linked sections below.</text:p>${sections}<text:p>The end.</text:p>`));
    const id = "h" + fileSeq;
    const s = await open(src, "tok_alice");
    const n = s.frames.length;
    for (const c of [".uno:UpdateAll", ".uno:UpdateAllLinks", ".uno:UpdateFields", ".uno:EditLinks"]) s.send(`uno ${c}`);
    await s.wait(() => s.frames.slice(n).filter((x) => typeof x === "string" && x.startsWith("error: cmd=uno kind=notallowed")).length >= 4);
    // What a person can press: F9 and Ctrl+Shift+F9 (update fields, recalculate everything).
    for (const key of [KEY_F9, KEY_F9 | KEY_MOD1 | KEY_SHIFT, KEY_F9 | KEY_MOD1]) {
      s.send(`key type=input char=0 key=${key}`);
      s.send(`key type=up char=0 key=${key}`);
    }
    const out = await everythingOut(s, id);
    expect(out).toContain("The end.");
    expect(leaks(out)).toEqual([]);
    s.close();
  }, scaled(120_000));

  test("a read-only view cannot change the document through a duplicated key: what was checked is what LibreOffice gets", async () => {
    const src = newDoc("shared.odt", odt("<text:p>Hello world, hello again.</text:p>"));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const carol = await open(src, "tok_carol");
    const search = (first: number, last: number) =>
      `uno .uno:ExecuteSearch {"SearchItem.SearchString":{"type":"string","value":"hello"},"SearchItem.ReplaceString":{"type":"string","value":"PWNED"},"SearchItem.Command":{"type":"long","value":${first},"value":${last}}}`;
    let n = carol.frames.length;
    // Read as replace-all by the last key: refused to a read-only view.
    carol.send(search(0, 3));
    expect(await carol.waitText("error:", n)).toBe("error: cmd=uno kind=readonly");
    // Read as find by the last key: LibreOffice is handed find, whatever the first key said.
    n = carol.frames.length;
    carol.send(search(3, 0));
    await carol.wait((f) => typeof f === "string" && /^(searchresultselection|searchnotfound|textselection):/.test(f) && carol.frames.indexOf(f) >= n);
    const stored = await typeAndStore(alice, id, "Alice was here. ");
    expect(stored).toContain("Alice was here.");
    expect(stored).not.toContain("PWNED");
    alice.close();
    carol.close();
  }, scaled(120_000));
});

describe("a hostile editor and LibreOffice's dialogs", () => {
  test("a dialog event for a window the view does not have open (another person's dialog) is refused; a read-only view may neither open a dialog nor send a dialog event", async () => {
    const src = newDoc("dialogs.docx", readFileSync(path.join(FIX, "hello.docx")));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const bob = await open(src, "tok_bob");
    const carol = await open(src, "tok_carol");
    // Alice opens Format > Paragraph: its window is hers.
    let n = alice.frames.length;
    alice.send("uno .uno:ParagraphDialog");
    const described = await alice.waitText('jsdialog: { "id": "ParagraphPropertiesDialog"', n);
    const windowId = String(JSON.parse(described.slice("jsdialog: ".length)).id);
    const indent = JSON.stringify({ id: "spinED_LEFTINDENT", cmd: "value", data: "3", type: "spinfield" });
    // Bob names Alice's window: refused before it reaches the engine.
    n = bob.frames.length;
    bob.send(`dialogevent ${windowId} ${indent}`);
    expect(await bob.waitText("error:", n)).toBe("error: cmd=dialogevent kind=nodialog");
    // A malformed event (an unknown act) is refused by its form.
    n = alice.frames.length;
    alice.send(`dialogevent ${windowId} ${JSON.stringify({ id: "ok", cmd: "runmacro", data: "", type: "pushbutton" })}`);
    expect(await alice.waitText("error:", n)).toBe("error: cmd=dialogevent kind=badargs");
    // Carol (read-only) can do neither.
    n = carol.frames.length;
    carol.send("uno .uno:ParagraphDialog");
    expect(await carol.waitText("error:", n)).toBe("error: cmd=uno kind=readonly");
    n = carol.frames.length;
    carol.send(`dialogevent ${windowId} ${indent}`);
    expect(await carol.waitText("error:", n)).toBe("error: cmd=dialogevent kind=readonly");
    // Alice closes her dialog; the document has no indent from anyone.
    alice.send(`dialogevent ${windowId} ${JSON.stringify({ id: "cancel", cmd: "click", data: "", type: "responsebutton" })}`);
    const stored = await typeAndStore(alice, id, "Alice typed. ");
    expect(stored).toContain("Alice typed.");
    alice.close();
    bob.close();
    carol.close();
  }, scaled(120_000));
});

describe("a hostile editor cannot hurt the other person", () => {
  test("a co-editor who sends .uno:BasicIDEAppear, .uno:Open and .uno:SaveAs and leaves: the other person keeps typing, and what they type is stored", async () => {
    const src = newDoc("together.docx", readFileSync(path.join(FIX, "hello.docx")));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const bob = await open(src, "tok_bob");
    const n = bob.frames.length;
    for (const c of [".uno:BasicIDEAppear", `.uno:Open ${JSON.stringify({ URL: stringArg("file:///etc/passwd") })}`, ".uno:SaveAs", ".uno:MacroDialog", ".uno:CloseDoc"]) bob.send(`uno ${c}`);
    await bob.wait(() => bob.frames.slice(n).filter((x) => typeof x === "string" && x.startsWith("error: cmd=uno kind=notallowed")).length >= 5);
    bob.close();
    await bob.whenClosed();
    for (const word of ["one ", "two ", "three "]) expect(await typeAndStore(alice, id, word)).toContain(word.trim());
    expect(await typeAndStore(alice, id, "four ")).toContain("one two three four");
    alice.close();
  }, scaled(120_000));

  test("a paste past the limit is refused before it reaches the engine, without echoing it; a 10 MB frame gets no echo either; the other person keeps typing and saving", async () => {
    const src = newDoc("big.docx", readFileSync(path.join(FIX, "hello.docx")));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const bob = await open(src, "tok_bob");
    const marker = `paste-${crypto.randomUUID()}`;
    const text = (marker + " ").repeat(Math.ceil((PASTE_LIMITS.text + 1024) / (marker.length + 1)));
    let n = bob.frames.length;
    bob.send(`paste mimetype=text/plain;charset=utf-8 data=${Buffer.from(text).toString("base64")}`);
    expect(await bob.waitText("error:", n)).toBe("error: cmd=paste kind=toolarge");
    // A 10 MB frame of no command at all: refused by name, nothing of it sent back.
    n = bob.frames.length;
    bob.ws.send(new Uint8Array(10 * 1024 * 1024).fill(0x41));
    const answer = await Promise.race([bob.waitText("error:", n), bob.whenClosed().then(() => "closed")]);
    expect(answer.length).toBeLessThan(100);
    expect(bob.texts().some((t) => t.length > 64 * 1024)).toBe(false);
    expect(logger.lines.join("\n")).not.toContain(marker);
    const stored = await typeAndStore(alice, id, "Still typing. ");
    expect(stored).toContain("Still typing.");
    expect(stored).not.toContain(marker);
    alice.close();
    bob.close();
  }, scaled(120_000));
});

/** The broker of a document and the view id of a person's session in it (to reach the kit past the door, as a second wall's test must). */
function brokerOf(wopiSrc: string, userName: string) {
  const b = [...ed.brokers.values()].find((x) => x.wopiSrc === wopiSrc)!;
  const viewId = [...b.sessions.values()].find((x) => x.userName === userName)!.viewId!;
  return { b, viewId };
}

/** The stored version's XML parts, joined (content.xml, word/document.xml and its relationships…). */
function storedXml(fileId: string): string {
  const stored = unzipSync(host.puts.filter((p) => p.fileId === fileId && p.status === 200).pop()!.bytes);
  return Object.entries(stored).filter(([n]) => /\.(xml|rels)$/.test(n)).map(([, b]) => strFromU8(b, true)).join("\n");
}

describe("the door covers every way in (issue 44)", () => {
  test("shortcut keys whose command is off the list (Ctrl+K, Ctrl+P, Ctrl+F2, Ctrl+F12, Alt+F11, Ctrl+Shift+F5) are refused to that view, logged, and open nothing; the co-editor keeps typing and saving", async () => {
    const src = newDoc("keys.docx", readFileSync(path.join(FIX, "hello.docx")));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const bob = await open(src, "tok_bob");
    const keys = [KEY_LETTER("K") | KEY_MOD1, KEY_LETTER("P") | KEY_MOD1, KEY_F(2) | KEY_MOD1, KEY_F(12) | KEY_MOD1, KEY_F(11) | KEY_MOD2, KEY_F(5) | KEY_MOD1 | KEY_SHIFT];
    const n = bob.frames.length;
    for (const key of keys) {
      bob.send(`key type=input char=0 key=${key}`);
      bob.send(`key type=up char=0 key=${key}`);
    }
    await bob.wait(() => bob.texts().slice(-100).filter((t) => t === "error: cmd=key kind=notallowed").length >= keys.length * 2);
    const logged = logger.lines.filter((l) => l.includes('"key_refused"')).join("\n");
    for (const c of [".uno:HyperlinkDialog", ".uno:Print", ".uno:InsertField", ".uno:InsertTable", ".uno:MacroDialog", ".uno:GotoPage"]) expect(logged).toContain(c);
    // Ordinary keys still work: Enter and Backspace are commands too (InsertPara, SwBackspace).
    for (const key of [1280, 1283]) {
      bob.send(`key type=input char=${key === 1280 ? 13 : 8} key=${key}`);
      bob.send(`key type=up char=${key === 1280 ? 13 : 8} key=${key}`);
    }
    for (const word of ["one ", "two "]) expect(await typeAndStore(alice, id, word)).toContain(word.trim());
    expect(bob.frames.slice(n).some((f) => typeof f === "string" && /^(jsdialog|window): /.test(f) && /"dialogid"|"created"/.test(f))).toBe(false);
    alice.close();
    bob.close();
  }, scaled(120_000));

  test("a window LibreOffice opens that no dialog command on the list asked for is closed at once by the kit and logged, never shown: a listed command without its arguments (.uno:Name, Rename Sheet)", async () => {
    const src = newDoc("window.xlsx", readFileSync(path.join(FIX, "hello.xlsx")));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const bob = await open(src, "tok_bob");
    const n = bob.frames.length;
    const before = logger.lines.length;
    // On the list (the sheet tab's rename sends it with its arguments); bare, LibreOffice asks for the name in a dialog.
    bob.send("uno .uno:Name");
    await waitFor(() => logger.lines.slice(before).some((l) => l.includes('"kit_window_closed"')), "the kit closes the window nobody asked for");
    expect(bob.frames.slice(n).some((f) => typeof f === "string" && /^(jsdialog|window): /.test(f) && /"dialogid"|"created"/.test(f))).toBe(false);
    // A page's own dialog command still opens its dialog.
    const m = bob.frames.length;
    bob.send("uno .uno:FormatCellDialog");
    await bob.wait(() => bob.frames.slice(m).some((f) => typeof f === "string" && f.startsWith("jsdialog: ") && f.includes('"dialogid"')));
    const described = bob.frames.slice(m).find((f) => typeof f === "string" && f.startsWith("jsdialog: ") && f.includes('"dialogid"')) as string;
    bob.send(`dialogevent ${JSON.parse(described.slice("jsdialog: ".length)).id} ${JSON.stringify({ id: "cancel", cmd: "click", data: "", type: "responsebutton" })}`);
    let k = alice.frames.length;
    alice.send("save notify=1 force=1");
    expect(JSON.parse((await alice.waitText("saveresult:", k)).slice(12))).toMatchObject({ success: true });
    alice.close();
    bob.close();
  }, scaled(120_000));

  test("the engine's profile has no binding for the shortcuts the door refuses: Ctrl+K and Alt+F11 sent straight to the kit open nothing", async () => {
    const src = newDoc("unbound.docx", readFileSync(path.join(FIX, "hello.docx")));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const bob = await open(src, "tok_bob");
    const { b, viewId } = brokerOf(src, "Bob");
    const n = bob.frames.length;
    const before = logger.lines.length;
    // Past the door (as a key the table did not know would be): straight to the kit.
    for (const key of [KEY_LETTER("K") | KEY_MOD1, KEY_F(11) | KEY_MOD2]) {
      await b.kit!.request("key", { viewId, type: "input", char: 0, key });
      await b.kit!.request("key", { viewId, type: "up", char: 0, key });
    }
    await b.kit!.request("settle", {});
    await quietFor(2000, "no window opens", () => logger.lines.slice(before).find((l) => l.includes('"kit_window_closed"')) ?? bob.frames.slice(n).find((f) => typeof f === "string" && /^(jsdialog|window): /.test(f)));
    expect(await typeAndStore(alice, id, "Alice goes on. ")).toContain("Alice goes on.");
    alice.close();
    bob.close();
  }, scaled(120_000));

  test("links come in with the targets SetHyperlink allows only: pasted HTML and AutoCorrect's URL recognition store no javascript:, file:, script or data: link", async () => {
    const src = newDoc("links.odt", odt("<text:p>Links below.</text:p>"));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const html = `<html><body><p><a href="https://example.com/ok">web</a> <a href="data:image/png;base64,iVBORw0KGgo=">data</a> <a/href="javascript:alert(1)">slash</a> <a href="vnd.sun.star.script:Standard.Module1.Main?language=Basic&amp;location=document">macro</a></p></body></html>`;
    let n = alice.frames.length;
    alice.send(`paste mimetype=text/html;charset=utf-8 data=${Buffer.from(html).toString("base64")}`);
    alice.send("status");
    await alice.waitText("status:", n);
    // Typed text that looks like a URL, then a space (what makes AutoCorrect look at the word).
    for (const word of ["javascript:alert(2)", "file:///etc/passwd", "http://example.org/typed"]) {
      alice.send(`textinput text=${encodeURIComponent(" " + word)}`);
      alice.send("key type=input char=32 key=1284");
      alice.send("key type=up char=32 key=1284");
    }
    n = alice.frames.length;
    alice.send("save notify=1 force=1");
    expect(JSON.parse((await alice.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
    const xml = storedXml(id);
    expect(xml).toContain("javascript:alert(2)");
    const targets = [...xml.matchAll(/xlink:href="([^"]*)"/g)].map((m) => m[1]!);
    expect(targets.filter((t) => !/^(https?:\/\/|mailto:|tel:|#)/i.test(t))).toEqual([]);
    alice.close();
  }, scaled(120_000));

  test("a 5 MB textinput is refused with toolarge before it reaches the engine, never echoed or logged; the co-editor types and saves meanwhile", async () => {
    const src = newDoc("bigtext.docx", readFileSync(path.join(FIX, "hello.docx")));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const bob = await open(src, "tok_bob");
    const marker = `typed-${crypto.randomUUID()}`;
    const text = (marker + " ").repeat(Math.ceil((5 * 1024 * 1024) / (marker.length + 1)));
    const n = bob.frames.length;
    bob.send(`textinput text=${encodeURIComponent(text)}`);
    expect(await bob.waitText("error:", n)).toBe("error: cmd=textinput kind=toolarge");
    // The same as a 10 MB binary frame.
    const k = bob.frames.length;
    bob.ws.send(new TextEncoder().encode(`textinput text=${marker}${"b".repeat(10 * 1024 * 1024)}`));
    expect(await bob.waitText("error:", k)).toBe("error: cmd=textinput kind=toolarge");
    // Just under the bound goes in.
    const m = alice.frames.length;
    alice.send(`textinput text=${"w".repeat(INPUT_LIMITS.textinput)}`);
    const stored = await typeAndStore(alice, id, "Alice saved. ");
    expect(stored).toContain("Alice saved.");
    expect(stored).toContain("w".repeat(INPUT_LIMITS.textinput));
    expect(stored).not.toContain(marker);
    expect(alice.texts().slice(-50).some((t) => t.startsWith("error:") && alice.frames.indexOf(t) >= m)).toBe(false);
    expect(bob.texts().some((t) => t.includes(marker))).toBe(false);
    expect(logger.lines.join("\n")).not.toContain(marker);
    alice.close();
    bob.close();
  }, scaled(120_000));

  test("dialog events and a tunnelled window's text and keys are bounded: refused with toolarge, not cut or passed on", async () => {
    const src = newDoc("bounds.docx", readFileSync(path.join(FIX, "hello.docx")));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const bob = await open(src, "tok_bob");
    let n = bob.frames.length;
    bob.send(`dialogevent 1 ${JSON.stringify({ id: "x", cmd: "change", data: "d".repeat(20_000), type: "edit" })}`);
    expect(await bob.waitText("error:", n)).toBe("error: cmd=dialogevent kind=toolarge");
    n = bob.frames.length;
    bob.send(`windowtext id=1 text=${"t".repeat(INPUT_LIMITS.windowtext + 1)}`);
    expect(await bob.waitText("error:", n)).toBe("error: cmd=windowtext kind=toolarge");
    n = bob.frames.length;
    bob.send(`windowkey id=1 type=input char=0 key=1280 ${"k".repeat(1000)}`);
    expect(await bob.waitText("error:", n)).toBe("error: cmd=windowkey kind=toolarge");
    n = bob.frames.length;
    bob.send(`key type=input char=0 key=1027 ${"k".repeat(1000)}`);
    expect(await bob.waitText("error:", n)).toBe("error: cmd=key kind=toolarge");
    expect(await typeAndStore(alice, id, "Bounded. ")).toContain("Bounded.");
    alice.close();
    bob.close();
  }, scaled(120_000));

  test("keys past the rate a view may send are refused with toofast to that view only; the co-editor keeps typing and saving", async () => {
    const src = newDoc("rate.docx", readFileSync(path.join(FIX, "hello.docx")));
    const id = "h" + fileSeq;
    const alice = await open(src, "tok_alice");
    const bob = await open(src, "tok_bob");
    const before = logger.lines.length;
    const n = bob.frames.length;
    const flood = KEY_RATE.burst * 3;
    for (let i = 0; i < flood; i++) bob.send(`key type=${i % 2 ? "up" : "input"} char=0 key=1027`);
    await bob.wait(() => bob.frames.slice(n).some((f) => f === "error: cmd=key kind=toofast"));
    const rateLines = logger.lines.slice(before).filter((l) => l.includes('"input_refused"') && l.includes('"rate"'));
    expect(rateLines.length).toBeGreaterThanOrEqual(1);
    expect(rateLines.length).toBeLessThan(flood / 10);
    expect(await typeAndStore(alice, id, "Alice typed through. ")).toContain("Alice typed through.");
    expect(alice.texts().some((t) => t.includes("kind=toofast"))).toBe(false);
    alice.close();
    bob.close();
  }, scaled(120_000));
});

