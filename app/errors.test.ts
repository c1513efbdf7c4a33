import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ERROR_CATALOGUE, ServiceError, errorBody } from "./errors";

// The spec's error tables, read from the spec itself so a code added there cannot be missed here.
const spec = readFileSync(path.resolve(import.meta.dir, "../../shared/spec/interface-spec.md"), "utf8");
const errorsSection = spec.slice(spec.indexOf("## Errors"), spec.indexOf("### Browser-only codes"));
const specCodes = [...errorsSection.matchAll(/^\| (\d{3}) \| ([a-z_]+) \|/gm)].map((m) => ({ status: Number(m[1]), code: m[2]! }));

describe("error catalogue", () => {
  test("holds every DocBuilder and gate code of the spec with its status", () => {
    expect(specCodes.length).toBeGreaterThan(30);
    for (const { status, code } of specCodes) {
      expect({ code, status: ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE]?.status as number }).toEqual({ code, status });
    }
  });

  test("every message is a Vietnamese sentence", () => {
    for (const [code, { message }] of Object.entries(ERROR_CATALOGUE)) {
      expect(`${code}: ${message}`).toMatch(/[ăâđêôơưáàảãạéèẻẽẹíìỉĩịóòỏõọúùủũụýỳỷỹỵ]/i);
      expect(`${code}: ${message.trim().slice(-1)}`).toBe(`${code}: .`);
    }
  });

  test("bad_request always has detail.errors = [{path, message}]: a refusal that names no field names the body (path \"\") with its message", () => {
    const bare = errorBody(new ServiceError("bad_request", "Nội dung JSON không hợp lệ.", { reason: "x" }), "r1").error.detail;
    expect(bare).toEqual({ reason: "x", errors: [{ path: "", message: "Nội dung JSON không hợp lệ." }] });
    const named = errorBody(new ServiceError("bad_request", "m", { errors: [{ path: "/to", message: "required" }] }), "r2").error.detail;
    expect(named).toEqual({ errors: [{ path: "/to", message: "required" }] });
    expect(errorBody(new ServiceError("internal"), "r3").error.detail).toEqual({});
  });

  test("the error body has code, message, detail and request_id", () => {
    const body = errorBody(new ServiceError("file_too_large", undefined, { limit_mb: 10 }), "req_0123456789abcdef");
    expect(body).toEqual({
      error: { code: "file_too_large", message: ERROR_CATALOGUE.file_too_large.message, detail: { limit_mb: 10 }, request_id: "req_0123456789abcdef" },
    });
  });
});
