// What the embed gate must not lose on a restart: documents, their versions, sessions and the
// callback deliveries still under way. Metadata lives in one SQLite database in the data directory
// (bun:sqlite, WAL, synchronous FULL: a committed row survives a crash of the process and of the
// machine); the version files themselves are in files.ts. Access tokens are kept only as SHA-256
// hashes: the database never holds a usable token.

import { Database } from "bun:sqlite";
import type { EditorMode, EmbedFileType } from "../../schemas/embed";

export type DocumentState = "open" | "closed";
export type SessionState = "active" | "closed";

export interface DocumentRow {
  doc_id: string;
  key: string;
  title: string;
  file_type: EmbedFileType;
  owner_id: string;
  /** callbackUrl of the latest session that gave one: where this document's callbacks go. */
  callback_url: string | null;
  state: DocumentState;
  /** Current version (0 = the original). */
  version: number;
  created_at: number;
  opened_at: number;
  closed_at: number | null;
  /** A view was seen on the editing server since the document was (re)opened. */
  view_seen: number;
}

export interface VersionRow {
  doc_id: string;
  version: number;
  size: number;
  sha256: string;
  saved_at: number;
  /** LastModifiedTime given to the editing server for this version (opaque, compared as a string). */
  lmt: string;
  saved_by_id: string | null;
  saved_by_name: string | null;
  autosave: number;
  final: number;
  modified_by_user: number;
  /** 1 once the file was cleaned up (latest 5 plus the original are kept). */
  gone: number;
}

export interface SessionRow {
  session_id: string;
  doc_id: string;
  token_hash: string;
  user_id: string;
  user_name: string;
  mode: EditorMode;
  requested_mode: EditorMode;
  limited: number;
  lang: string;
  /** The resolved `ui` object, JSON. */
  ui: string;
  /** Origin of the page that created the session, when a browser did. */
  origin: string | null;
  state: SessionState;
  created_at: number;
  expires_at: number;
  /** When the session stopped holding write permission (switch to view, DELETE); null while it holds it or never did. */
  write_ended_at: number | null;
  closed_at: number | null;
}

export type DeliveryStateName = "pending" | "delivered" | "failed";

export interface DeliveryRow {
  delivery_id: string;
  doc_id: string;
  event: "document.saved" | "document.closed";
  version: number;
  url: string;
  /** The exact body sent (JSON text); no document content, only its metadata and signed link. */
  body: string;
  state: DeliveryStateName;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  created_at: number;
}

