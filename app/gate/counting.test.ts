// The counting rules 1–8 and the admission table, at their edges, on a driven clock.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ManualClock } from "../clock";
import { Admission, wopiHostAllowed, type UserCanWrite } from "./admission";
import { parseAliasGroups } from "../alias-groups";
import { ConnectionCounter, PENDING_TTL_MS, RECONNECT_GRACE_MS, SAMPLE_INTERVAL_MS, STALE_AFTER_PERIODS, type SampleDoc } from "./counting";
import { parseDocumentsReply } from "./sampler";
import { USAGE_HEADER, UsageWriter } from "./usage-csv";
import { documentKeyer, type DocKeyFn } from "../editing-uri";

const src = (n: number, host = "http://files.example:8080") => `${host}/wopi/files/${n}`;
const key = (n: number) => `http://files.example:8080/wopi/files/${n}`;
const ws = (n: number, token = `tok${n}`, extra = "", host?: string) => {
  const s = src(n, host);
  return `/ed/${encodeURIComponent(`${s}?access_token=${token}&access_token_ttl=0${extra}`)}/ws?WOPISrc=${encodeURIComponent(s)}&compat=/ws`;
};
const page = (n: number, extra = "") => `/browser/h/ed.html?WOPISrc=${encodeURIComponent(src(n))}${extra}`;
const doc = (n: number, edit: string[], readonly = 0): SampleDoc => ({ docKey: key(n), editSessions: edit, readonly });

function setup(limit = 2, opts: { allowed?: string[]; canWrite?: boolean | null; keyOf?: DocKeyFn } = {}) {
  const clock = new ManualClock();
  let cap = limit;
  const counter = new ConnectionCounter({ clock, limit: () => cap });
  const cfiCalls: string[] = [];
  const userCanWrite: UserCanWrite = async (wopiSrc) => {
    cfiCalls.push(wopiSrc);
    return opts.canWrite === undefined ? true : opts.canWrite;
  };
  const admission = new Admission({ counter, clock, edition: () => "community", wopiAllowedHosts: opts.allowed ?? [], userCanWrite, keyOf: opts.keyOf });
  return { clock, counter, admission, cfiCalls, setCap: (n: number) => (cap = n) };
}

