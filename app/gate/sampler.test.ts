// Reading Collabora's `documents` reply (protocol notes §5): names are not JSON-escaped, booleans
// arrive as "0"/"1", fields may be missing, and nothing unreadable may reach the counter.

import { describe, expect, test } from "bun:test";
import { ManualClock } from "../clock";
import { memoryLogger } from "../log";
import { ConnectionCounter } from "./counting";
import { EdsrvSampler, parseDocumentsReply } from "./sampler";
import { until } from "../testing/until";
import { startStandInAdmin } from "./testing";
import { freePort } from "../../caddy/testing";

const SRC = "http://files.example:8080/wopi/files/165";
const KEY = "http://files.example:8080/wopi/files/165";
const view = (sid: string, ro: string, name = "Lan", id = "u1") => `{"userName":"${name}","userId":"${id}","sessionid":"${sid}","readonly":"${ro}"}`;
const docJson = (views: string[], extra = "") =>
  `{"pid":1234,"docKey":"${encodeURIComponent(SRC)}","fileName":"b%C3%A1o%20c%C3%A1o.docx","wopiHost":"files.example",` +
  `"activeViews":${views.length},"memory":100,"elapsedTime":5,"idleTime":1,"modified":"No","uploaded":"Yes","wopiSrc":"${SRC}"${extra},"views":[${views.join(",")}]}`;
const reply = (...docs: string[]) => `documents {"documents":[${docs.join(",")}]}`;

describe("parseDocumentsReply", () => {
  test("the editing views are session ids per document key; read-only views are a count", () => {
    expect(parseDocumentsReply(reply(docJson([view("a", "0"), view("b", "1"), view("c", "0")])))).toEqual([
      { docKey: KEY, editSessions: ["1234/a", "1234/c"], readonly: 1 },
    ]);
    expect(parseDocumentsReply(reply())).toEqual([]);
  });

  test('readonly arrives as "0"/"1" (Collabora streams bools without boolalpha); true/1 are read too', () => {
    const views = ['"0"', '"1"', "0", "1", "true", "false", '"true"'].map((ro, i) => `{"sessionid":"s${i}","readonly":${ro}}`);
    expect(parseDocumentsReply(reply(docJson(views)))![0]).toEqual({ docKey: KEY, editSessions: ["1234/s0", "1234/s2", "1234/s5"], readonly: 4 });
  });

  test("unescaped user names with quotes, backslashes, braces, commas and field-like text do not break the reply", () => {
    const names = ['Nguyễn "Tí" Văn', "back\\slash\\", 'x"}]}', 'a","sessionid":"fake', "line\nbreak\ttab", '","userId":"'];
    const views = names.map((n, i) => view(`s${i}`, i === 0 ? "1" : "0", n, `id"${i}\\`));
    const docs = parseDocumentsReply(reply(docJson(views)));
    expect(docs).toEqual([{ docKey: KEY, editSessions: names.slice(1).map((_, i) => `1234/s${i + 1}`), readonly: 1 }]);
  });

  test("JSON-escaped user names (a server that does escape them) parse the same", () => {
    const views = ['Tí \\"Tèo\\" \\\\ {x}', "a\\u0022b", "ends with \\\\"].map((n, i) => view(`s${i}`, "0", n));
    expect(parseDocumentsReply(reply(docJson(views)))![0]!.editSessions).toEqual(["1234/s0", "1234/s1", "1234/s2"]);
  });

  test("user and file names are never kept", () => {
    const docs = parseDocumentsReply(reply(docJson([view("a", "0", "Alice Secretname", "alice@corp")])));
    const text = JSON.stringify(docs);
    for (const secret of ["Alice", "Secretname", "alice@corp", "b%C3%A1o", "báo"]) expect(text).not.toContain(secret);
  });

  test("missing fields: the key falls back to wopiSrc then pid; no views, no sessionid, no readonly are tolerated", () => {
    const noKey = `{"pid":7,"wopiSrc":"${SRC}","views":[{"sessionid":"a","readonly":"0"}]}`;
    const noKeyNoSrc = `{"pid":8,"views":[{"sessionid":"b","readonly":"1"}]}`;
    const nothing = "{}";
    const bareViews = `{"pid":9,"docKey":"${encodeURIComponent(SRC)}","views":[{"readonly":"0"},{"sessionid":"c"},{}]}`;
    expect(parseDocumentsReply(reply(noKey, noKeyNoSrc, nothing, bareViews))).toEqual([
      { docKey: KEY, editSessions: ["7/a"], readonly: 0 },
      { docKey: "pid:8", editSessions: [], readonly: 1 },
      { docKey: "pid:2", editSessions: [], readonly: 0 },
      // An unknown flag counts as editing: an unreadable view must not free a slot.
      { docKey: KEY, editSessions: ["9/#0", "9/c", "9/#2"], readonly: 0 },
    ]);
  });

  test("a view without userId does not swallow the next view", () => {
    const views = ['{"userName":"Lan","sessionid":"a","readonly":"0"}', view("b", "0", 'Mai "M"'), '{"userId":"u9","sessionid":"c","readonly":"1"}'];
    expect(parseDocumentsReply(reply(docJson(views)))![0]).toEqual({ docKey: KEY, editSessions: ["1234/a", "1234/b"], readonly: 1 });
  });

  test("garbage never throws and is never a sample (null)", () => {
    const garbage = [
      "",
      "documents",
      "documents ",
      "documents {",
      "documents null",
      "documents 42",
      'documents "documents"',
      "documents []",
      "documents {}",
      'documents {"documents":null}',
      'documents {"documents":{"0":{}}}',
      'documents {"documents":[null]}',
      'documents {"documents":[1,"x"]}',
      `documents {"documents":[${docJson([view("a", "0")])},null]}`,
      `documents {"documents":[{"pid":1,"views":"x"}]}`,
      `documents {"documents":[{"pid":1,"views":[null]}]}`,
      `documents {"documents":[{"pid":1,"views":[{"sessionid":"a"},7]}]}`,
      `documents {"documents":[${docJson([view("a", "0")])}]} trailing`,
      "active_users_count 3",
      "\u0000\uffff",
    ];
    for (const g of garbage) expect([g, parseDocumentsReply(g)]).toEqual([g, null]);
  });
});

