// document.saved and document.closed (spec: Events, "Save callback body"), signed with
// SVC_EMBED_CALLBACK_SECRET and sent through the shared CallbackSender (SVC-Gate/1.0, no
// redirects, 2xx within 10 s, attempts at 0 s, +10 s, +60 s, then an ERROR log line). The body's
// `timestamp` is the time each attempt is sent (the stored one is replaced at every attempt).
// Every delivery is a row of the database before its first attempt and after each one, so a
// restart of the gate resumes it with the same X-SVC-Delivery id and the attempts it has left.
// document.closed of a document waits until its document.saved deliveries have ended, so a
// receiver sees the final save before the close. Saves never wait for any of this.

import type { CallbackSender, DeliveryState } from "../callbacks/sender";
import { iso, type Clock } from "../clock";
import type { Logger } from "../log";
import { redactUrl } from "../net/safe-fetch";
import { attemptInWords } from "./delivery-words";
import type { DeliveryRow, DocumentRow, EmbedStore, VersionRow } from "./store";

export interface SaveCallbackBody {
  status: "saved" | "closed";
  key: string;
  version: number;
  url: string | null;
  fileType: string;
  title: string;
  size: number;
  sha256: string;
  users: { id: string; name: string }[];
  savedBy: { id: string; name: string } | null;
  autosave: boolean;
  final: boolean;
  modifiedByUser: boolean;
  timestamp: string;
}

/** What the session state read shows of a document's last callback (beyond the spec: why it did not arrive). */
export interface CallbackView {
  event: string;
  version: number;
  delivery_id: string;
  url_host: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
}

/** One attempt as the session state shows it (beyond the spec: the callback history). */
export interface AttemptView {
  attempt: number;
  at: string;
  /** HTTP status of the answer; null when none came (network error, SSRF refusal). */
  status: number | null;
  /** Why it failed: status, redirect, timeout, connect, tls, dns, too_large, url_not_allowed…; null when delivered. */
  error: string | null;
  message: string | null;
  latency_ms: number | null;
  next_attempt_at: string | null;
  /** The attempt in words (Vietnamese): what happened and what to change. */
  explanation: string;
}

/** One save callback with all its attempts. */
export interface DeliveryHistoryView {
  delivery_id: string;
  event: string;
  version: number;
  url_host: string;
  state: string;
  created_at: string;
  attempts: AttemptView[];
}

/** Deliveries shown per document in the state read, newest first. */
export const HISTORY_LIMIT = 10;

const hostOf = (url: string) => {
  try {
    return new URL(redactUrl(url)).host;
  } catch {
    return "";
  }
};

export interface SaveCallbacksOptions {
  store: EmbedStore;
  sender: CallbackSender;
  secret: string;
  clock: Clock;
  logger: Logger;
  /** Signed download link of a version, valid SVC_EMBED_RETAIN_HOURS. */
  downloadUrl: (docId: string, version: number) => string;
  /** People with a view of the document now. */
  usersOf: (docId: string) => { id: string; name: string }[];
}

const toMs = (v: string | null) => (v ? Date.parse(v) : null);

export class SaveCallbacks {
  /** Deliveries of document.saved still under way, per document. */
  private running = new Map<string, Set<Promise<unknown>>>();

  constructor(private readonly o: SaveCallbacksOptions) {}

  private track(docId: string, p: Promise<unknown>) {
    let set = this.running.get(docId);
    if (!set) this.running.set(docId, (set = new Set()));
    set.add(p);
    void p.finally(() => {
      set!.delete(p);
      if (!set!.size && this.running.get(docId) === set) this.running.delete(docId);
    });
  }

  private persist(id: string, st: DeliveryState) {
    // A delivery cut by shutdown stays pending with its due attempt: the next start resumes it.
    if (st.state === "failed" && st.last_error === "shutdown") return;
    if (st.attempts > 0 && st.last_attempt_at !== null) {
      this.o.store.insertAttempt({
        delivery_id: id,
        attempt: st.attempts,
        at: Date.parse(st.last_attempt_at),
        status: st.last_status,
        error: st.state === "delivered" ? null : st.last_error,
        message: st.last_message ?? null,
        latency_ms: st.last_latency_ms ?? null,
        next_attempt_at: toMs(st.next_attempt_at),
      });
    }
    this.o.store.updateDelivery(id, {
      state: st.state,
      attempts: st.attempts,
      last_status: st.last_status,
      last_error: st.last_error,
      last_attempt_at: toMs(st.last_attempt_at),
      next_attempt_at: toMs(st.next_attempt_at),
    });
  }

  private start(row: DeliveryRow, resume: boolean, requestId?: string): Promise<DeliveryState> {
    const stored = JSON.parse(row.body) as SaveCallbackBody;
    return this.o.sender.send({
      kind: "document",
      event: row.event,
      url: row.url,
      // The stored body with `timestamp` set to each attempt's send time (the spec's "Send time";
      // the time X-SVC-Timestamp signs) and `users` to who has the document open then (the spec:
      // "People who had the document open when sent"), for retries and for deliveries resumed
      // after a restart. The fields keep their places; every other byte is the stored text.
      body: (sentAt) => ({ ...stored, ...("users" in stored ? { users: this.o.usersOf(row.doc_id) } : {}), timestamp: iso(sentAt) }),
      secret: this.o.secret,
      requestId,
      resume: resume
        ? {
            delivery_id: row.delivery_id,
            attempts: row.attempts,
            last_status: row.last_status,
            last_attempt_at: row.last_attempt_at === null ? null : iso(row.last_attempt_at),
            last_error: row.last_error as DeliveryState["last_error"],
            next_attempt_at: row.next_attempt_at,
          }
        : { delivery_id: row.delivery_id, attempts: 0, last_status: null, last_attempt_at: null, last_error: null, next_attempt_at: null },
      onState: (st) => this.persist(row.delivery_id, st),
    });
  }

