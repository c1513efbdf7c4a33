// Closed detection (spec: "no view for 30 consecutive seconds", closed after the final save) and
// who is in a document, from admin-channel samples, at the edges of the windows with a driven clock.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ManualClock } from "../clock";
import type { SampleDoc } from "../gate/counting";
import { newDocId, newSessionId } from "../ids";
import { memoryLogger } from "../log";
import { CLOSED_AFTER_MS, DocumentPresence } from "./presence";
import { EmbedStore, type DocumentRow } from "./store";

const KEY_PREFIX = "http://127.0.0.1:8081/svc/wopi/files/";
let dir: string;
let store: EmbedStore;
let clock: ManualClock;
let closed: DocumentRow[];
let presence: DocumentPresence;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "svc-presence-"));
  store = new EmbedStore(path.join(dir, "embed.sqlite"));
  clock = new ManualClock();
  closed = [];
  presence = new DocumentPresence({
    store,
    clock,
    logger: memoryLogger(),
    docIdOfKey: (k) => (k.startsWith(KEY_PREFIX) ? k.slice(KEY_PREFIX.length) : null),
    staleAfterMs: 30_000,
    onClosed: (d) => closed.push(d),
  });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function doc(opts: { liveSession?: boolean } = {}): string {
  const id = newDocId();
  const now = clock.now();
  store.insertDocument(
    { doc_id: id, key: `k-${id}`, title: "t", file_type: "docx", owner_id: "u1", callback_url: null, state: "open", version: 0, created_at: now, opened_at: now, closed_at: null, view_seen: 0 },
    { doc_id: id, version: 0, size: 1, sha256: "00", saved_at: now, lmt: "x", saved_by_id: null, saved_by_name: null, autosave: 0, final: 0, modified_by_user: 0, gone: 0 },
  );
  if (opts.liveSession !== false) {
    store.insertSession({
      session_id: newSessionId(),
      doc_id: id,
      token_hash: `h-${id}`,
      user_id: "u1",
      user_name: "Lan",
      mode: "edit",
      requested_mode: "edit",
      limited: 0,
      lang: "vi",
      ui: "{}",
      origin: null,
      state: "active",
      created_at: now,
      expires_at: now + 3600_000,
      write_ended_at: null,
      closed_at: null,
    });
  }
  return id;
}

const viewing = (id: string, users: string[] = ["u1"], modified = false): SampleDoc => ({
  docKey: KEY_PREFIX + id,
  editSessions: users.map((u, i) => `1/${u}${i}`),
  readonly: 0,
  views: users.map((u) => ({ userId: u, readonly: false })),
  modified,
});
const listedEmpty = (id: string, modified: boolean): SampleDoc => ({ docKey: KEY_PREFIX + id, editSessions: [], readonly: 0, views: [], modified });
const state = (id: string) => store.document(id)!.state;

/** With no view from now on: still open 1 ms before the 30 s, closed at them. */
function closesAtExactly30s(id: string): void {
  clock.advance(CLOSED_AFTER_MS - 1);
  presence.applySample([]);
  expect(state(id)).toBe("open");
  clock.advance(1);
  presence.tick();
  expect(state(id)).toBe("closed");
}

describe("closed detection", () => {
  test("no view for 30 consecutive seconds after someone was in it: closed at 30 s, not at 29.999 s", () => {
    const id = doc();
    presence.applySample([viewing(id)]);
    expect(store.document(id)!.view_seen).toBe(1);
    clock.advance(5000);
    presence.applySample([]); // the last one left
    closesAtExactly30s(id);
    expect(closed.map((d) => d.doc_id)).toEqual([id]);
    expect(store.document(id)!.closed_at).toBe(clock.now());
  });

  test("a view coming back within the 30 s starts the count again", () => {
    const id = doc();
    presence.applySample([viewing(id)]);
    presence.applySample([]);
    clock.advance(20_000);
    presence.applySample([viewing(id)]);
    clock.advance(5000);
    presence.applySample([]);
    clock.advance(25_000);
    presence.applySample([]);
    expect(state(id)).toBe("open");
    clock.advance(5000);
    presence.applySample([]);
    expect(state(id)).toBe("closed");
  });

  test("the exit save still to come (listed as modified with no view) holds the close until it is stored", () => {
    const id = doc();
    presence.applySample([viewing(id)]);
    presence.applySample([listedEmpty(id, true)]);
    clock.advance(60_000);
    presence.applySample([listedEmpty(id, true)]);
    expect(state(id)).toBe("open");
    presence.applySample([listedEmpty(id, false)]);
    expect(state(id)).toBe("closed");
  });

  test("a document nobody opened yet stays open while a session may still open it; without live sessions it closes", () => {
    const waiting = doc();
    const abandoned = doc({ liveSession: false });
    presence.applySample([]);
    clock.advance(10 * CLOSED_AFTER_MS);
    presence.applySample([]);
    expect(state(waiting)).toBe("open");
    expect(state(abandoned)).toBe("closed");
  });

  test("the 30 s of a document nobody opened count from when its last session could no longer open it, however often it was looked at before", () => {
    const id = doc();
    presence.applySample([]); // looked at while its session may still open it
    clock.advance(3 * CLOSED_AFTER_MS);
    presence.applySample([]);
    expect(state(id)).toBe("open");
    for (const session of store.sessionsOf(id)) store.closeSession(session.session_id, clock.now());
    closesAtExactly30s(id);
  });

  test("CheckFileInfo (a view being opened) counts as presence; nothing is decided without a fresh sample", () => {
    const id = doc();
    presence.applySample([viewing(id)]);
    presence.applySample([]);
    clock.advance(20_000);
    presence.noteActivity(id);
    clock.advance(20_000);
    presence.tick();
    expect(state(id)).toBe("open");
    // The admin channel goes quiet: the last sample gets stale, and the document is left alone.
    clock.advance(60_000);
    presence.tick();
    expect(state(id)).toBe("open");
    presence.applySample([]);
    presence.tick();
    expect(state(id)).toBe("closed");
  });

  test("other hosts' documents in the sample are ignored", () => {
    const id = doc();
    presence.applySample([{ docKey: "https://files.example:443/wopi/files/1", editSessions: ["1/a"], readonly: 0 }, viewing(id)]);
    expect(presence.userIds(id)).toEqual(["u1"]);
  });
});

describe("users and modified", () => {
  test("the distinct user ids with a view in the latest fresh sample; modified from the sample; both empty when stale", () => {
    const id = doc();
    presence.applySample([viewing(id, ["u1", "u2", "u1"], true)]);
    expect(presence.userIds(id)).toEqual(["u1", "u2"]);
    expect(presence.modified(id)).toBe(true);
    clock.advance(30_000);
    expect(presence.userIds(id)).toEqual([]);
    expect(presence.modified(id)).toBe(false);
  });
});

describe("who is in a document after a start", () => {
  test("save callbacks left pending by a previous run wait for the first sample (their users are who has the document open when sent), at most the bound when none comes", async () => {
    let settled = false;
    const waiting = presence.sampled(60_000).then(() => (settled = true));
    // Every promise callback already due has run by the next turn of the loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    presence.applySample([]);
    await waiting;
    expect(settled).toBe(true);
    // No sample at all (the admin channel down): the bound ends the wait.
    const other = new DocumentPresence({ store, clock, logger: memoryLogger(), docIdOfKey: () => null, staleAfterMs: 30_000, onClosed: () => {} });
    await other.sampled(1);
  });
});
