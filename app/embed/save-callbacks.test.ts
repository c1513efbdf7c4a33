// document.saved / document.closed as the receiver gets them, on a driven clock: the body's
// `timestamp` and the signature's X-SVC-Timestamp are the time each attempt is sent (spec "Save
// callback body": "Send time"), for retries and for deliveries resumed after a restart, so a
// receiver that rejects anything older than 300 s accepts every attempt.

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CallbackSender, type Sleep } from "../callbacks/sender";
import { ManualClock, iso } from "../clock";
import { memoryLogger } from "../log";
import { parseAllowList } from "../net/ssrf";
import { startCallbackReceiver, type CallbackReceiver } from "../testing/callback-receiver";
import { SaveCallbacks } from "./save-callbacks";
import { EmbedStore, type DocumentRow, type VersionRow } from "./store";

const SECRET = "save-callbacks-test-secret";
const T0 = Date.UTC(2026, 10, 20, 8, 0, 0, 250);

/** What the receiver got so far: each callback's timestamp header, body and whether its signature held. */
const got = () => receiver.received.map((cb) => ({ header: Number(cb.headers["x-svc-timestamp"]), body: cb.body, ok: cb.check.ok }));
let clock: ManualClock;
let receiver: CallbackReceiver;
let dir: string;

// The receiver's clock is the gate's: a receiver with a 300 s window.
beforeAll(() => (receiver = startCallbackReceiver({ secret: SECRET, now: () => clock.now() })));
afterAll(() => receiver.stop());
beforeEach(() => {
  receiver.received.length = 0;
  receiver.plan.length = 0;
  clock = new ManualClock(T0);
  dir = mkdtempSync(path.join(tmpdir(), "svc-save-cb-"));
});

function setup(store: EmbedStore, usersOf: (docId: string) => { id: string; name: string }[] = () => []) {
  // The time between attempts passes on the driven clock.
  const sleep: Sleep = async (ms) => clock.advance(ms);
  const sender = new CallbackSender({ allow: parseAllowList(["127.0.0.1/32"]), logger: memoryLogger("warn"), clock, sleep });
  return new SaveCallbacks({
    store,
    sender,
    secret: SECRET,
    clock,
    logger: memoryLogger("warn"),
    downloadUrl: (docId, v) => `http://127.0.0.1/svc/embed/files/${docId}?v=${v}`,
    usersOf,
  });
}

function document(store: EmbedStore): { doc: DocumentRow; v1: VersionRow } {
  const doc: DocumentRow = {
    doc_id: `doc_${"ab".repeat(16)}`,
    key: "k-1",
    title: "Hợp đồng",
    file_type: "docx",
    owner_id: "u1",
    callback_url: `http://127.0.0.1:${receiver.port}/cb`,
    state: "open",
    version: 0,
    created_at: clock.now(),
    opened_at: clock.now(),
    closed_at: null,
    view_seen: 1,
  };
  const v: VersionRow = { doc_id: doc.doc_id, version: 0, size: 1, sha256: "00".repeat(32), saved_at: clock.now(), lmt: "0", saved_by_id: null, saved_by_name: null, autosave: 0, final: 0, modified_by_user: 0, gone: 0 };
  store.insertDocument(doc, v);
  const v1: VersionRow = { ...v, version: 1, saved_by_id: "u1", saved_by_name: "Lan", modified_by_user: 1 };
  return { doc, v1 };
}

describe("save-callback users", () => {
  test("save-callback users are the people who have the document open when each attempt is sent: a retry after someone left no longer names them", async () => {
    const store = new EmbedStore(path.join(dir, "embed.db"));
    try {
      const lan = { id: "u1", name: "Lan" }, minh = { id: "u2", name: "Minh" };
      // Minh leaves after the first attempt.
      const callbacks = setup(store, () => (got().length === 0 ? [lan, minh] : [lan]));
      const { doc, v1 } = document(store);
      receiver.plan.push(500);
      callbacks.saved(doc, v1);
      await callbacks.idle();
      expect(got().map((g) => g.body.users)).toEqual([[lan, minh], [lan]]);
      for (const g of got()) expect(g.ok).toBe(true);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("save-callback timestamp", () => {
  test("save-callback timestamp is the time of sending each attempt: retries carry their own time, in the body and in the signature", async () => {
    const store = new EmbedStore(path.join(dir, "embed.db"));
    try {
      const callbacks = setup(store);
      const { doc, v1 } = document(store);
      receiver.plan.push(500, 503);
      // Two failed attempts: the retries go 10 s and 60 s later (the injected timer moves the clock).
      const recordedAt = clock.now();
      callbacks.saved(doc, v1);
      await callbacks.idle();
      expect(got()).toHaveLength(3);
      const sentAt = got().map((g) => Date.parse(g.body.timestamp));
      expect(sentAt).toEqual([recordedAt, recordedAt + 10_000, recordedAt + 70_000]);
      for (const g of got()) {
        expect(g.ok).toBe(true);
        expect(g.header).toBe(Math.floor(Date.parse(g.body.timestamp) / 1000));
      }
      // Everything else in the body is the same on every attempt.
      const rest = got().map(({ body: { timestamp: _, ...r } }) => JSON.stringify(r));
      expect(new Set(rest).size).toBe(1);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("save-callback timestamp of a delivery resumed after a restart is the time it is sent, not when it was recorded", async () => {
    const file = path.join(dir, "embed.db");
    let store = new EmbedStore(file);
    const { doc } = document(store);
    // Recorded by a previous run two hours ago, one attempt made, the next one overdue.
    const recorded = T0 - 2 * 3600_000;
    const body = { status: "saved", key: doc.key, version: 1, url: null, fileType: "docx", title: doc.title, size: 1, sha256: "00".repeat(32), users: [], savedBy: null, autosave: false, final: false, modifiedByUser: true, timestamp: iso(recorded) };
    store.insertDelivery({
      delivery_id: "9d1b2c3e-4f50-4a6b-8c7d-0e1f2a3b4c5d",
      doc_id: doc.doc_id,
      event: "document.saved",
      version: 1,
      url: doc.callback_url!,
      body: JSON.stringify(body),
      state: "pending",
      attempts: 1,
      last_status: 500,
      last_error: "status",
      last_attempt_at: recorded,
      next_attempt_at: recorded + 10_000,
      created_at: recorded,
    });
    store.close();
    store = new EmbedStore(file);
    try {
      const callbacks = setup(store);
      expect(callbacks.resume()).toBe(1);
      await callbacks.idle();
      expect(got()).toHaveLength(1);
      expect(got()[0]!.body.timestamp).toBe(iso(T0));
      expect(got()[0]!.header).toBe(Math.floor(T0 / 1000));
      expect(got()[0]!.ok).toBe(true);
      const { timestamp: _, ...rest } = got()[0]!.body;
      const { timestamp: __, ...stored } = body;
      expect(rest).toEqual(stored);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
