// One deflated part of a package judged by the zip guard (app/zip-guard.ts): inflated at most one
// byte past what the directory declares, and its XML read for tables nested too deep and entity
// declarations. A large part is judged on a thread of its own (zip-part-thread.ts,
// app/thread-calls.ts): inflating it on the event loop held the whole process, the gate's WOPI
// answers and every other request included, for as long as it took (the corpus's largest XML, a
// 2.2 MB ods with 59 MB of content.xml: 77–177 ms; the XML budget's 256 MiB: about half a second).

import { EntityDeclarations } from "./xml-entities";
import { TableNesting } from "./xml-table-nesting";
import { inflatePart } from "../workers/zip-part";
import { threadCalls } from "./thread-calls";

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

/** What the guard's thread serves (zip-part-thread.ts). */
export const GUARD_THREAD_CALLS = {
  checkPart: (a: { raw: Uint8Array; declared: number; part: string; readXml: boolean }) => checkPart(a.raw, a.declared, a.part, a.readXml),
};

const onGuardThread = threadCalls(new URL("./zip-part-thread.ts", import.meta.url).pathname, GUARD_THREAD_CALLS);

/** checkPart on the guard's thread: the same outcome and the same refusals, the event loop free meanwhile. */
export function checkPartOffThread(raw: Uint8Array, declared: number, part: string, readXml: boolean): Promise<PartOutcome> {
  // The part's bytes alone: a view into the upload would carry the whole upload across.
  return onGuardThread("checkPart", { raw: new Uint8Array(raw), declared, part, readXml });
}
