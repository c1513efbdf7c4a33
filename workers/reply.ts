// Writes one JSON line on file descriptor 3, the reply channel of a worker or kit process
// (stdout and stderr belong to LibreOffice). Shared by workers/worker-main.ts and the kit (workers/kit/state.ts).

import { writeSync } from "node:fs";

const REPLY_FD = 3;

export function sendLine(msg: unknown): void {
  const buf = Buffer.from(JSON.stringify(msg) + "\n", "utf8");
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(REPLY_FD, buf, off, buf.length - off);
    } catch (err) {
      // The pipe is full (a large tile, a slow parent): wait a moment and write the rest.
      if ((err as NodeJS.ErrnoException).code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
        continue;
      }
      // The parent closed fd 3: nobody can hear this process any more.
      process.exit(1);
    }
  }
}