describe("counting rules", () => {
  test("rule 1: current is the editing views of the latest sample; read-only views are reported apart", () => {
    const { counter } = setup(10);
    counter.applySample([doc(1, ["a", "b"], 2), doc(2, ["c"])]);
    expect(counter.snapshot()).toMatchObject({ current: 3, readonly: 2, views_total: 5, documents: 2, source: "adminws", enforcing: true, sample_age_seconds: 0 });
    counter.applySample([doc(1, ["a"])]);
    expect(counter.snapshot()).toMatchObject({ current: 1, readonly: 0, documents: 1 });
  });

  test("rule 2: an admitted session is pending until a sample shows it", async () => {
    const { counter, admission } = setup(10);
    counter.applySample([]);
    expect((await admission.decide("ws", ws(1))).admit).toBe(true);
    expect(counter.snapshot()).toMatchObject({ current: 0, pending: 1 });
    counter.applySample([doc(1, ["s1"])]);
    expect(counter.snapshot()).toMatchObject({ current: 1, pending: 0 });
  });

  test("rule 2: a pending entry clears after 60 s without a confirming sample (not at 59 s)", async () => {
    const { clock, counter, admission } = setup(10);
    counter.applySample([]);
    await admission.decide("ws", ws(1));
    clock.advance(59_999);
    expect(counter.snapshot().pending).toBe(1);
    clock.advance(1);
    expect(counter.snapshot().pending).toBe(0);
  });

  test("rule 3: admitted while current + pending < limit, refused at the limit with limit, current and edition", async () => {
    const { counter, admission } = setup(2);
    counter.applySample([doc(1, ["a"])]);
    expect(await admission.decide("ws", ws(2))).toMatchObject({ admit: true, reason: "under_cap" });
    expect(counter.snapshot().limit_reached).toBe(true);
    expect(await admission.decide("ws", ws(3))).toEqual({ admit: false, reason: "limit", limit: 2, current: 2, edition: "community" });
  });

  test("rule 3: a slot freed by someone leaving is usable from the next sample", async () => {
    const { counter, admission } = setup(1);
    counter.applySample([doc(1, ["a"])]);
    expect((await admission.decide("ws", ws(2))).admit).toBe(false);
    counter.applySample([]);
    // The leaver's document keeps a grace slot, but another document is admitted on the freed slot.
    expect(await admission.decide("ws", ws(2))).toMatchObject({ admit: true, reason: "under_cap" });
  });

  test("rule 4: peak_5m is the highest current within 300 s and never refuses", async () => {
    const { clock, counter, admission } = setup(5);
    counter.applySample([doc(1, ["a", "b", "c", "d"])]);
    clock.advance(10_000);
    counter.applySample([doc(1, ["a"])]);
    expect(counter.snapshot().peak_5m).toBe(4);
    expect((await admission.decide("ws", ws(2))).admit).toBe(true);
    clock.advance(290_001);
    counter.applySample([doc(1, ["a"])]);
    expect(counter.snapshot().peak_5m).toBe(1);
  });

  test("rule 5: a document whose editing views drop keeps a reconnect slot for 120 s", async () => {
    const { clock, counter, admission } = setup(1);
    counter.applySample([doc(1, ["a"])]);
    clock.advance(10_000);
    counter.applySample([doc(2, ["x"])]); // a left doc 1, x took the slot on doc 2
    expect(counter.snapshot().limit_reached).toBe(true);
    clock.advance(110_000);
    counter.applySample([doc(2, ["x"])]);
    clock.advance(9_999); // 119.999 s after the drop was sampled
    expect(await admission.decide("ws", ws(1, "other-token"))).toMatchObject({ admit: true, reason: "grace" });
    // One slot per view that left: the next one is refused.
    expect((await admission.decide("ws", ws(1, "third"))).admit).toBe(false);
  });

  test("rule 5: the grace slot is gone at 120 s", async () => {
    const { clock, counter, admission } = setup(1);
    counter.applySample([doc(1, ["a"])]);
    counter.applySample([doc(2, ["x"])]);
    clock.advance(120_000);
    counter.applySample([doc(2, ["x"])]);
    expect(await admission.decide("ws", ws(1, "late"))).toMatchObject({ admit: false, reason: "limit" });
  });

  test("rule 6: at the cap a known session reconnecting is admitted, a new one is not", async () => {
    const { counter, admission } = setup(1);
    counter.applySample([]);
    expect((await admission.decide("ws", ws(1, "alice"))).admit).toBe(true);
    counter.applySample([doc(1, ["s1"])]);
    expect(await admission.decide("ws", ws(1, "alice", "&permission=edit"))).toMatchObject({ admit: true, reason: "reconnect" });
    expect(await admission.decide("ws", ws(1, "bob"))).toMatchObject({ admit: false });
  });

  test("rule 6: read-only sessions are always admitted and not counted", async () => {
    const { counter, admission } = setup(1);
    counter.applySample([doc(1, ["a"])]);
    expect(await admission.decide("ws", ws(2, "t", "&permission=readonly"))).toMatchObject({ admit: true, reason: "readonly" });
    expect(await admission.decide("page", page(2, "&permission=readonly"))).toMatchObject({ admit: true, reason: "readonly" });
    expect(counter.snapshot().pending).toBe(0);
  });

  test("rule 6: a lowered cap below the open sessions refuses new ones and reports, never cuts", async () => {
    const { counter, admission, setCap } = setup(5);
    counter.applySample([doc(1, ["a", "b", "c"])]);
    setCap(2);
    expect(counter.snapshot()).toMatchObject({ limit: 2, current: 3, limit_reached: true });
    expect(await admission.decide("ws", ws(2))).toMatchObject({ admit: false, limit: 2, current: 3 });
  });

  test("rule 6: the page stage refuses at the cap (limit page) without counting", async () => {
    const { counter, admission } = setup(1);
    counter.applySample([doc(1, ["a"])]);
    expect(await admission.decide("page", page(2))).toMatchObject({ admit: false, reason: "limit" });
    counter.applySample([]);
    expect(await admission.decide("page", page(2))).toMatchObject({ admit: true });
    expect(counter.snapshot().pending).toBe(0);
  });

  test("rule 7: with no sample fresher than 3 periods the gate does not enforce and admits everything", async () => {
    const { clock, counter, admission } = setup(1);
    expect(counter.snapshot()).toMatchObject({ enforcing: false, source: "none", sample_age_seconds: 0 });
    expect((await admission.decide("ws", ws(1))).admit).toBe(true);
    counter.applySample([doc(1, ["a"])]);
    clock.advance(29_999);
    expect((await admission.decide("ws", ws(2))).admit).toBe(false);
    clock.advance(1);
    expect(counter.snapshot()).toMatchObject({ enforcing: false, source: "none", sample_age_seconds: 30 });
    expect(await admission.decide("ws", ws(2))).toMatchObject({ admit: true, reason: "not_enforcing" });
  });

  test("connections.sampled_at and sample_age_seconds are never null: before the first sample they are the gate's start time and the age since, with source none", () => {
    const { clock, counter } = setup(1);
    const started = clock.now();
    const first = counter.snapshot();
    expect(first).toMatchObject({ source: "none", enforcing: false, sampled_at: new Date(started).toISOString(), sample_age_seconds: 0 });
    clock.advance(42_500);
    expect(counter.snapshot()).toMatchObject({ source: "none", enforcing: false, sampled_at: new Date(started).toISOString(), sample_age_seconds: 42 });
    // The types the spec gives: a string and an integer, whatever the state.
    const s = counter.snapshot();
    expect([typeof s.sampled_at, Number.isInteger(s.sample_age_seconds)]).toEqual(["string", true]);
    // Once a sample exists, they are that sample's.
    counter.applySample([]);
    clock.advance(3000);
    expect(counter.snapshot()).toMatchObject({ source: "adminws", sampled_at: new Date(clock.now() - 3000).toISOString(), sample_age_seconds: 3 });
  });

  test("rule 7: a WebSocket the gate cannot read is refused even when not enforcing", async () => {
    const { admission } = setup(10);
    expect(await admission.decide("ws", "/ed/adminws")).toMatchObject({ admit: false, reason: "unknown_websocket" });
    expect(await admission.decide("ws", "/hosting/discovery")).toMatchObject({ admit: false });
  });

  test("outside hosts: CheckFileInfo only at the cap and only for allowed origins", async () => {
    const a = setup(1, { allowed: ["http://files.example:8080"], canWrite: false });
    a.counter.applySample([]);
    await a.admission.decide("ws", ws(1));
    expect(a.cfiCalls).toHaveLength(0); // under the cap: never called
    a.counter.applySample([doc(1, ["s"])]);
    expect(await a.admission.decide("ws", ws(2, "viewer"))).toMatchObject({ admit: true, reason: "readonly" });
    expect(a.cfiCalls).toEqual([src(2)]);
    const b = setup(1, { allowed: [], canWrite: false });
    b.counter.applySample([doc(1, ["s"])]);
    expect((await b.admission.decide("ws", ws(2, "viewer"))).admit).toBe(false);
    expect(b.cfiCalls).toHaveLength(0); // empty list: never calls out
    const c = setup(1, { allowed: ["http://files.example:8080"], canWrite: true });
    c.counter.applySample([doc(1, ["s"])]);
    expect((await c.admission.decide("ws", ws(2, "writer"))).admit).toBe(false);
  });

  test("SVC_WOPI_ALLOWED_HOSTS entries are origins or host names", () => {
    expect(wopiHostAllowed(["https://cloud.example"], "https://cloud.example/wopi/files/1")).toBe(true);
    expect(wopiHostAllowed(["https://cloud.example"], "http://cloud.example/wopi/files/1")).toBe(false);
    expect(wopiHostAllowed(["cloud.example"], "https://CLOUD.example:443/x")).toBe(true);
    expect(wopiHostAllowed(["cloud.example"], "https://evil.example/x")).toBe(false);
  });
});