/** A stand-in admin channel (Collabora's protocol) answering `documents` with scripted lines. */
/** An admin channel answering `documents` with `lines` in turn; from request `holdFrom` on, only once released. */
function scriptedAdmin(lines: string[][], holdFrom = Infinity) {
  let n = 0;
  let released = false;
  const admin = startStandInAdmin((ws, msg) => {
    if (msg !== "documents") return;
    if (n >= holdFrom && !released) return;
    for (const l of lines[Math.min(n, lines.length - 1)]!) ws.send(l);
    n++;
  });
  return { url: admin.url, asked: () => n, release: () => (released = true), stop: admin.stop };
}

describe("EdsrvSampler with an unreadable admin channel", () => {
  test("garbage replies do not crash the sampler and are not stored; the next readable one is", async () => {
    const good = reply(docJson([view("a", "0", 'Quote "q" {'), view("b", "1")]));
    const admin = scriptedAdmin([
      ["garbage line", "documents {not json"],
      ['documents {"documents":[null]}'],
      [`documents {"documents":[{"pid":1,"views":[null]}]}`],
      [good],
    ], 3); // the good reply waits until the garbage ones are checked (a loaded machine asked for it early)
    const clock = new ManualClock();
    const counter = new ConnectionCounter({ clock, limit: () => 5, intervalMs: 50 });
    const logger = memoryLogger("debug");
    const sampler = new EdsrvSampler({ baseUrl: admin.url, user: "admin", password: "pw", adminWsPath: "/ed/adminws", counter, clock, logger, intervalMs: 50, replyTimeoutMs: 1000 });
    sampler.start();
    try {
      const unreadable = () => logger.lines.filter((l) => l.includes("edsrv_admin_unreadable_documents")).length;
      await until(() => ({ asked: admin.asked(), unreadable: unreadable() }), (v) => v.asked >= 3 && v.unreadable >= 3, "three garbage replies asked for and checked", 2_000);
      expect(admin.asked()).toBeGreaterThanOrEqual(3);
      expect(sampler.samples).toBe(0);
      expect(counter.snapshot()).toMatchObject({ source: "none", enforcing: false, current: 0 });
      expect(logger.lines.filter((l) => l.includes("edsrv_admin_unreadable_documents")).length).toBeGreaterThanOrEqual(3);
      admin.release();
      await sampler.nextSample();
      expect(sampler.state).toBe("ok");
      expect(counter.snapshot()).toMatchObject({ current: 1, readonly: 1, documents: 1, enforcing: true });
      expect(logger.lines.join("\n")).not.toContain("Quote");
    } finally {
      sampler.stop();
      admin.stop();
    }
  });
});

describe("EdsrvSampler.refresh: a sample taken now", () => {
  test("an editing server that starts after the sampler's failed try is sampled at once on refresh, not at the next retry", async () => {
    const port = await freePort();
    const clock = new ManualClock();
    const counter = new ConnectionCounter({ clock, limit: () => 5 });
    // The next retry is a minute away: only refresh can sample within the test.
    const sampler = new EdsrvSampler({ baseUrl: `http://127.0.0.1:${port}`, user: "admin", password: "pw", adminWsPath: "/ed/adminws", counter, clock, logger: memoryLogger(), intervalMs: 60_000 });
    sampler.start();
    expect(await sampler.refresh(2_000)).toBe("down"); // nothing listens yet: a fresh try, failed
    const admin = startStandInAdmin((ws, msg) => msg === "documents" && ws.send(reply(docJson([view("a", "0")]))), "/ed/adminws", port);
    try {
      const [a, b] = await Promise.all([sampler.refresh(5_000), sampler.refresh(5_000)]);
      expect([a, b, sampler.samples]).toEqual(["ok", "ok", 1]);
      expect(counter.snapshot()).toMatchObject({ current: 1 });
      // Up: a refresh asks the open channel again and waits for that answer.
      expect(await sampler.refresh(2_000)).toBe("ok");
      expect(sampler.samples).toBe(2);
    } finally {
      sampler.stop();
      admin.stop();
    }
  });
});
