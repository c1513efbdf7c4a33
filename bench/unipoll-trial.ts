// Issue 32 item 4: does LibreOffice's unipoll mode (the engine's main loop run on our own thread
// through LibreOfficeKit's runLoop, as Collabora's kit runs it) remove the cross-view input race
// without the kit's waits?
//
//   bun run bench:unipoll-trial            (all four: threaded/unipoll, paced/burst, 5 rounds each)
//   bun bench/unipoll-trial.ts threaded|unipoll [rounds] [burst]
//
// Both modes run the same scenario on the engine directly, with none of the kit's guards: two
// views of one document, A at its start and B at its end; 40 times, A types "1" and B types "2"
// (text input, as the editor sends it); then B presses an arrow key (a key LibreOffice runs as a
// queued command) and types "x", which must land before B's last "2". A round is right when the
// text read back starts with A's 40 "1"s and ends with B's "2"s with the "x" in its place.
//
// threaded: LibreOffice's own main-loop thread (lo_startmain), our posts from this thread, a pause
//   of 3 ms between pairs (the typists' pace), then 1.5 s for the engine to finish.
// unipoll:  SAL_LOK_OPTIONS=unipoll, runLoop called from this thread; the scenario runs inside the
//   poll callback, one pair per poll, and "the engine has worked everything through" is simply
//   the next poll.
// `burst` posts every pair at once (no pause; in unipoll, within one poll).
//
// Result (2026-11-27, 25.2.3, 2-core EPYC): threaded 0 of 5 rounds right (burst: B's letters also
// among A's, 5 of 5), unipoll 5 of 5 right, paced and burst (docs/benchmarks-history.md, "unipoll").
import { JSCallback, cc, ptr, type Pointer } from "bun:ffi";
import { mkdirSync, mkdtempSync, rmSync, copyFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  LokOffice,
  drainCallbacks,
  engineProgramDir,
  fileUrl,
  LOK_EXT_TEXTINPUT,
  LOK_EXT_TEXTINPUT_END,
  LOK_KEYEVENT_KEYINPUT,
  LOK_KEYEVENT_KEYUP,
  type LokDocument,
} from "../workers/lok";
import { LOAD_OPTIONS, engineEnvironment, writeProfileConfig } from "../workers/profile";

if (!process.argv[2]) {
  // LibreOfficeKit starts once per process: each configuration in a process of its own.
  for (const args of [["threaded", "5"], ["threaded", "5", "burst"], ["unipoll", "5"], ["unipoll", "5", "burst"]]) {
    const run = Bun.spawnSync(["bun", import.meta.path, ...args], { stdout: "pipe", stderr: "ignore" });
    process.stdout.write(run.stdout.toString().split("\n").filter((l) => l.startsWith("{") || l.startsWith("  wrong")).join("\n") + "\n");
  }
  process.exit(0);
}
const mode = process.argv[2] as "threaded" | "unipoll";
const rounds = Number(process.argv[3] ?? 5);
/** burst: every pair posted at once, no pace and (unipoll) no return to the engine in between. */
const burst = process.argv[4] === "burst";
const PAIRS = 40;
const KEY_END = 1029, KEY_LEFT = 1026, KEY_MOD1 = 0x2000;

const work = mkdtempSync(join(tmpdir(), `svc-unipoll-${mode}-`));
const profileDir = join(work, "profile"), tempDir = join(profileDir, "tmp");
mkdirSync(tempDir, { recursive: true });
writeProfileConfig(profileDir);
const env = engineEnvironment(profileDir, tempDir, { spelling: true });
if (mode === "unipoll") env.SAL_LOK_OPTIONS = "unipoll";
const t0 = performance.now();
const office = new LokOffice(fileUrl(profileDir), engineProgramDir(), env);
const initMs = performance.now() - t0;

function typeText(d: LokDocument, view: number, text: string): void {
  d.setView(view);
  d.postWindowExtTextInputEvent(0, LOK_EXT_TEXTINPUT, text);
  d.postWindowExtTextInputEvent(0, LOK_EXT_TEXTINPUT_END, text);
}
function pressKey(d: LokDocument, view: number, key: number): void {
  d.setView(view);
  d.postKeyEvent(LOK_KEYEVENT_KEYINPUT, 0, key);
  d.postKeyEvent(LOK_KEYEVENT_KEYUP, 0, key);
}
function selectAll(d: LokDocument, view: number): void {
  d.setView(view);
  d.postUnoCommand(".uno:SelectAll", "", false);
}
function selectedText(d: LokDocument, view: number): string {
  d.setView(view);
  return (d.getTextSelection("text/plain;charset=utf-8") ?? "").replace(/\s+/g, " ");
}

/** What a round must produce: A's 40 at the start, B's at the end with its "x" before the last "2". */
function verdict(text: string): { ok: boolean; why: string } {
  const ones = /^1{40}[^12]/.test(text);
  const twos = /[^12]2{39}x2\s*$/.test(text);
  const count = (text.match(/[12]/g) ?? []).length === 2 * PAIRS;
  return { ok: ones && twos && count, why: `start ${ones ? "ok" : "wrong"}, end ${twos ? "ok" : "wrong"}, letters ${count ? "ok" : "wrong"}: …${text.slice(-60)}` };
}

interface Round { ok: boolean; why: string; ms: number }
const results: Round[] = [];

