// Writes the OpenAPI 3.1 documents of /v1 (DocBuilder) and of the embed API to docs/openapi/, from
// the same code that serves them (app/http/openapi.ts): they ship in the repository and in the
// image's docs, so the reference can be read without an API key (the live /v1/openapi.json needs
// one, like all of /v1/ but GET /v1/status).
// Run: bun run scripts/openapi.ts   (app/http/openapi.test.ts fails when the files are stale)
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openApiDocument } from "../app/http/openapi";

const DIR = path.resolve(import.meta.dir, "../docs/openapi");
export const OPENAPI_FILES = { v1: path.join(DIR, "v1.json"), svc: path.join(DIR, "svc.json") } as const;

/** The file's exact text: the document as served, indented, with a final newline. */
export function openApiFileText(part: "v1" | "svc"): string {
  return `${JSON.stringify(openApiDocument(part), null, 2)}\n`;
}

if (import.meta.main) {
  mkdirSync(DIR, { recursive: true });
  for (const part of ["v1", "svc"] as const) {
    writeFileSync(OPENAPI_FILES[part], openApiFileText(part));
    console.log(`${path.relative(process.cwd(), OPENAPI_FILES[part])}: written`);
  }
}
