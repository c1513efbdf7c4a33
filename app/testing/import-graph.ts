// The repository's own import graph, for the test that keeps it free of circles
// (app/codebase-shape.test.ts). Imports are read by Bun's own parser (Bun.Transpiler): type-only
// imports count too, rewritten into value imports first, because a circle through a type is still
// two modules that cannot be understood one without the other.

import { Glob } from "bun";
import { dirname, join, relative, resolve } from "node:path";

const transpiler = new Bun.Transpiler({ loader: "ts" });

/** `import type`, `export type {…} from` and `{ type X }` made plain, so the parser reports them. */
export function typeImportsAsValues(source: string): string {
  return source
    .replace(/^#!.*/, "") // a script's shebang line is not TypeScript
    .replace(/\bimport\s+type\s+/g, "import ")
    .replace(/\bexport\s+type\s+\{/g, "export {")
    .replace(/([{,]\s*)type\s+(?=[A-Za-z_$])/g, "$1");
}

/** Every TypeScript file under the folders, each with the repository files it imports. */
export async function importGraph(root: string, folders: string[]): Promise<Map<string, string[]>> {
  const files: string[] = [];
  for (const folder of folders) {
    for (const f of new Glob("**/*.ts").scanSync({ cwd: join(root, folder) })) {
      if (!f.includes("node_modules/")) files.push(join(root, folder, f));
    }
  }
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imports = transpiler.scanImports(typeImportsAsValues(await Bun.file(file).text()));
    const targets: string[] = [];
    for (const { path } of imports) {
      if (!path.startsWith(".")) continue;
      const base = resolve(dirname(file), path);
      const target = [base, `${base}.ts`, join(base, "index.ts"), base.replace(/\.js$/, ".ts")].find((c) => known.has(c));
      if (target) targets.push(target);
    }
    graph.set(relative(root, file), targets.map((t) => relative(root, t)));
  }
  return graph;
}

/** The graph's circles: each strongly connected set of two or more files, or a file importing itself (Tarjan). */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>(), circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next); low.set(file, next); next++;
    stack.push(file); onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) { visit(to); low.set(file, Math.min(low.get(file)!, low.get(to)!)); }
      else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    let member: string;
    do { member = stack.pop()!; onStack.delete(member); members.push(member); } while (member !== file);
    if (members.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(members.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}
