// A worker's own folder (workers/confine.ts: besides its profile and the system's, all its engine
// may read): a request's input is handed in there, its output written there and moved out once
// complete, and the folder is emptied for the next request.
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { WorkerRequest } from "../../workers/protocol";
import { linkOrCopy, moveFile, unlinkIfPossible } from "../engine-files";

/** The request under way in a worker's folder: the files handed in or expected there, and where its output goes once complete. */
export interface Handed {
  dir: string;
  files: string[];
  output?: { inside: string; target: string };
}

/**
 * The request as the worker gets it: its input linked into the worker's folder `dir` (a copy across
 * file systems) and its output written there. An input that is not there is passed as named: the
 * worker reports it missing, being unable to read anything outside its folder anyway.
 */
export function handIn(dir: string, request: WorkerRequest): { request: WorkerRequest; handed: Handed } {
  // The worker's own folder itself, emptied after each request (handOut): a folder per request
  // cost a mkdir and an rmdir each time, 0.2–0.7 ms of a small conversion on an ext4 disk.
  const handed: Handed = { dir, files: [] };
  let input = request.input;
  const handedInput = path.join(dir, path.basename(request.input));
  try {
    linkOrCopy(request.input, handedInput);
    input = handedInput;
    handed.files.push(handedInput);
  } catch (err) {
    // Tried rather than looked for first: one call fewer on every request.
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (!("output" in request)) return { request: { ...request, input }, handed };
  const inside = path.join(dir, `out-${path.basename(request.output)}`);
  handed.output = { inside, target: request.output };
  handed.files.push(inside);
  return { request: { ...request, input, output: inside }, handed };
}

/** Moves a finished output to where the request asked for it (before the answer) and empties the worker's folder. */
export function handOut(handed: Handed, succeeded: boolean): void {
  let moved = false;
  try {
    if (succeeded && handed.output) {
      try {
        moveFile(handed.output.inside, handed.output.target);
        moved = true;
      } catch (err) {
        // An engine that reported success without writing: the caller finds no output.
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
  } finally {
    // Each file handed in is unlinked (one call where rmSync makes two: a file system call costs
    // 10–60 µs on an ext4 disk); what is left (the engine's leftovers, a file that could not be
    // unlinked) goes with the sweep: the next request finds the folder empty.
    for (const f of handed.files) if (!(moved && f === handed.output?.inside)) unlinkIfPossible(f);
    for (const name of readdirSync(handed.dir)) rmSync(path.join(handed.dir, name), { recursive: true, force: true });
  }
}
