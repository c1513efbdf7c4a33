// One deflated part of a package judged by the zip guard (app/zip-guard.ts): inflated at most one
// byte past what the directory declares, and its XML read for tables nested too deep and entity
// declarations. A large part is judged on a thread of its own (this module is also that thread's
// entry): inflating it on the event loop held the whole process, the gate's WOPI answers and
// every other request included, for as long as it took (the corpus's largest XML, a 2.2 MB ods
// with 59 MB of content.xml: 77–177 ms; the XML budget's 256 MiB: about half a second).

import { ServiceError, type ErrorCode } from "./errors";
import { EntityDeclarations } from "./xml-entities";
import { TableNesting } from "./xml-table-nesting";
import { inflatePart } from "../workers/zip-part";

/** What a part inflates to, declared: from this size up it is judged on the guard's thread (inflating 4 MiB takes 5–10 ms). */
export const OFF_THREAD_BYTES = 4 * 1024 * 1024;

/** A part judged: "over" past its declared size, "broken" when it cannot be inflated (for the engine to refuse, not a bomb). */
export type PartOutcome = "ok" | "over" | "broken";

/** What reads each XML part's text as it inflates: table nesting and entity declarations. */
export function xmlReaders(part: string): { feed(chunk: Buffer): void }[] {
  return [new TableNesting(part), new EntityDeclarations(part)];
}

/** Judges one deflated part here and now; the XML readers' refusals are thrown (ServiceError). */
export function checkPart(raw: Uint8Array, declared: number, part: string, readXml: boolean): PartOutcome {
  const out = inflatePart(raw, declared);
  if (out === "broken" || out === "over") return out;
  if (readXml) for (const reader of xmlReaders(part)) reader.feed(Buffer.from(out.buffer, out.byteOffset, out.length));
  return "ok";
}

type Ask = { id: number; raw: Uint8Array; declared: number; part: string; readXml: boolean };
type Reply = { id: number; outcome: PartOutcome } | { id: number; refusal: { code: ErrorCode; message: string; detail: Record<string, unknown> } };

let thread: Worker | undefined;
let asked = 0;
const waiting = new Map<number, { resolve: (r: Reply) => void; fallback: () => void }>();

/** The guard's thread, started on first use; one that fails hands what it had back to the event loop. */
function guardThread(): Worker {
  if (thread) return thread;
  const started = new Worker(import.meta.url);
  // Bun's Worker: the thread does not keep the process alive (lib.dom's type lacks the method).
  (started as Worker & { unref(): void }).unref();
  started.onmessage = (e: MessageEvent<Reply>) => {
    const asker = waiting.get(e.data.id);
    waiting.delete(e.data.id);
    asker?.resolve(e.data);
  };
  const failed = () => {
    if (thread !== started) return;
    thread = undefined;
    for (const [id, asker] of waiting) {
      waiting.delete(id);
      asker.fallback();
    }
  };
  started.addEventListener("error", failed);
  started.addEventListener("close", failed);
  return (thread = started);
}

/** checkPart on the guard's thread: the same outcome and the same refusals, the event loop free meanwhile. */
export function checkPartOffThread(raw: Uint8Array, declared: number, part: string, readXml: boolean): Promise<PartOutcome> {
  return new Promise<PartOutcome>((resolve, reject) => {
    const id = ++asked;
    // Judged here after all when the thread cannot: `raw` itself stays (a copy is handed over).
    const here = () => {
      try {
        resolve(checkPart(raw, declared, part, readXml));
      } catch (e) {
        reject(e);
      }
    };
    waiting.set(id, {
      resolve: (r) => ("outcome" in r ? resolve(r.outcome) : reject(new ServiceError(r.refusal.code, r.refusal.message, r.refusal.detail))),
      fallback: here,
    });
    // A copy of its own (a Buffer's slice is a view: handing it over would detach the whole upload).
    const copy = new Uint8Array(raw);
    guardThread().postMessage({ id, raw: copy, declared, part, readXml } satisfies Ask, [copy.buffer]);
  });
}

if (!Bun.isMainThread) {
  self.onmessage = (e: MessageEvent<Ask>) => {
    const { id, raw, declared, part, readXml } = e.data;
    let reply: Reply;
    try {
      reply = { id, outcome: checkPart(raw, declared, part, readXml) };
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      reply = { id, refusal: { code: err.code, message: err.message, detail: err.detail } };
    }
    postMessage(reply);
  };
}