describe("alias groups (SVC_ONLINE_ALIASGROUP*): one document per file, whatever alias reached it", () => {
  // Group 2 lists a regular-expression alias and a plain one; the first entry is the document's key.
  const keyOf = documentKeyer(
    parseAliasGroups(["http://gate.internal:8081,http://127\\.0\\.0\\.1:8081", "http://files.example:8080,http://files[0-9]+\\.example:8080,http://files-alias.example:8080"]),
  );
  const viaRegex = "http://files7.example:8080";
  const viaPlain = "http://files-alias.example:8080";

  test("alias group: two aliases of one host are one document", async () => {
    const { counter, admission } = setup(10, { keyOf });
    counter.applySample([]);
    expect(await admission.decide("ws", ws(1, "t1", "", viaRegex))).toMatchObject({ admit: true, reason: "under_cap", docKey: key(1) });
    expect(await admission.decide("ws", ws(1, "t2", "", viaPlain))).toMatchObject({ admit: true, reason: "under_cap", docKey: key(1) });
    expect(await admission.decide("ws", ws(1, "t3"))).toMatchObject({ docKey: key(1) });
    expect([...counter.trackedDocuments()]).toEqual([key(1)]);
    // A sample naming the document through both aliases (a server keying by the raw host) is one document too.
    const reply = `documents {"documents":[${[viaRegex, viaPlain].map((h, i) => `{"pid":${i + 1},"docKey":"${encodeURIComponent(`${h}/wopi/files/1`)}","views":[{"userName":"U","userId":"u","sessionid":"s${i}","readonly":"0"}]}`).join(",")}]}`;
    counter.applySample(parseDocumentsReply(reply, keyOf)!);
    expect(counter.snapshot()).toMatchObject({ current: 2, documents: 1, pending: 1 });
  });

  test("alias group: a session admitted through an alias is confirmed by the sample of the group's first entry (rule 2)", async () => {
    const sample = [doc(1, ["s1"])]; // what the editing server reports: the canonical docKey
    const grouped = setup(10, { keyOf });
    grouped.counter.applySample([]);
    await grouped.admission.decide("ws", ws(1, "t1", "", viaPlain));
    grouped.counter.applySample(sample);
    expect(grouped.counter.snapshot()).toMatchObject({ current: 1, pending: 0 });
    // Without the groups the same session stays pending, counted twice for 60 s.
    const plain = setup(10);
    plain.counter.applySample([]);
    await plain.admission.decide("ws", ws(1, "t1", "", viaPlain));
    plain.counter.applySample(sample);
    expect(plain.counter.snapshot()).toMatchObject({ current: 1, pending: 1 });
  });

  test("alias group: a grace slot left through one alias serves a reconnect through another (rule 5)", async () => {
    const { counter, admission } = setup(1, { keyOf });
    counter.applySample([doc(1, ["a"])]);
    counter.applySample([doc(2, ["x"])]); // doc 1's editor left; doc 2 holds the only slot
    expect(await admission.decide("ws", ws(1, "back", "", viaRegex))).toMatchObject({ admit: true, reason: "grace", docKey: key(1) });
    expect((await admission.decide("ws", ws(1, "next", "", viaPlain))).admit).toBe(false);
  });

  test("alias group: a known session reconnecting through another alias is a reconnect at the cap (rule 6)", async () => {
    const { counter, admission } = setup(1, { keyOf });
    counter.applySample([]);
    expect((await admission.decide("ws", ws(1, "alice", "", viaRegex))).admit).toBe(true);
    counter.applySample([doc(1, ["s1"])]);
    expect(await admission.decide("ws", ws(1, "alice", "&permission=edit", viaPlain))).toMatchObject({ admit: true, reason: "reconnect" });
    expect(await admission.decide("page", `/browser/h/ed.html?WOPISrc=${encodeURIComponent(src(1, viaPlain))}`)).toMatchObject({ admit: false, reason: "limit" });
  });

  test("alias group: hosts outside the group stay separate documents", async () => {
    const { counter, admission } = setup(10, { keyOf });
    counter.applySample([]);
    await admission.decide("ws", ws(1, "t1", "", "http://filesX.example:8080"));
    await admission.decide("ws", ws(1, "t2", "", "http://other.example:8080"));
    await admission.decide("ws", ws(1, "t3"));
    expect(counter.trackedDocuments().size).toBe(3);
  });
});