  /** Writes the delivery row; the caller starts it (at once, or after the saves before it). */
  private record(doc: DocumentRow, event: DeliveryRow["event"], body: SaveCallbackBody): DeliveryRow | null {
    if (!doc.callback_url) return null;
    const row: DeliveryRow = {
      delivery_id: crypto.randomUUID(),
      doc_id: doc.doc_id,
      event,
      version: body.version,
      url: doc.callback_url,
      body: JSON.stringify(body),
      state: "pending",
      attempts: 0,
      last_status: null,
      last_error: null,
      last_attempt_at: null,
      next_attempt_at: this.o.clock.now(),
      created_at: this.o.clock.now(),
    };
    this.o.store.insertDelivery(row);
    return row;
  }

  /** Sends document.saved for a new version, in the background. */
  saved(doc: DocumentRow, v: VersionRow, requestId?: string): void {
    const body: SaveCallbackBody = {
      status: "saved",
      key: doc.key,
      version: v.version,
      url: this.o.downloadUrl(doc.doc_id, v.version),
      fileType: doc.file_type,
      title: doc.title,
      size: v.size,
      sha256: v.sha256,
      users: this.o.usersOf(doc.doc_id),
      savedBy: v.saved_by_id === null ? null : { id: v.saved_by_id, name: v.saved_by_name ?? v.saved_by_id },
      autosave: v.autosave === 1,
      final: v.final === 1,
      modifiedByUser: v.modified_by_user === 1,
      // Replaced by each attempt's send time (start()); stored as the time it was recorded.
      timestamp: iso(this.o.clock.now()),
    };
    const row = this.record(doc, "document.saved", body);
    if (row) this.track(doc.doc_id, this.start(row, false, requestId));
  }

  /** Records document.closed now and sends it once the document's document.saved deliveries have ended. */
  closed(doc: DocumentRow, current: VersionRow): Promise<void> {
    const body: SaveCallbackBody = {
      status: "closed",
      key: doc.key,
      version: current.version,
      url: current.version === 0 ? null : this.o.downloadUrl(doc.doc_id, current.version),
      fileType: doc.file_type,
      title: doc.title,
      size: current.size,
      sha256: current.sha256,
      users: [],
      savedBy: null,
      autosave: false,
      final: false,
      modifiedByUser: false,
      // Replaced by each attempt's send time (start()); stored as the time it was recorded.
      timestamp: iso(this.o.clock.now()),
    };
    const row = this.record(doc, "document.closed", body);
    if (!row) return Promise.resolve();
    const before = [...(this.running.get(doc.doc_id) ?? [])];
    const p = Promise.allSettled(before).then(() => this.start(row, false));
    this.track(doc.doc_id, p);
    return p.then(() => {});
  }

  /** Deliveries a previous run left pending go on (same delivery id, the attempts left), in their order. */
  resume(): number {
    const rows = this.o.store.pendingDeliveries();
    for (const row of rows) {
      if (row.event === "document.saved") this.track(row.doc_id, this.start(row, true));
      else {
        const before = [...(this.running.get(row.doc_id) ?? [])];
        this.track(row.doc_id, Promise.allSettled(before).then(() => this.start(row, true)));
      }
    }
    if (rows.length) this.o.logger.info("embed_callbacks_resumed", { deliveries: rows.length });
    return rows.length;
  }

  /** Resolves when every delivery started so far has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running.values()].flatMap((s) => [...s]));
  }

  /** The document's latest save callbacks with every attempt (beyond the spec: the callback history). */
  history(docId: string): DeliveryHistoryView[] {
    return this.o.store.deliveriesOf(docId, HISTORY_LIMIT).map((d) => ({
      delivery_id: d.delivery_id,
      event: d.event,
      version: d.version,
      url_host: hostOf(d.url),
      state: d.state,
      created_at: iso(d.created_at),
      attempts: this.o.store.attemptsOf(d.delivery_id).map((a) => ({
        attempt: a.attempt,
        at: iso(a.at),
        status: a.status,
        error: a.error,
        message: a.message,
        latency_ms: a.latency_ms,
        next_attempt_at: a.next_attempt_at === null ? null : iso(a.next_attempt_at),
        explanation: attemptInWords(a),
      })),
    }));
  }

  view(docId: string): CallbackView | null {
    const row = this.o.store.lastDelivery(docId);
    if (!row) return null;
    return {
      event: row.event,
      version: row.version,
      delivery_id: row.delivery_id,
      url_host: (() => {
        try {
          return new URL(redactUrl(row.url)).host;
        } catch {
          return "";
        }
      })(),
      state: row.state,
      attempts: row.attempts,
      last_status: row.last_status,
      last_error: row.last_error,
      last_attempt_at: row.last_attempt_at === null ? null : iso(row.last_attempt_at),
      next_attempt_at: row.state === "pending" && row.next_attempt_at !== null ? iso(row.next_attempt_at) : null,
    };
  }
}
