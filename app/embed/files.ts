// Version files of embedded documents: <data>/embed/files/<doc_id>/v<n>.<ext>. A version is written
// to a temporary file in the same file system, flushed to disk, then renamed into place (and the
// directory flushed), so a version the database knows of is complete on disk even after a crash.

import { createHash, randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import path from "node:path";

export class TooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`larger than ${limitBytes} bytes`);
  }
}

export interface WrittenFile {
  tmp: string;
  size: number;
  sha256: string;
}

export class VersionFiles {
  readonly tmpDir: string;

  constructor(readonly root: string) {
    this.tmpDir = path.join(root, "tmp");
    mkdirSync(this.tmpDir, { recursive: true });
    // Temporary files of writes cut short by a crash.
    for (const f of readdirSync(this.tmpDir)) rmSync(path.join(this.tmpDir, f), { force: true });
  }

  dir(docId: string): string {
    return path.join(this.root, "files", docId);
  }

  path(docId: string, version: number, ext: string): string {
    return path.join(this.dir(docId), `v${version}.${ext}`);
  }

  tmpPath(): string {
    return path.join(this.tmpDir, `${randomBytes(12).toString("hex")}.part`);
  }

  /** Streams a body into a temporary file, hashing as it goes; TooLargeError past maxBytes. */
  async writeStream(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<WrittenFile> {
    const tmp = this.tmpPath();
    const fd = openSync(tmp, "w", 0o600);
    const hash = createHash("sha256");
    let size = 0;
    try {
      if (body) {
        for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
          size += chunk.byteLength;
          if (size > maxBytes) throw new TooLargeError(maxBytes);
          hash.update(chunk);
          let off = 0;
          while (off < chunk.byteLength) off += writeSync(fd, chunk, off);
        }
      }
      fsyncSync(fd);
    } catch (e) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw e;
    }
    closeSync(fd);
    return { tmp, size, sha256: hash.digest("hex") };
  }

  /** Hash and size of a file already on disk (a download), flushed. */
  async describe(file: string): Promise<{ size: number; sha256: string }> {
    const hash = createHash("sha256");
    for await (const chunk of Bun.file(file).stream() as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
    const fd = openSync(file, "r");
    fsyncSync(fd);
    closeSync(fd);
    return { size: statSync(file).size, sha256: hash.digest("hex") };
  }

  /** Moves a flushed temporary file into place as a version. */
  commit(tmp: string, docId: string, version: number, ext: string): void {
    const dir = this.dir(docId);
    mkdirSync(dir, { recursive: true });
    renameSync(tmp, this.path(docId, version, ext));
    const dfd = openSync(dir, "r");
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  }

  discard(tmp: string): void {
    rmSync(tmp, { force: true });
  }

  remove(docId: string, version: number, ext: string): void {
    rmSync(this.path(docId, version, ext), { force: true });
  }

  removeDocument(docId: string): void {
    rmSync(this.dir(docId), { recursive: true, force: true });
  }
}
