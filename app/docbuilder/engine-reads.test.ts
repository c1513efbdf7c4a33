// A DocBuilder worker reads only its own request's folder (issue 30, item 3). Before, every worker
// could read the whole jobs and scratch folders: every other customer's uploads and outputs. The
// kernel refuses what is outside the folders a worker is started with (workers/confine.test.ts);
// here, a real service's worker is started with its own folder only, and a document that names
// pictures in another job's folder, the scratch folder or the data directory by file: URL gets
// none of them drawn into its PDF (LibreOffice's BlockUntrustedRefererLinks holds that too: the
// confinement is the wall that does not depend on a setting). Real gate and worker.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { CANARY_PNG } from "../testing/canary";
import { AUTH, enterpriseEnv, form, startTestService, type Harness } from "../testing/harness";
import { docxLinkingImages } from "../testing/linking-documents";
import { scaled } from "../testing/until";

let svc: Harness;
let folders: string[];

beforeAll(async () => {
  svc = await startTestService({ SVC_DOCBUILDER_WORKERS: "1", ...enterpriseEnv() });
  // Another job's folder, the scratch folder, the data directory: each holds the pictures the document names.
  folders = [path.join(svc.dataDir, "jobs", "job_0123456789abcdef01234567"), path.join(svc.dataDir, "scratch"), svc.dataDir];
  for (const dir of folders) {
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < folders.length; i++) writeFileSync(path.join(dir, `docx-image-${i}.png`), CANARY_PNG);
  }
}, scaled(120_000));

afterAll(async () => {
  await svc?.close();
});

/** The pictures a PDF holds, as pdfimages lists them (one line each after the two header lines). */
function picturesIn(pdf: Uint8Array): number {
  const dir = path.join(tmpdir(), `svc-reads-${crypto.randomUUID()}`);
  mkdirSync(dir);
  const file = path.join(dir, "out.pdf");
  writeFileSync(file, pdf);
  const list = Bun.spawnSync(["pdfimages", "-list", file]).stdout.toString().trim().split("\n");
  return Math.max(0, list.length - 2);
}

/** The environment of this service's workers, read from /proc: their confinement is set from it at start. */
function workerEnvironments(): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    } catch {
      continue;
    }
    const env = Object.fromEntries(environ.split("\0").filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
    if (env.SVC_WORKER_PROFILE_DIR?.startsWith(svc.dataDir)) out.push(env);
  }
  return out;
}

test("a worker may read one folder of the data directory, its own, and neither the jobs nor the scratch folder", () => {
  const envs = workerEnvironments();
  expect(envs.length).toBe(1);
  const readable = envs[0]!.SVC_ENGINE_READABLE!.split(path.delimiter);
  expect(readable.length).toBe(1);
  expect(path.dirname(readable[0]!)).toBe(path.join(svc.dataDir, "engines"));
  expect(path.basename(readable[0]!)).toMatch(/^worker-\d+-[0-9a-f]{32}$/);
});

test("a worker reads only its own request's folder: pictures a document names in another job's folder, the scratch folder or the data directory are not drawn", async () => {
  const linked = docxLinkingImages(folders.map((d) => `file://${d}`));
  const res = await fetch(`${svc.url}/v1/convert`, { method: "POST", headers: AUTH, body: form({ bytes: linked, name: "linked.docx" }, { to: "pdf" }) });
  expect(res.status).toBe(200);
  expect(picturesIn(new Uint8Array(await res.arrayBuffer()))).toBe(0);
  // The control: the same picture embedded in the document is drawn, so a read picture would show.
  const embedded = await fetch(`${svc.url}/v1/convert`, { method: "POST", headers: AUTH, body: form({ bytes: docxEmbeddingImage(), name: "embedded.docx" }, { to: "pdf" }) });
  expect(embedded.status).toBe(200);
  expect(picturesIn(new Uint8Array(await embedded.arrayBuffer()))).toBe(1);
}, scaled(120_000));

/** The linked document's first picture, embedded in the package instead of linked. */
function docxEmbeddingImage(): Uint8Array {
  const parts = unzipSync(docxLinkingImages(["file:///nowhere"]));
  const rels = strFromU8(parts["word/_rels/document.xml.rels"]!).replace(/Target="[^"]*" TargetMode="External"/, 'Target="media/image1.png"');
  const doc = strFromU8(parts["word/document.xml"]!).replace('r:link="rIdLinked0"', 'r:embed="rIdLinked0"');
  const types = strFromU8(parts["[Content_Types].xml"]!).replace("<Default Extension=\"xml\"", '<Default Extension="png" ContentType="image/png"/><Default Extension="xml"');
  return zipSync({ ...parts, "[Content_Types].xml": strToU8(types), "word/_rels/document.xml.rels": strToU8(rels), "word/document.xml": strToU8(doc), "word/media/image1.png": CANARY_PNG });
}