function openRound(i: number): { d: LokDocument; a: number; b: number } {
  const file = join(work, `round-${i}.docx`);
  copyFileSync(resolve(import.meta.dir, "../fixtures/hello.docx"), file);
  const d = office.documentLoad(fileUrl(file), LOAD_OPTIONS);
  if (!d) throw new Error(`load failed: ${office.getError()}`);
  const a = d.getView();
  d.registerQueuedCallback(a);
  d.initializeForRendering("");
  const b = d.createView();
  d.setView(b);
  d.registerQueuedCallback(b);
  d.initializeForRendering("");
  return { d, a, b };
}

if (mode === "threaded") {
  for (let i = 0; i < rounds; i++) {
    const { d, a, b } = openRound(i);
    pressKey(d, b, KEY_END | KEY_MOD1);
    await Bun.sleep(500);
    const start = performance.now();
    for (let p = 0; p < PAIRS; p++) {
      typeText(d, a, "1");
      typeText(d, b, "2");
      if (p === PAIRS - 1) {
        pressKey(d, b, KEY_LEFT);
        typeText(d, b, "x");
      }
      if (!burst) await Bun.sleep(3); // the typists' pace
    }
    const ms = performance.now() - start;
    await Bun.sleep(1500); // let the engine's thread finish (a trial, not the product)
    drainCallbacks();
    selectAll(d, a);
    await Bun.sleep(500);
    results.push({ ...verdict(selectedText(d, a)), ms });
    d.destroy();
  }
} else {
  // The wake callback comes from LibreOffice's other threads: native, it only writes an eventfd
  // that the poll callback sleeps on.
  const source = join(work, "wake.c");
  writeFileSync(
    source,
    `#include <sys/eventfd.h>
#include <poll.h>
#include <stdint.h>
#include <unistd.h>
static int efd = -1;
int wake_init(void) { efd = eventfd(0, EFD_NONBLOCK); return efd; }
static void wake(void* data) { uint64_t one = 1; (void)write(efd, &one, 8); }
void* wake_ptr(void) { return (void*)&wake; }
int wait_us(int us) {
  struct pollfd p = { efd, POLLIN, 0 };
  int r = poll(&p, 1, us < 0 ? -1 : us / 1000);
  if (r > 0) { uint64_t v; (void)read(efd, &v, 8); }
  return r;
}`,
  );
  const lib = cc({
    source,
    symbols: { wake_init: { returns: "i32", args: [] }, wake_ptr: { returns: "ptr", args: [] }, wait_us: { returns: "i32", args: ["i32"] } },
  });
  lib.symbols.wake_init();
  let round = 0, step = -1, polls = 0, maxTimeout = 0;
  let cur: { d: LokDocument; a: number; b: number } | null = null;
  let start = 0, lastMs = 0;
  const poll = new JSCallback(
    (_data: Pointer, timeoutUs: number) => {
      polls++;
      maxTimeout = Math.max(maxTimeout, timeoutUs);
      try {
        if (round >= rounds) return -1; // quit the loop
        if (!cur) {
          cur = openRound(round);
          pressKey(cur.d, cur.b, KEY_END | KEY_MOD1);
          step = 0;
          return 1;
        }
        if (step === 0) start = performance.now();
        if (step < PAIRS) {
          if (burst) {
            for (; step < PAIRS - 1; step++) {
              typeText(cur.d, cur.a, "1");
              typeText(cur.d, cur.b, "2");
            }
          }
          typeText(cur.d, cur.a, "1");
          typeText(cur.d, cur.b, "2");
          if (step === PAIRS - 1) {
            pressKey(cur.d, cur.b, KEY_LEFT);
            typeText(cur.d, cur.b, "x");
          }
          step++;
          return 1; // no pace: the next pair as soon as the engine polls again
        }
        if (step === PAIRS) {
          // The engine polled again: it has run every event posted so far.
          lastMs = performance.now() - start;
          drainCallbacks();
          selectAll(cur.d, cur.a);
          step++;
          return 1;
        }
        results.push({ ...verdict(selectedText(cur.d, cur.a)), ms: lastMs });
        cur.d.destroy();
        cur = null;
        round++;
        return 1;
      } catch (err) {
        console.error("poll failed:", err);
        return -1;
      } finally {
        // An idle engine asks to sleep until its next timer; keep the trial moving.
        if (cur) lib.symbols.wait_us(0);
      }
    },
    { args: ["ptr", "i32"], returns: "i32" },
  );
  const runLoop = office.cfunc("runLoop", (office as any).fns.get("runLoop"), ["ptr", "ptr", "ptr", "ptr"], "void");
  // LibreOffice calls the poll callback only when its closure pointer is not NULL.
  const closure = new Uint8Array(8);
  runLoop(office.handle, poll.ptr, lib.symbols.wake_ptr(), ptr(closure));
  console.error(`runLoop returned after ${polls} polls (largest timeout asked ${maxTimeout} µs)`);
}

const okRounds = results.filter((r) => r.ok).length;
console.log(JSON.stringify({ mode, burst, engine: JSON.parse(office.getVersionInfo() ?? "{}").ProductVersion, initMs: Math.round(initMs), rounds: results.length, ok: okRounds, postMs: results.map((r) => Math.round(r.ms)) }));
for (const r of results) if (!r.ok) console.log(`  wrong: ${r.why}`);
rmSync(work, { recursive: true, force: true });
process.exit(0);
