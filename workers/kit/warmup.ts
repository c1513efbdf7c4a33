// The warm-up of a fresh engine, before the kit says ready (its documents: workers/warm-documents.ts).

import { drainCallbacks, fileUrl, type LokOffice } from "../lok";
import { encodeTilePng } from "../png";
import { kit, log } from "./state";

/**
 * An idle kit loads, renders and closes a document of each family before it says ready: the first
 * load in a fresh engine pays the modules' and fonts' initialisation (300-700 ms for a one-page
 * docx on 2 cores), and the first load of a file format pays its import filter's (an empty
 * factory document does not load the OOXML filters: ~300 ms of the first docx open), which would
 * otherwise fall on the first user's document open. The warm documents are private copies (the
 * engine writes lock files beside what it opens).
 */
export function warmUp(office: LokOffice, warmCopies: string[]): void {
  if (process.env.SVC_KIT_WARMUP === "0") return;
  const t0 = performance.now();
  const sources = [...["swriter", "scalc", "simpress"].map((f) => `private:factory/${f}`), ...warmCopies.map(fileUrl)];
  for (const url of sources) {
    try {
      const d = office.documentLoad(url, url.startsWith("private:") ? "" : kit.loadOptions);
      if (!d) continue;
      d.initializeForRendering("");
      const tile = new Uint8Array(256 * 256 * 4);
      d.paintTile(tile, 256, 256, 0, 0, 3840, 3840);
      // The tile encoder runs interpreted until the JIT has seen it often: the first tiles of
      // the first document took 10-60 ms each to encode instead of 0.4 ms.
      for (let i = 0; i < 40; i++) encodeTilePng(tile, 256, 256, d.getTileMode());
      d.destroy();
    } catch {
      // warming is best effort
    }
  }
  drainCallbacks();
  log("info", "kit_warmed", { ms: Math.round(performance.now() - t0) });
}
