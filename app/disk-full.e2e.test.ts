// A full data directory is named, nothing is lost, and everything works again when space returns.
// The real service runs on a data directory that is a small tmpfs of its own; a filler file takes
// the rest of its space, then goes. Needs root (mount); without it the test is skipped, saying why.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { embedToken, startEmbedStack, startSource, type EmbedStack } from "./embed/testing";
import { AUTH, FIXTURES } from "./testing/harness";
import { scaled } from "./testing/until";

const DOCX = readFileSync(path.join(FIXTURES, "hello.docx"));
const isRoot = process.getuid?.() === 0;
let mountPoint = "";
let stack: EmbedStack | null = null;
let source: ReturnType<typeof startSource>;
const filler = () => path.join(mountPoint, "filler");

/** Takes every byte left on the data directory's disk. */
function fillDisk() {
  const fd = openSync(filler(), "w");
  const block = Buffer.alloc(1024 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch {
    // ENOSPC: full
  }
  for (const size of [65536, 4096, 512, 1]) {
    try {
      for (;;) writeSync(fd, block.subarray(0, size));
    } catch {}
  }
  closeSync(fd);
}

beforeAll(async () => {
  if (!isRoot) return;
  source = startSource();
  source.add("/hello.docx", DOCX);
  mountPoint = mkdtempSync(path.join(os.tmpdir(), "svc-diskfull-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=256m", "tmpfs", mountPoint]);
  // The real gate and editing server (session creation reads its discovery); the gate's data on the tmpfs.
  stack = await startEmbedStack({ dataDir: mountPoint });
}, scaled(60_000));

afterAll(async () => {
  if (!isRoot) return;
  await stack?.gate.close({ keepData: true });
  await stack?.ed.close();
  source?.stop();
  execFileSync("umount", [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const session = async (key: string) =>
  stack!.create({ token: await embedToken({ document: { url: `${source.origin}/hello.docx`, fileType: "docx", key, title: "hello.docx" }, editor: { mode: "edit", user: { id: "u1", name: "Lan" } } }) }).then((r) => new Response(JSON.stringify(r.body), { status: r.status }));
const convert = () => {
  const fd = new FormData();
  fd.append("file", new Blob([DOCX]), "hello.docx");
  fd.append("to", "pdf");
  return fetch(`${stack!.gateUrl}/v1/convert`, { method: "POST", headers: AUTH, body: fd });
};

describe("a full data directory is named, loses nothing, and recovers when space returns", () => {
  test.skipIf(!isRoot)("sessions, saves and conversions answer internal with detail.reason disk_full, log it at error level, and work again once there is space (skipped without root: it mounts a tmpfs)", async () => {
    // A session made while there is space: its editing server saves into the full disk below.
    const before = (await (await session("disk-1")).json()) as any;
    const wopiSrc = new URL(before.editor_url, "http://x").searchParams.get("WOPISrc")!;
    const put = () => fetch(`${wopiSrc}/contents?access_token=${before.form.access_token}`, { method: "POST", headers: { "X-WOPI-Override": "PUT" }, body: DOCX });

    fillDisk();
    for (const res of [await session("disk-2"), await put(), await convert()]) {
      const body = (await res.json()) as any;
      expect({ status: res.status, code: body.error.code, reason: body.error.detail.reason }).toEqual({ status: 500, code: "internal", reason: "disk_full" });
      expect(body.error.message).toContain("SVC_DATA_DIR");
    }
    expect(stack!.gate.logLines.filter((l) => l.includes('"level":"error"') && l.includes("data_directory_unwritable")).length).toBeGreaterThanOrEqual(3);
    // Nothing half-written was kept as a version.
    const state = (await (await fetch(`${stack!.gateUrl}/svc/embed/session/${before.session_id}`, { headers: { Authorization: `Bearer ${before.form.access_token}` } })).json()) as any;
    expect(state.version).toBe(0);

    rmSync(filler());
    expect((await session("disk-2")).status).toBe(201);
    expect((await put()).status).toBe(200);
    expect((await convert()).status).toBe(200);
  }, scaled(60_000));
});
