// The document broker's admin channel and its kits against a loopback WOPI host: the view list,
// input lag, and kits that crash or are killed (the journal replayed, nothing typed lost).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { strFromU8, unzipSync } from "fflate";
import { docxText } from "../testing/office-files";
import { CORPUS } from "../testing/harness";
import { until, scaled } from "../testing/until";
import { documentsEnv, documentsHelpers, typeAndSave, whereTheyDiffer } from "./testing/documents-env";
import { TestSocket } from "./testing/ws-client";
import { TINY_PNG } from "./testing/wopi-host";

// Loopback may be fetched by the editing server here (the picture server of Action_InsertGraphic's test).
const env = documentsEnv({}, { SVC_FETCH_ALLOW_HOSTS: "127.0.0.1" });
const { open, newDoc, fileId } = documentsHelpers(env);

describe("admin channel and kits", () => {
  async function adminSocket() {
    const res = await fetch(`${env.ed.url}/browser/dist/admin/admin.html`, { headers: { Authorization: `Basic ${Buffer.from("admin:admin-pw").toString("base64")}` } });
    const jwt = /jwt=([^;]+)/.exec(res.headers.get("set-cookie")!)![1]!;
    const a = new TestSocket(`${env.ed.url.replace("http", "ws")}/ed/adminws`, env.origin);
    await a.opened;
    a.send(`auth jwt=${jwt}`);
    return a;
  }

  test("documents lists exactly the open views with their read-only flags, and adddoc/rmdoc are pushed", async () => {
    const a = await adminSocket();
    a.send("subscribe adddoc rmdoc");
    const src = newDoc();
    const s1 = await open(src, "tok_edit_1");
    const s2 = await open(src, "tok_view");
    await a.wait((f) => typeof f === "string" && f.startsWith("adddoc") && f.split(" ")[8] === "1");
    const n = a.frames.length;
    a.send("documents");
    const docs = JSON.parse((await a.waitText("documents ", n)).slice(10)).documents;
    const doc = docs.find((d: any) => d.wopiSrc === src);
    expect(doc.activeViews).toBe(2);
    expect(doc.fileName).toBe("hello.docx");
    expect(doc.docKey).toBe(encodeURIComponent(`${env.host.origin}/wopi/files/${fileId(src)}`));
    expect(doc.views.map((v: any) => [v.userName, v.readonly]).sort()).toEqual([["Alice", "0"], ["Carol", "1"]]);
    a.send("active_users_count");
    expect(Number((await a.waitText("active_users_count", n)).split(" ")[1])).toBeGreaterThanOrEqual(2);
    a.send("version");
    expect(await a.waitText("coolserver ", n)).toContain('"Version"');
    s2.close();
    await a.wait((f) => typeof f === "string" && f.startsWith("rmdoc"));
    s1.close();
    a.close();
  });

  test("svc_input_lag: the admin channel tells how long typing waited for its caret over the last 5 s (what the gate's admission under load reads)", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    for (const word of ["one ", "two ", "three "]) {
      const n = s.frames.length;
      s.send(`textinput text=${encodeURIComponent(word)}`);
      await s.waitText("invalidatecursor:", n);
    }
    const a = await adminSocket();
    const n = a.frames.length;
    a.send("svc_input_lag");
    const lag = JSON.parse((await a.waitText("svc_input_lag ", n)).slice("svc_input_lag ".length));
    expect(lag.samples).toBeGreaterThanOrEqual(1); // a word typed before the previous one is answered joins its wait
    expect(lag.p95Ms).toBeGreaterThan(0);
    expect(lag.windowMs).toBe(5_000);
    a.close();
    s.close();
  });

  test("an input that crashes the engine is found and left out: the document comes back with everything before it, and its person is told their last action could not be applied", async () => {
    // A real crash of LibreOffice 7.4: Tab selects the slide's chart, Enter starts editing it.
    const src = env.host.addFile("poison", "chart.ppt", readFileSync(path.join(CORPUS, "ppt/tika_mschart_govdocs.ppt")));
    const s = await open(src, "tok_edit_1");
    const broker = [...env.ed.brokers.values()].find((b) => b.wopiSrc === src)!;
    const firstKit = broker.pid;
    s.send("key type=input char=9 key=1282");
    s.send("key type=up char=9 key=1282");
    s.send("key type=input char=13 key=1280");
    s.send("key type=up char=13 key=1280");
    await s.whenClosed();
    expect(s.texts()).toContain("close: recovering");
    const back = await open(src, "tok_edit_1");
    expect(back.texts()).toContain("perm: edit");
    await back.waitText("error: cmd=recovery kind=actiondropped");
    expect(broker.pid).not.toBe(firstKit);
    expect(env.logger.lines.some((l) => l.includes('"event":"document_input_dropped"'))).toBe(true);
    back.close();
  }, scaled(120_000));

  test("a replay reproduces two people's typing, formatting and a table exactly: the document stored after a kit crash is the one stored before it", async () => {
    const src = newDoc();
    const alice = await open(src, "tok_edit_1");
    const bob = await open(src, "tok_edit_2");
    // Each piece of typing is answered (the caret moves) before the next input is sent.
    const typed = async (s: TestSocket, text: string) => {
      const n = s.frames.length;
      s.send(`textinput text=${encodeURIComponent(text)}`);
      await s.waitText("invalidatecursor:", n);
    };
    // Bob goes to the end of the document and types there first: where LibreOffice leaves a cursor
    // that another person types in front of depends on timing, so two cursors at one place make no
    // exact replay; and two people's input within the same milliseconds is the kit's own test
    // (kit-input-queues.test.ts). LibreOffice 7.4 can still send text typed by one person right
    // after another's table insertion to the other's cursor when both arrive at once.
    const bobAtEnd = bob.frames.length;
    bob.send(`key type=input char=0 key=${1029 | 0x2000}`);
    bob.send(`key type=up char=0 key=${1029 | 0x2000}`);
    await bob.waitText("invalidatecursor:", bobAtEnd);
    const bobTyped = bob.frames.length;
    await typed(bob, "Bob was here. ");
    await bob.waitText("invalidatecursor:", bobTyped);
    await typed(alice, "Alice writes ");
    alice.send("uno .uno:Bold");
    await typed(alice, "boldly");
    alice.send("uno .uno:Bold");
    alice.send("key type=input char=13 key=1280");
    alice.send("key type=up char=13 key=1280");
    alice.send('uno .uno:InsertTable {"Columns":{"type":"long","value":3},"Rows":{"type":"long","value":2}}');
    await typed(alice, "cell one");
    alice.send("key type=input char=9 key=1282");
    alice.send("key type=up char=9 key=1282");
    await typed(alice, "cell two");
    let n = alice.frames.length;
    alice.send("save dontTerminateEdit=1 notify=1");
    expect(JSON.parse((await alice.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
    const before = env.host.puts.filter((p) => p.fileId === fileId(src)).at(-1)!.bytes;

    const broker = [...env.ed.brokers.values()].find((b) => b.wopiSrc === src)!;
    process.kill(broker.pid, "SIGKILL");
    await Promise.all([alice.whenClosed(), bob.whenClosed()]);
    const [alice2, bob2] = [await open(src, "tok_edit_1"), await open(src, "tok_edit_2")];
    n = alice2.frames.length;
    alice2.send("save dontTerminateEdit=1 notify=1");
    expect(JSON.parse((await alice2.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
    const after = env.host.puts.filter((p) => p.fileId === fileId(src)).at(-1)!.bytes;
    // The document's body as stored, revision ids aside (LibreOffice numbers each editing session).
    const body = (b: Uint8Array) => strFromU8(unzipSync(b)["word/document.xml"]!).replace(/ w:rsid\w*="[^"]*"/g, "");
    expect(body(before)).toContain("<w:tbl>");
    // The fixture's first word is bold, so the toggle made "boldly" explicitly not bold: formatting either way.
    expect(body(before)).toMatch(/<w:rPr><w:b [^>]*\/><w:bCs [^>]*\/><\/w:rPr><w:t>boldly/);
    expect(docxText(before)).toContain("Bob was here.");
    const paragraphs = (b: Uint8Array) => [...body(b).matchAll(/<w:p[ >].*?<\/w:p>/g)].map((m) => m[0].replace(/<[^>]+>/g, "")).join(" | ");
    expect(whereTheyDiffer(body(after), body(before)) && `${whereTheyDiffer(body(after), body(before))}\n  text got:      ${paragraphs(after)}\n  text expected: ${paragraphs(before)}`).toBeNull();
    alice2.close();
    bob2.close();
  }, scaled(60_000));

  test("a document's kit and the spare killed at once (SIGKILL, as the OOM killer does): the replay in the dead spare is not blamed on the input, and nothing typed is dropped", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    const n = s.frames.length;
    s.send(`textinput text=${encodeURIComponent("Typed before both kits died ")}`);
    await s.waitText("statechanged: .uno:ModifiedStatus=true", n);
    const linesBefore = env.logger.lines.length;
    const busy = new Set([...env.ed.brokers.values()].map((b) => b.pid));
    const victim = [...env.ed.brokers.values()].find((b) => b.wopiSrc === src)!;
    // The pool's spare, started again after this document took the last one.
    const spares = await until(() => env.ed.pool.pids().filter((pid) => !busy.has(pid)), (p) => p.length > 0, "a spare kit in the pool");
    for (const pid of [victim.pid, ...spares]) process.kill(pid, "SIGKILL");
    await s.whenClosed();
    const recovered = await env.host.waitPut((p) => p.fileId === fileId(src) && p.headers["x-cool-wopi-isautosave"] === "true");
    expect(docxText(recovered.bytes)).toContain("Typed before both kits died");
    expect(env.logger.lines.slice(linesBefore).filter((l) => l.includes('"event":"document_input_dropped"'))).toEqual([]);
  }, scaled(60_000));

  test("a killed kit loses nothing: its pages are asked to reconnect, a new kit replays the journal, each page takes its view back with the unsaved text and the caret where it was; other documents are untouched", async () => {
    const src1 = newDoc(), src2 = newDoc();
    const s1 = await open(src1, "tok_edit_1");
    const s2 = await open(src2, "tok_edit_1");
    let n = s1.frames.length;
    s1.send(`textinput text=${encodeURIComponent("Unsaved before the crash ")}`);
    await s1.waitText("statechanged: .uno:ModifiedStatus=true", n);
    const victim = [...env.ed.brokers.values()].find((b) => b.wopiSrc === src1)!;
    process.kill(victim.pid, "SIGKILL");
    await s1.whenClosed();
    expect(s1.texts()).toContain("close: recovering");
    // The other document still works.
    expect((await typeAndSave(s2, "still here ")).success).toBe(true);
    // The page reconnects with its token and goes on typing where its caret was.
    const back = await open(src1, "tok_edit_1");
    expect(back.texts()).toContain("perm: edit");
    // The recovered text is stored at once (an autosave): the env.host holds it even before the page is back.
    const recovered = await env.host.waitPut((p) => p.fileId === fileId(src1) && p.headers["x-cool-wopi-isautosave"] === "true");
    expect(docxText(recovered.bytes)).toContain("Unsaved before the crash");
    back.send(`textinput text=${encodeURIComponent("and after it.")}`);
    n = back.frames.length;
    back.send("save dontTerminateEdit=1 notify=1");
    expect(JSON.parse((await back.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
    const put = env.host.puts.filter((p) => p.fileId === fileId(src1)).at(-1)!;
    expect(docxText(put.bytes)).toContain("Unsaved before the crash and after it.");
    const metrics = await (await fetch(`${env.ed.url}/ed/getMetrics`, { headers: { Authorization: `Basic ${Buffer.from("admin:admin-pw").toString("base64")}` } })).text();
    expect(metrics).toMatch(/kit_crashed_total [1-9]/);
    s2.close();
    back.close();
  });

  test("a picture inserted from a URL (Action_InsertGraphic) is the person's journalled input: a killed kit's replay has it, without fetching it again", async () => {
    let asked = 0;
    const pictures = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (asked++, new Response(Buffer.from(TINY_PNG, "base64"))) });
    try {
      const src = newDoc();
      const s = await open(src, "tok_edit_1");
      const n = s.frames.length;
      s.send(`insertgraphicurl url=${encodeURIComponent(`http://127.0.0.1:${pictures.port}/p.png`)}`);
      await s.waitText("insertgraphicurl: ok", n);
      const victim = [...env.ed.brokers.values()].find((b) => b.wopiSrc === src)!;
      process.kill(victim.pid, "SIGKILL");
      await s.whenClosed();
      const back = await open(src, "tok_edit_1");
      const recovered = await env.host.waitPut((p) => p.fileId === fileId(src) && p.headers["x-cool-wopi-isautosave"] === "true");
      expect(Object.keys(unzipSync(recovered.bytes)).filter((k) => k.startsWith("word/media/")).length).toBe(1);
      expect(asked).toBe(1);
      back.close();
    } finally {
      pictures.stop(true);
    }
  });
});
