// The least a Bun HTTP service can spend on a conversion's input and output, for
// bench/profile-convert.ts to set the service's own CPU against (issue 47): a multipart upload
// parsed natively, a job folder, the file written, one JSON line to a worker process over a pipe
// and one back, the output read and hashed, the file answered. No authentication, guard, job
// record, queue, timer, metric or log line: what svc adds to this is what it costs over Bun itself.
//
//   bun bench/floor-service.ts <port> <data dir> <reply file>     (prints "ready" once it listens)
//
// Its worker (floor-service.ts --worker) spends 25 ms of CPU per request, as a small document's
// engine would, then copies the reply file (the output svc gave for the same upload) and answers
// as a DocBuilder worker does: a result, then closed.
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { execa } from "execa";

const ENGINE_MS = 25;

if (process.argv[2] === "--worker") {
  const reply = process.argv[3]!;
  createInterface({ input: process.stdin }).on("line", (line) => {
    const req = JSON.parse(line) as { id: string; output: string };
    const until = performance.now() + ENGINE_MS;
    while (performance.now() < until) {
      // the engine's work
    }
    copyFileSync(reply, req.output);
    writeSync(3, JSON.stringify({ type: "result", id: req.id, ok: true, result: { pages: 1 } }) + "\n");
    writeSync(3, JSON.stringify({ type: "closed", id: req.id }) + "\n");
  });
} else {
  const port = Number(process.argv[2]);
  const root = process.argv[3]!;
  const reply = process.argv[4]!;
  const worker = execa(process.execPath, [import.meta.path, "--worker", reply], { stdio: ["pipe", "ignore", "inherit", "pipe"], buffer: false, reject: false });
  const waiting = new Map<string, (pages: number) => void>();
  createInterface({ input: worker.stdio[3] as Readable }).on("line", (line) => {
    const msg = JSON.parse(line) as { type: string; id: string; result?: { pages: number } };
    if (msg.type === "result") waiting.get(msg.id)?.(msg.result!.pages);
  });
  let n = 0;
  Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(req) {
      const form = await req.formData();
      const file = form.get("file") as File;
      const id = `job_${(++n).toString(16).padStart(24, "0")}`;
      const dir = path.join(root, id);
      mkdirSync(dir);
      const input = path.join(dir, "source.docx");
      writeFileSync(input, new Uint8Array(await file.arrayBuffer()));
      const output = path.join(dir, "out.pdf");
      const pages = await new Promise<number>((resolve) => {
        waiting.set(id, resolve);
        worker.stdin!.write(JSON.stringify({ id, op: "convert", input, output, to: form.get("to") }) + "\n");
      });
      waiting.delete(id);
      const size = statSync(output).size;
      const sha256 = new Bun.CryptoHasher("sha256").update(readFileSync(output)).digest("hex");
      return new Response(Bun.file(output), { headers: { "Content-Type": "application/pdf", "X-SVC-Pages": String(pages), "X-Size": String(size), "X-Sha256": sha256, Date: new Date().toUTCString() } });
    },
  });
  console.log("ready");
}
