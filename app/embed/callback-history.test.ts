// The callback delivery history of a document (issue 25, beyond the spec's state read): every
// attempt of every save callback, with its time, its HTTP status or network error, its latency and
// the next retry, kept in the embed database and told in words. Real receivers on 127.0.0.1.

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { CallbackSender, type Sleep } from "../callbacks/sender";
import { ManualClock } from "../clock";
import { memoryLogger } from "../log";
import { parseAllowList } from "../net/ssrf";
import { startCallbackReceiver, type CallbackReceiver } from "../testing/callback-receiver";
import { SaveCallbacks } from "./save-callbacks";
import { EmbedStore, type DocumentRow, type VersionRow } from "./store";

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
let receiver: CallbackReceiver;
let deadPort = 0;

beforeAll(async () => {
  receiver = startCallbackReceiver();
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  deadPort = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
});
afterAll(() => receiver.stop());
// Each test plans its own statuses.
beforeEach(() => (receiver.plan.length = 0));

function setup(callbackUrl: string) {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-cb-history-"));
  const file = path.join(dir, "embed.db");
  const store = new EmbedStore(file);
  const clock = new ManualClock(T0);
  const sleep: Sleep = async (ms) => clock.advance(ms);
  const sender = new CallbackSender({ allow: parseAllowList(["127.0.0.1/32"]), logger: memoryLogger("error"), clock, sleep });
  const callbacks = new SaveCallbacks({ store, sender, secret: "s", clock, logger: memoryLogger("error"), downloadUrl: () => "http://x/f", usersOf: () => [] });
  const doc: DocumentRow = { doc_id: `doc_${"cd".repeat(16)}`, key: "k", title: "t", file_type: "docx", owner_id: "u", callback_url: callbackUrl, state: "open", version: 0, created_at: T0, opened_at: T0, closed_at: null, view_seen: 1 };
  const v0: VersionRow = { doc_id: doc.doc_id, version: 0, size: 1, sha256: "00".repeat(32), saved_at: T0, lmt: "0", saved_by_id: null, saved_by_name: null, autosave: 0, final: 0, modified_by_user: 0, gone: 0 };
  store.insertDocument(doc, v0);
  return { store, callbacks, doc, v1: { ...v0, version: 1 }, file, done: () => (store.close(), rmSync(dir, { recursive: true, force: true })) };
}

describe("callback delivery history", () => {
  test("history: a receiver answering 500, 503, then 200 shows three attempts with status, latency, next retry and words", async () => {
    const t = setup(`http://127.0.0.1:${receiver.port}/cb`);
    try {
      receiver.plan.push(500, 503);
      t.callbacks.saved(t.doc, t.v1);
      await t.callbacks.idle();
      const [d] = t.callbacks.history(t.doc.doc_id);
      expect(d).toMatchObject({ event: "document.saved", version: 1, state: "delivered", url_host: `127.0.0.1:${receiver.port}` });
      expect(d!.attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([
        [1, 500, "status"],
        [2, 503, "status"],
        [3, 200, null],
      ]);
      expect(d!.attempts[0]!.at).toBe(new Date(T0).toISOString());
      expect(d!.attempts[0]!.next_attempt_at).toBe(new Date(T0 + 10_000).toISOString());
      expect(d!.attempts[1]!.next_attempt_at).toBe(new Date(T0 + 70_000).toISOString());
      expect(d!.attempts[2]!.next_attempt_at).toBeNull();
      for (const a of d!.attempts) expect(a.latency_ms).toBeGreaterThanOrEqual(0);
      expect(d!.attempts[0]!.explanation).toContain("500");
      expect(d!.attempts[0]!.explanation).toContain("thử lại lúc");
      expect(d!.attempts[2]!.explanation).toContain("đã giao");
    } finally {
      t.done();
    }
  });

  test("history: an unreachable receiver shows the network error (connect) for each attempt and says no retry is left", async () => {
    const t = setup(`http://127.0.0.1:${deadPort}/cb`);
    try {
      t.callbacks.saved(t.doc, t.v1);
      await t.callbacks.idle();
      const [d] = t.callbacks.history(t.doc.doc_id);
      expect(d!.state).toBe("failed");
      expect(d!.attempts).toHaveLength(3);
      for (const a of d!.attempts) expect(a).toMatchObject({ status: null, error: "connect" });
      expect(d!.attempts[2]!.message).toContain("ECONNREFUSED");
      expect(d!.attempts[2]!.explanation).toContain("không kết nối được");
      expect(d!.attempts[2]!.explanation).toContain("không thử lại nữa");
    } finally {
      t.done();
    }
  });

  test("history: a 401 from the receiver is explained as a signature or clock mismatch; the history survives a restart", async () => {
    const t = setup(`http://127.0.0.1:${receiver.port}/cb`);
    try {
      receiver.plan.push(401, 401, 401);
      t.callbacks.saved(t.doc, t.v1);
      await t.callbacks.idle();
      expect(t.callbacks.history(t.doc.doc_id)[0]!.attempts[0]!.explanation).toContain("SVC_EMBED_CALLBACK_SECRET");
      const again = new EmbedStore(t.file);
      try {
        expect(again.attemptsOf(t.callbacks.history(t.doc.doc_id)[0]!.delivery_id)).toHaveLength(3);
      } finally {
        again.close();
      }
    } finally {
      t.done();
    }
  });
});
