// Conversion for internal callers (/ed/convert-to): the file is loaded into a kit of the pool and
// saved in the asked format, in a folder of its own that is removed afterwards.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { KitPool } from "./kits";

/**
 * The converted bytes, or the kit's error when it could not load or save the file (the caller's
 * answer to a bad file). A failure to write the input is not the file's fault: it throws.
 */
export async function convertWithKit(pool: KitPool, convertRoot: string, file: File, format: string): Promise<{ bytes: Uint8Array } | { error: Error }> {
  const dir = path.join(convertRoot, randomBytes(8).toString("hex"));
  mkdirSync(dir, { recursive: true });
  const ext = (path.extname(file.name).slice(1) || "bin").toLowerCase().replace(/[^a-z0-9]/g, "");
  const input = path.join(dir, `in.${ext}`), output = path.join(dir, `out.${format}`);
  writeFileSync(input, new Uint8Array(await file.arrayBuffer()));
  let kit;
  try {
    kit = await pool.acquire();
    await kit.request("load", { path: input });
    await kit.request("save", { path: output, format });
    return { bytes: readFileSync(output) };
  } catch (err) {
    return { error: err as Error };
  } finally {
    if (kit) pool.release(kit);
    rmSync(dir, { recursive: true, force: true });
  }
}
