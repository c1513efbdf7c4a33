// Rules of the codebase's shape (issue 35), checked so that they stay true: no import circle
// anywhere in the repository, and no source file too long to read as one idea.

import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { join } from "node:path";
import { importCircles, importGraph, typeImportsAsValues } from "./testing/import-graph";

const ROOT = join(import.meta.dir, "..");
const MAX_LINES = 600;

describe("codebase shape", () => {
  test("no import circle anywhere in the repository", async () => {
    const graph = await importGraph(ROOT, ["app", "workers", "bench", "scripts", "caddy", "deploy", "examples", "schemas", "tools"]);
    expect(graph.size).toBeGreaterThan(100);
    expect(importCircles(graph)).toEqual([]);
  });

  test("the circle check finds circles, a file importing itself, and type-only imports", () => {
    expect(typeImportsAsValues(`import type { A } from "./a"; import { type B, C } from "./b"; export type { D } from "./d";`))
      .toBe(`import { A } from "./a"; import { B, C } from "./b"; export { D } from "./d";`);
    const graph = new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]], ["d.ts", ["a.ts"]], ["e.ts", ["e.ts"]]]);
    expect(importCircles(graph)).toEqual([["a.ts", "b.ts", "c.ts"], ["e.ts"]]);
  });

  test(`no source file under app/ or workers/ is over ${MAX_LINES} lines`, async () => {
    const long: string[] = [];
    for (const folder of ["app", "workers"]) {
      for (const f of new Glob("**/*.ts").scanSync({ cwd: join(ROOT, folder) })) {
        const lines = (await Bun.file(join(ROOT, folder, f)).text()).split("\n").length - 1;
        if (lines > MAX_LINES) long.push(`${folder}/${f}: ${lines} lines`);
      }
    }
    expect(long).toEqual([]);
  });
});
