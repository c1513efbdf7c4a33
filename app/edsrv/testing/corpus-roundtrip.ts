// A corpus file through the editor as a page drives it (protocol level): opened from a WOPI host,
// two letters typed at the end as a word of their own, saved, and the stored version's words
// compared with the original's. Shared by app/edsrv/corpus-roundtrip.test.ts (two files of each
// type, ≥ 99 % of the words kept) and bench/corpus-editor.ts (every readable corpus file, timed).

import path from "node:path";
import type { startWopiHost } from "./wopi-host";
import { TestSocket, docWsUrl } from "./ws-client";

export const TYPED = "Qx";
const KEY = { down: 1024, end: 1029, enter: 1280, escape: 1281, ctrl: 0x2000 };

export const words = (text: string) => text.split(/\s+/).filter(Boolean);

/** The original's words that the stored text does not have (counted: a word twice must be there twice). */
export function lostWords(original: string[], stored: string[]): string[] {
  const left = new Map<string, number>();
  for (const w of stored) left.set(w, (left.get(w) ?? 0) + 1);
  return original.filter((w) => {
    const n = left.get(w) ?? 0;
    if (n > 0) left.set(w, n - 1);
    return n === 0;
  });
}

function key(s: TestSocket, code: number, char = 0) {
  s.send(`key type=input char=${char} key=${code}`);
  s.send(`key type=up char=${char} key=${code}`);
}

/**
 * Types TYPED at the end of the document as a word of its own (typed straight after the last
 * character, the letters join the last word: "document" became "documentQx", which is how a word
 * seemed lost in odt/formatcorpus_lo7_odf13.odt and pptx/onlyoffice_sample.pptx): text in a new
 * paragraph after the last one; a sheet in the cell below its last used one; a deck in a new text
 * box drawn on its last slide with the text tool, as a person does. (Entering a slide's first
 * object with Tab and Enter instead activated a chart in ppt/tika_mschart_govdocs.ppt, and the kit
 * died: "Unspecified Application Error".)
 */
async function typeAtEnd(s: TestSocket, docType: string, parts: number, height: number): Promise<void> {
  if (docType === "text") {
    s.send("uno .uno:GoToEndOfDoc");
    key(s, KEY.enter, 13);
    s.send(`textinput text=${TYPED}`);
  } else if (docType === "spreadsheet") {
    key(s, KEY.ctrl | KEY.end);
    key(s, KEY.down);
    s.send(`textinput text=${TYPED}`);
    key(s, KEY.enter, 13);
  } else {
    const n = s.frames.length;
    s.send(`setclientpart part=${parts - 1}`);
    await s.waitText("status:", n);
    s.send("uno .uno:Text");
    const y = Math.round(height * 0.85);
    s.send(`mouse type=buttondown x=600 y=${y} count=1 buttons=1 modifier=0`);
    s.send(`mouse type=move x=4000 y=${y + 600} count=1 buttons=1 modifier=0`);
    s.send(`mouse type=buttonup x=4000 y=${y + 600} count=1 buttons=1 modifier=0`);
    s.send(`textinput text=${TYPED}`);
    key(s, KEY.escape);
  }
}

export interface RoundTrip {
  stored: Uint8Array;
  docType: string;
  /** From the load frame to the document's status. */
  openMs: number;
  /** From the save frame to its result. */
  saveMs: number;
}

/** Opens `bytes` as `name` in the editing server at `edsrvUrl`, types, saves; throws with what went wrong. */
export async function roundTrip(
  ctx: { edsrvUrl: string; origin: string; host: ReturnType<typeof startWopiHost>; token: string },
  id: string,
  name: string,
  bytes: Uint8Array,
): Promise<RoundTrip> {
  const src = ctx.host.addFile(id, path.basename(name), bytes);
  const s = new TestSocket(docWsUrl(ctx.edsrvUrl, src, ctx.token), ctx.origin);
  try {
    await s.opened;
    const t0 = performance.now();
    s.send(`load url=${encodeURIComponent(src)}`);
    const first = await Promise.race([s.waitText("status:"), s.waitText("error:")]);
    if (!first.startsWith("status:")) throw new Error(`${name} did not open: ${first}`);
    const openMs = performance.now() - t0;
    const status = JSON.parse(first.slice("status: ".length)) as { type: string; parts: number; height: number };
    const n = s.frames.length;
    await typeAtEnd(s, status.type, status.parts, status.height);
    await s.waitText("statechanged: .uno:ModifiedStatus=true", n);
    const m = s.frames.length;
    const t1 = performance.now();
    s.send("save notify=1");
    const result = JSON.parse((await s.waitText("saveresult:", m)).slice("saveresult: ".length)) as { success?: boolean; result?: string };
    if (!result.success || result.result !== "stored") throw new Error(`${name} was not stored: ${JSON.stringify(result)}`);
    const saveMs = performance.now() - t1;
    const put = ctx.host.puts.filter((p) => p.fileId === id && p.status === 200).pop();
    if (!put) throw new Error(`${name}: the host holds no version`);
    return { stored: put.bytes, docType: status.type, openMs, saveMs };
  } finally {
    s.close();
  }
}