describe("counting windows", () => {
  test("the spec's windows by default; tests may shorten them", async () => {
    const clock = new ManualClock();
    const spec = new ConnectionCounter({ clock, limit: () => 1 });
    expect([spec.intervalMs, spec.pendingTtlMs, spec.reconnectGraceMs, spec.staleAfterPeriods]).toEqual([10_000, 60_000, 120_000, 3]);
    expect([SAMPLE_INTERVAL_MS, PENDING_TTL_MS, RECONNECT_GRACE_MS, STALE_AFTER_PERIODS]).toEqual([10_000, 60_000, 120_000, 3]);
    const short = new ConnectionCounter({ clock, limit: () => 1, intervalMs: 100, pendingTtlMs: 1000, reconnectGraceMs: 2000, staleAfterPeriods: 2 });
    const admission = new Admission({ counter: short, clock, edition: () => "community", wopiAllowedHosts: [] });
    short.applySample([doc(1, ["a"])]);
    short.addPending(key(2));
    clock.advance(199);
    expect(short.snapshot()).toMatchObject({ enforcing: true, pending: 1 });
    clock.advance(1);
    expect(short.enforcing()).toBe(false);
    short.applySample([doc(2, ["x"])]);
    clock.advance(800);
    expect(short.snapshot().pending).toBe(0); // 1000 ms after it was added
    expect(short.graceSlots(key(1))).toBe(1);
    short.applySample([doc(2, ["x"])]);
    clock.advance(1199);
    short.applySample([doc(2, ["x"])]);
    expect(await admission.decide("ws", ws(1, "late"))).toMatchObject({ admit: true, reason: "grace" });
    short.applySample([doc(1, ["a"])]);
    short.applySample([doc(2, ["x"])]);
    clock.advance(2000);
    short.applySample([doc(2, ["x"])]);
    expect((await admission.decide("ws", ws(1, "later"))).admit).toBe(false);
  });
});

describe("rule 8: usage file", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-usage-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("one line per run in usage/usage-YYYY-MM.csv with a header line, peaks of the last 300 s", () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 23, 50, 0));
    const counter = new ConnectionCounter({ clock, limit: () => 50 });
    const usage = new UsageWriter({ dataDir: dir, counter, clock, edition: () => "community" });
    counter.applySample([doc(1, ["a", "b"], 3)]);
    clock.advance(10_000);
    counter.applySample([doc(1, ["a"])]);
    const f1 = usage.write();
    clock.advance(300_000);
    counter.applySample([doc(1, ["a"])]);
    usage.write();
    clock.advance(300_000); // into December: a new file
    const f3 = usage.write();
    expect(path.relative(dir, f1)).toBe("usage/usage-2026-11.csv");
    expect(readFileSync(f1, "utf8")).toBe(`${USAGE_HEADER}\n2026-11-30T23:50:10.000Z,2,5,50,community\n2026-11-30T23:55:10.000Z,1,1,50,community\n`);
    expect(path.relative(dir, f3)).toBe("usage/usage-2026-12.csv");
    expect(readFileSync(f3, "utf8").split("\n")[0]).toBe(USAGE_HEADER);
  });
});
