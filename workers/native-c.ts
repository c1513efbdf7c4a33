// C compiled at run time with Bun's built-in TinyCC (bun:ffi `cc`), for the few functions that
// must be native: LibreOffice calls them on its own threads, where no JavaScript may run.

import { cc, type FFIFunction, type Library } from "bun:ffi";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Compiles `source` and binds `symbols` (cc reads its source from a file: a temporary one, removed at once). */
export function compileC<Fns extends Record<string, FFIFunction>>(name: string, source: string, symbols: Fns): Library<Fns> {
  const file = join(tmpdir(), `${name}-${process.pid}.c`);
  writeFileSync(file, source);
  try {
    return cc({ source: file, symbols });
  } finally {
    rmSync(file, { force: true });
  }
}