/** One attempt of a callback delivery: when, what came back (or what failed), how long, what next. */
export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  at: number;
  status: number | null;
  /** The sender's DeliveryError ("status", "connect", "timeout", …); null when delivered. */
  error: string | null;
  /** The failure in words (log-safe). */
  message: string | null;
  latency_ms: number | null;
  /** When the next attempt is due; null after the last one. */
  next_attempt_at: number | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS documents (
  doc_id TEXT PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  file_type TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  callback_url TEXT,
  state TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  opened_at INTEGER NOT NULL,
  closed_at INTEGER,
  view_seen INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS documents_state ON documents(state);
CREATE TABLE IF NOT EXISTS versions (
  doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  saved_at INTEGER NOT NULL,
  lmt TEXT NOT NULL,
  saved_by_id TEXT,
  saved_by_name TEXT,
  autosave INTEGER NOT NULL DEFAULT 0,
  final INTEGER NOT NULL DEFAULT 0,
  modified_by_user INTEGER NOT NULL DEFAULT 0,
  gone INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (doc_id, version)
);
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT PRIMARY KEY,
  doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  user_name TEXT NOT NULL,
  mode TEXT NOT NULL,
  requested_mode TEXT NOT NULL,
  limited INTEGER NOT NULL,
  lang TEXT NOT NULL,
  ui TEXT NOT NULL,
  origin TEXT,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  write_ended_at INTEGER,
  closed_at INTEGER
);
CREATE INDEX IF NOT EXISTS sessions_doc ON sessions(doc_id);
CREATE TABLE IF NOT EXISTS deliveries (
  delivery_id TEXT PRIMARY KEY,
  doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  version INTEGER NOT NULL,
  url TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  last_status INTEGER,
  last_error TEXT,
  last_attempt_at INTEGER,
  next_attempt_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_doc ON deliveries(doc_id, created_at);
CREATE INDEX IF NOT EXISTS deliveries_state ON deliveries(state);
CREATE TABLE IF NOT EXISTS delivery_attempts (
  delivery_id TEXT NOT NULL REFERENCES deliveries(delivery_id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  at INTEGER NOT NULL,
  status INTEGER,
  error TEXT,
  message TEXT,
  latency_ms INTEGER,
  next_attempt_at INTEGER,
  PRIMARY KEY (delivery_id, attempt)
);
`;

export class EmbedStore {
  readonly db: Database;

  constructor(file: string) {
    this.db = new Database(file, { create: true, strict: true });
    this.db.run("PRAGMA journal_mode = WAL");
    this.db.run("PRAGMA synchronous = FULL");
    this.db.run("PRAGMA foreign_keys = ON");
    this.db.run("PRAGMA busy_timeout = 5000");
    this.db.run(SCHEMA);
  }

  close(): void {
    this.db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  // ------------------------------------------------------------------ documents

  documentByKey(key: string): DocumentRow | null {
    return this.db.query<DocumentRow, [string]>("SELECT * FROM documents WHERE key = ?").get(key);
  }

  document(docId: string): DocumentRow | null {
    return this.db.query<DocumentRow, [string]>("SELECT * FROM documents WHERE doc_id = ?").get(docId);
  }

  openDocuments(): DocumentRow[] {
    return this.db.query<DocumentRow, []>("SELECT * FROM documents WHERE state = 'open'").all();
  }

  countOpenDocuments(): number {
    return this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM documents WHERE state = 'open'").get()!.n;
  }

  insertDocument(d: DocumentRow, v0: VersionRow): void {
    this.transaction(() => {
      this.db
        .query(
          `INSERT INTO documents (doc_id, key, title, file_type, owner_id, callback_url, state, version, created_at, opened_at, closed_at, view_seen)
           VALUES ($doc_id, $key, $title, $file_type, $owner_id, $callback_url, $state, $version, $created_at, $opened_at, $closed_at, $view_seen)`,
        )
        .run(d as never);
      this.insertVersionRow(v0);
    });
  }

  setCallbackUrl(docId: string, url: string): void {
    this.db.query("UPDATE documents SET callback_url = ? WHERE doc_id = ?").run(url, docId);
  }

  reopen(docId: string, now: number): void {
    this.db.query("UPDATE documents SET state = 'open', opened_at = ?, closed_at = NULL, view_seen = 0 WHERE doc_id = ?").run(now, docId);
  }

  markViewSeen(docId: string): void {
    this.db.query("UPDATE documents SET view_seen = 1 WHERE doc_id = ? AND view_seen = 0").run(docId);
  }

  markClosed(docId: string, now: number): boolean {
    return this.db.query("UPDATE documents SET state = 'closed', closed_at = ? WHERE doc_id = ? AND state = 'open'").run(now, docId).changes > 0;
  }

  /** Closed documents whose retention ended before `cutoff`. */
  expiredDocuments(cutoff: number): DocumentRow[] {
    return this.db.query<DocumentRow, [number]>("SELECT * FROM documents WHERE state = 'closed' AND closed_at < ?").all(cutoff);
  }

  deleteDocument(docId: string): void {
    this.db.query("DELETE FROM documents WHERE doc_id = ?").run(docId);
  }

  // ------------------------------------------------------------------ versions

  private insertVersionRow(v: VersionRow): void {
    this.db
      .query(
        `INSERT INTO versions (doc_id, version, size, sha256, saved_at, lmt, saved_by_id, saved_by_name, autosave, final, modified_by_user, gone)
         VALUES ($doc_id, $version, $size, $sha256, $saved_at, $lmt, $saved_by_id, $saved_by_name, $autosave, $final, $modified_by_user, $gone)`,
      )
      .run(v as never);
  }

  /** Adds the next version and makes it current, in one transaction. */
  addVersion(v: VersionRow): void {
    this.transaction(() => {
      this.insertVersionRow(v);
      this.db.query("UPDATE documents SET version = ? WHERE doc_id = ?").run(v.version, v.doc_id);
    });
  }

  version(docId: string, version: number): VersionRow | null {
    return this.db.query<VersionRow, [string, number]>("SELECT * FROM versions WHERE doc_id = ? AND version = ?").get(docId, version);
  }

  /** Versions still on disk, newest first. */
  liveVersions(docId: string): VersionRow[] {
    return this.db.query<VersionRow, [string]>("SELECT * FROM versions WHERE doc_id = ? AND gone = 0 ORDER BY version DESC").all(docId);
  }

  markVersionGone(docId: string, version: number): void {
    this.db.query("UPDATE versions SET gone = 1 WHERE doc_id = ? AND version = ?").run(docId, version);
  }

  // ------------------------------------------------------------------ sessions

  insertSession(s: SessionRow): void {
    this.db
      .query(
        `INSERT INTO sessions (session_id, doc_id, token_hash, user_id, user_name, mode, requested_mode, limited, lang, ui, origin, state, created_at, expires_at, write_ended_at, closed_at)
         VALUES ($session_id, $doc_id, $token_hash, $user_id, $user_name, $mode, $requested_mode, $limited, $lang, $ui, $origin, $state, $created_at, $expires_at, $write_ended_at, $closed_at)`,
      )
      .run(s as never);
  }

  session(sessionId: string): SessionRow | null {
    return this.db.query<SessionRow, [string]>("SELECT * FROM sessions WHERE session_id = ?").get(sessionId);
  }

  sessionByTokenHash(hash: string): SessionRow | null {
    return this.db.query<SessionRow, [string]>("SELECT * FROM sessions WHERE token_hash = ?").get(hash);
  }

  sessionsOf(docId: string): SessionRow[] {
    return this.db.query<SessionRow, [string]>("SELECT * FROM sessions WHERE doc_id = ? ORDER BY created_at").all(docId);
  }

  setMode(sessionId: string, mode: EditorMode, requested: EditorMode, limited: boolean, writeEndedAt: number | null): void {
    this.db
      .query("UPDATE sessions SET mode = ?, requested_mode = ?, limited = ?, write_ended_at = ? WHERE session_id = ?")
      .run(mode, requested, limited ? 1 : 0, writeEndedAt, sessionId);
  }

  closeSession(sessionId: string, now: number): void {
    this.db
      .query(
        "UPDATE sessions SET state = 'closed', closed_at = ?, write_ended_at = CASE WHEN mode = 'edit' AND write_ended_at IS NULL THEN ? ELSE write_ended_at END WHERE session_id = ? AND state = 'active'",
      )
      .run(now, now, sessionId);
  }

  /** Sessions that are active and not past their expiry. */
  countLiveSessions(now: number, docId?: string): number {
    return docId
      ? this.db.query<{ n: number }, [string, number]>("SELECT count(*) AS n FROM sessions WHERE doc_id = ? AND state = 'active' AND expires_at > ?").get(docId, now)!.n
      : this.db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM sessions WHERE state = 'active' AND expires_at > ?").get(now)!.n;
  }

  // ------------------------------------------------------------------ deliveries

  insertDelivery(d: DeliveryRow): void {
    this.db
      .query(
        `INSERT INTO deliveries (delivery_id, doc_id, event, version, url, body, state, attempts, last_status, last_error, last_attempt_at, next_attempt_at, created_at)
         VALUES ($delivery_id, $doc_id, $event, $version, $url, $body, $state, $attempts, $last_status, $last_error, $last_attempt_at, $next_attempt_at, $created_at)`,
      )
      .run(d as never);
  }

  updateDelivery(id: string, s: Pick<DeliveryRow, "state" | "attempts" | "last_status" | "last_error" | "last_attempt_at" | "next_attempt_at">): void {
    this.db
      .query(
        "UPDATE deliveries SET state = $state, attempts = $attempts, last_status = $last_status, last_error = $last_error, last_attempt_at = $last_attempt_at, next_attempt_at = $next_attempt_at WHERE delivery_id = $id",
      )
      .run({ ...s, id } as never);
  }

  pendingDeliveries(): DeliveryRow[] {
    return this.db.query<DeliveryRow, []>("SELECT * FROM deliveries WHERE state = 'pending' ORDER BY created_at").all();
  }

  pendingDeliveriesOf(docId: string): DeliveryRow[] {
    return this.db.query<DeliveryRow, [string]>("SELECT * FROM deliveries WHERE doc_id = ? AND state = 'pending' ORDER BY created_at").all(docId);
  }

  /** Records an attempt once (a resumed delivery reporting it again changes nothing). */
  insertAttempt(a: AttemptRow): void {
    this.db
      .query(
        `INSERT OR IGNORE INTO delivery_attempts (delivery_id, attempt, at, status, error, message, latency_ms, next_attempt_at)
         VALUES ($delivery_id, $attempt, $at, $status, $error, $message, $latency_ms, $next_attempt_at)`,
      )
      .run(a as never);
  }

  /** A document's latest deliveries, newest first. */
  deliveriesOf(docId: string, limit: number): DeliveryRow[] {
    return this.db.query<DeliveryRow, [string, number]>("SELECT * FROM deliveries WHERE doc_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?").all(docId, limit);
  }

  attemptsOf(deliveryId: string): AttemptRow[] {
    return this.db.query<AttemptRow, [string]>("SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt").all(deliveryId);
  }

  lastDelivery(docId: string): DeliveryRow | null {
    return this.db.query<DeliveryRow, [string]>("SELECT * FROM deliveries WHERE doc_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1").get(docId);
  }
}
