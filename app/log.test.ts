import { describe, expect, test } from "bun:test";
import { memoryLogger, redactPath } from "./log";

describe("logs", () => {
  test("one JSON line per event with level, event and fields", () => {
    const log = memoryLogger();
    log.child({ request_id: "req_0123456789abcdef" }).info("job_done", { ms: 12 });
    expect(log.lines).toHaveLength(1);
    const line = JSON.parse(log.lines[0]!);
    expect(line).toMatchObject({ level: "info", event: "job_done", request_id: "req_0123456789abcdef", ms: 12 });
  });

  test("the level filter drops lower levels", () => {
    const log = memoryLogger("warn");
    log.info("x");
    log.warn("y");
    expect(log.lines.map((l) => JSON.parse(l).event)).toEqual(["y"]);
  });

  test("query strings of /wopi/ paths are never logged", () => {
    expect(redactPath("/svc/wopi/files/doc_1/contents?access_token=SECRET&access_token_ttl=0")).toBe("/svc/wopi/files/doc_1/contents");
    const log = memoryLogger();
    log.info("http_request", { path: "/svc/wopi/files/doc_1?access_token=SECRET" });
    expect(log.lines[0]).not.toContain("SECRET");
  });

  test("secret fields and secret query parameters are redacted", () => {
    const log = memoryLogger();
    log.info("x", { authorization: "Bearer K", password: "p", path: "/v1/x?token=T&a=1" });
    expect(log.lines[0]).not.toContain("Bearer K");
    expect(log.lines[0]).not.toContain('"p"');
    expect(log.lines[0]).not.toContain("T&");
    expect(log.lines[0]).toContain("a=1");
  });
});
