// Entry point of one editing-server kit process: one LibreOfficeKit engine, one document, its views.
//
//   SVC_KIT_PROFILE_DIR=/path/to/profile bun workers/kit/main.ts
//
// The editing server (app/edsrv/kits.ts) spawns it with stdio [pipe, pipe, pipe, pipe]. The kit
// starts the engine at once (so an idle kit is warm), says {"type":"ready"} and waits for `load`.
// Protocol (workers/kit-protocol.ts; docs/editing-protocol.md, "Kit protocol"): requests arrive as JSON lines on stdin,
// every request has a string `id` and gets exactly one {"type":"reply","id",ok,result|error} on
// file descriptor 3; unsolicited lines on fd 3 are {"type":"ready"}, {"type":"cb"} (a document
// callback of one view) and {"type":"log"}. Tiles travel as PNG, base64, inside the reply line.
// stdout/stderr belong to LibreOffice and carry nothing of ours.
//
// Threading: one thread. LibreOffice runs in unipoll mode and its main loop runs on the kit's
// thread, calling the kit back between its events (workers/kit-loop.ts): requests are read and
// run there, callbacks forwarded there, and a request that must see the effect of the input
// before it (a command, a copy, a save) first waits until the office has worked everything
// posted through (engineIdle), which the loop knows exactly.
//
// The kit by idea: state.ts (the process's context and one record per view), dispatch.ts (order
// and the op → handler table), callbacks.ts (the pump), input.ts (input and its waits), tiles.ts,
// views.ts, files.ts (load, save, CSV), clipboard.ts, dialogs.ts, office-posts.ts and
// own-loop-dialogs.ts (a command's dialog and a dialog's act run from the office's loop),
// window-widgets.ts (a painted dialog's controls, for a screen reader), slideshow.ts, warmup.ts.

import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { LokOffice, engineProgramDir, fileUrl, LOK_FEATURE_NO_TILED_ANNOTATIONS } from "../lok";
import { coreInfo, missingSlots, unsupportedReason } from "../engine-identity";
import { engineEnvironment, hasDialogLibraries, kitLoadOptions, writeProfileConfig } from "../profile";
import { runKitLoop, UNIPOLL_ENVIRONMENT } from "../kit-loop";
import { confineEngineProcess } from "../confine";
import { dieWithParent } from "../parent-death";
import { pump } from "./callbacks";
import { onNestedPoll } from "./modal-wall";
import { canListWindows } from "./unannounced-windows";
import { canPostToOffice } from "./office-posts";
import { canDescribeWindows } from "./window-widgets";
import { start } from "./dispatch";
import { kit, log, send } from "./state";
import { warmUp } from "./warmup";
import { copyWarmDocuments } from "../warm-documents";
import { refusedBindings } from "../../app/edsrv/key-door";

function main(): void {
  // Busy or not, a kit never outlives the editing server that started it.
  dieWithParent();
  // No SIGTERM handler: inside the office's loop (kit-loop.ts) JavaScript signal handlers never
  // run, and the default action ends the process just as well.
  process.on("uncaughtException", (err) => {
    try {
      log("error", "kit_uncaught", { message: String((err as Error)?.message ?? err) });
    } catch {
      // nothing else to do
    }
  });
  const profileDir = resolve(process.env.SVC_KIT_PROFILE_DIR || join(tmpdir(), `svc-kit-profile-${process.pid}`));
  mkdirSync(profileDir, { recursive: true });
  // A second wall behind the door's key check: the shortcut keys that would run a command off the
  // door's list are not bound in this engine at all (Ctrl+K, Ctrl+P, Alt+F11…).
  writeProfileConfig(profileDir, { removeKeys: refusedBindings(engineProgramDir()) });
  const tempDir = (kit.tempDir = join(profileDir, "tmp"));
  rmSync(tempDir, { recursive: true, force: true });
  mkdirSync(tempDir, { recursive: true });
  // Copied before the confinement: the repository's fixtures are not the kit's to read afterwards.
  const warmCopies = process.env.SVC_KIT_WARMUP === "0" ? [] : copyWarmDocuments(tempDir);
  confineEngineProcess(profileDir, log);
  const t0 = performance.now();
  const programDir = engineProgramDir();
  let version = "";
  try {
    const office = (kit.office = new LokOffice(fileUrl(profileDir), programDir, { ...engineEnvironment(profileDir, tempDir, { spelling: true }), ...UNIPOLL_ENVIRONMENT }));
    const core = coreInfo(office, programDir);
    const unsupported = unsupportedReason(core, missingSlots(office));
    if (unsupported) throw new Error(`svc cannot drive the LibreOffice in ${programDir}: ${unsupported}`);
    version = core.version;
    kit.languageNeedsViewSwitch = office.versionNumber()[0] < 25;
    kit.dialogsAvailable = hasDialogLibraries(programDir);
    kit.loadOptions = kitLoadOptions(kit.dialogsAvailable);
    // The page lists the comments (its panel) and must hear of each one another person adds,
    // changes or removes: LibreOffice reports them only to a client that shows comments itself.
    office.setOptionalFeatures(LOK_FEATURE_NO_TILED_ANNOTATIONS);
    if (!canDescribeWindows(programDir)) log("warn", "kit_windows_undescribed", { reason: "this LibreOffice does not export VCL's window description: a painted dialog stays a picture to a screen reader" });
    if (!canPostToOffice(programDir)) log("warn", "kit_posts_unavailable", { reason: "this LibreOffice does not export VCL's PostUserEvent: a dialog that runs a loop of its own is closed after 2 s" });
    if (!canListWindows(programDir)) log("warn", "kit_windows_unlisted", { reason: "this LibreOffice does not export VCL's window list: a window no view is told of is ended by the watchdog" });
  } catch (err) {
    log("error", "kit_start_failed", { message: String((err as Error)?.message ?? err) });
    process.exit(1);
  }
  // Documents can be loaded once the office's loop runs: the warm-up and everything after it
  // happen inside it. Input and saves finish in order (see KIT_OPS, kit-protocol.ts).
  runKitLoop(kit.office!, {
    start() {
      warmUp(kit.office!, warmCopies);
      send({ type: "ready", pid: process.pid, startMs: Math.round(performance.now() - t0), version });
    },
    line: start,
    nested: onNestedPoll,
    poll() {
      // The tests' stand-in for an engine that stops on an input (input.ts, STALL_ON_TEXT).
      if (kit.stopAtNextPoll) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
      if (kit.doc) pump();
    },
  });
}

main();
