// The write-ahead journal of an open document: every input the editing server forwards to the
// document's kit (keys, text and IME input, mouse, UNO commands with their arguments, paste and
// picture payloads, part switches, views made and ended), in the order the kit receives it, next
// to the file the kit loaded. The document's state is that file with the journal replayed in order
// (recovery.ts), so the editing server or its kit can die at any moment without losing what a
// person typed.
//
// Layout, one folder per open document under <data>/edsrv/journal/<sha256 of the docKey>/:
//   base.<ext>      the file the kit loaded (written before the first input)
//   meta.json       the document: WOPISrc, name, the WOPI access of its last editor (to store a
//                   recovered version after a restart; the folder is 0700, the file 0600), the
//                   LastModifiedTime and journal position of the last stored version
//   journal.ndjson  one JSON entry per line: {seq, op, ...the kit request's fields}
// Entries are written at once (they survive the process) and flushed to disk at most 250 ms later
// (they survive the machine): one fsync per batch, never one per keystroke.
//
// A stored version does not cut the journal while the document is open: the inputs are relative
// to each view's caret and selection, which a stored file does not carry, so replaying from the
// loaded file is what restores every view exactly. The folder goes when the document closes with
// everything stored.

import { createHash } from "node:crypto";
import { closeSync, copyFileSync, existsSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import type { Logger } from "../log";
import type { WopiAuth } from "./wopi-client";

// Which kit requests are journalled is a property of each op: `journalled` in KIT_OPS
// (workers/kit-protocol.ts), read by the document's journalling kit (documents.ts).

/** What names a session's view across a recovery: the SHA-256 of its access token (never the token). */
export const tokenHashOf = (token: string) => createHash("sha256").update(token).digest("base64url").slice(0, 22);

export interface JournalEntry {
  seq: number;
  op: string;
  /** For `view`: the viewId the kit gave (written when it answered, as `viewmade`). */
  [field: string]: unknown;
}

export interface JournalMeta {
  wopiSrc: string;
  fileName: string;
  ext: string;
  /** The WOPI access of the document's last editor: what a recovered version is stored with. */
  auth: WopiAuth | null;
  lastModifiedTime: string | null;
  /** The last entry a stored version contains (0: nothing stored since the load). */
  storedSeq: number;
  /** Entries a replay found to crash the engine: left out of every later replay. */
  poison: number[];
}

/** How long an entry may wait for its flush to disk. */
export const FLUSH_MS = 250;

export const journalRoot = (dataRoot: string) => path.join(dataRoot, "journal");
export const journalDirFor = (root: string, docKey: string) => path.join(root, createHash("sha256").update(docKey).digest("hex").slice(0, 32));

export class Journal {
  private fd: number | null = null;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private dirty = false;
  /** The sequence number of the last entry written. */
  seq = 0;
  meta: JournalMeta;
  /** A write failed (full or read-only disk): input is still forwarded, and the failure is reported once. */
  failed: Error | null = null;

  private constructor(
    readonly dir: string,
    meta: JournalMeta,
    private readonly log: Logger,
  ) {
    this.meta = meta;
  }

  /** Starts the journal of a document just loaded from `loadedFile`; anything there before is replaced. */
  static begin(dir: string, loadedFile: string, meta: Omit<JournalMeta, "storedSeq" | "poison">, log: Logger): Journal {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const j = new Journal(dir, { ...meta, storedSeq: 0, poison: [] }, log);
    copyFileSync(loadedFile, j.basePath);
    syncFile(j.basePath);
    j.writeMeta();
    j.fd = openSync(path.join(dir, "journal.ndjson"), "a", 0o600);
    fsyncSync(j.fd);
    return j;
  }

  /** Opens a journal left by an earlier process, to replay it and go on writing after its last entry. */
  static resume(dir: string, log: Logger): { journal: Journal; entries: JournalEntry[] } | null {
    const read = Journal.read(dir);
    if (!read) return null;
    const j = new Journal(dir, read.meta, log);
    j.seq = read.entries.at(-1)?.seq ?? 0;
    j.fd = openSync(path.join(dir, "journal.ndjson"), "a", 0o600);
    return { journal: j, entries: read.entries };
  }

  /** What a journal folder holds; null when it is not a complete journal (no base or meta). */
  static read(dir: string): { meta: JournalMeta; entries: JournalEntry[] } | null {
    const metaFile = path.join(dir, "meta.json");
    if (!existsSync(metaFile)) return null;
    let meta: JournalMeta;
    try {
      meta = JSON.parse(readFileSync(metaFile, "utf8")) as JournalMeta;
    } catch {
      return null;
    }
    if (!existsSync(path.join(dir, `base${meta.ext ? "." + meta.ext : ""}`))) return null;
    const entries: JournalEntry[] = [];
    const file = path.join(dir, "journal.ndjson");
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        entries.push(JSON.parse(line) as JournalEntry);
      } catch {
        break; // a line cut by the crash: everything before it is whole
      }
    }
    return { meta: { ...meta, poison: meta.poison ?? [] }, entries };
  }

  /** The journal folders under a root (documents that were open when their process ended). */
  static list(root: string): string[] {
    if (!existsSync(root)) return [];
    return readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => path.join(root, d.name));
  }

  get basePath(): string {
    return path.join(this.dir, `base${this.meta.ext ? "." + this.meta.ext : ""}`);
  }

  /** Writes one entry before its request goes to the kit; returns its sequence number. */
  append(op: string, fields: Record<string, unknown>): number {
    const seq = ++this.seq;
    if (this.fd === null || this.failed) return seq;
    try {
      writeSync(this.fd, JSON.stringify({ seq, op, ...fields }) + "\n");
      this.dirty = true;
      this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
    } catch (err) {
      this.fail(err as Error);
    }
    return seq;
  }

  /** Puts the entries written so far on the disk (fdatasync). */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (!this.dirty || this.fd === null) return;
    this.dirty = false;
    try {
      fdatasyncSync(this.fd);
    } catch (err) {
      this.fail(err as Error);
    }
  }

  /** A version was stored with every entry up to `seq`: remembered with its LastModifiedTime and access. */
  stored(seq: number, lastModifiedTime: string | null, auth: WopiAuth | null): void {
    this.meta = { ...this.meta, storedSeq: Math.max(this.meta.storedSeq, seq), lastModifiedTime, auth: auth ?? this.meta.auth };
    this.writeMeta();
  }

  /** The access a later stored version would use (the newest editor's). */
  setAuth(auth: WopiAuth): void {
    if (this.meta.auth?.token === auth.token) return;
    this.meta = { ...this.meta, auth };
    this.writeMeta();
  }

  markPoison(seq: number): void {
    if (this.meta.poison.includes(seq)) return;
    this.meta = { ...this.meta, poison: [...this.meta.poison, seq] };
    this.writeMeta();
  }

  /** Whether entries after the last stored version exist (input that only the journal holds). */
  get unstored(): boolean {
    return this.seq > this.meta.storedSeq;
  }

  /** Ends the journal: `remove` when everything is stored (or kept elsewhere), else it stays for the next start. */
  close(remove: boolean): void {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    if (remove) rmSync(this.dir, { recursive: true, force: true });
  }

  private writeMeta(): void {
    try {
      const file = path.join(this.dir, "meta.json");
      const tmp = `${file}.tmp`;
      writeFileSync(tmp, JSON.stringify(this.meta), { mode: 0o600 });
      syncFile(tmp);
      renameSync(tmp, file);
    } catch (err) {
      this.fail(err as Error);
    }
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    this.log.error("journal_write_failed", { error: err, code: (err as NodeJS.ErrnoException).code ?? null });
  }
}

function syncFile(file: string): void {
  const fd = openSync(file, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
