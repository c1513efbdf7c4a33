// Builds and template fills on the build thread (build-thread.ts): the same bytes and refusals as
// in this thread, with the event loop free while they run.

import { describe, expect, test } from "bun:test";
import { strFromU8, unzipSync } from "fflate";
import { ServiceError } from "../errors";
import { prepareScript } from "../svcscript";
import { renderTemplate } from "../templates/render";
import { INVOICE_DATA, invoiceTemplate, unbalancedLoopTemplate } from "../templates/make-fixtures";
import { buildOffThread, renderOffThread, startBuildThread } from "./build-thread";
import { turnsDuring } from "../testing/event-loop";

const refusalOf = (p: Promise<unknown>) => p.then(() => { throw new Error("not refused"); }, (e) => e as ServiceError);
const documentXml = (docx: Uint8Array) => strFromU8(unzipSync(docx)["word/document.xml"]!);

describe("the build thread (issue 47)", () => {
  test("a template is filled off the event loop (it turns meanwhile), into the document renderTemplate gives", async () => {
    expect(await startBuildThread()).toBe(true);
    const data = { ...INVOICE_DATA, items: Array.from({ length: 3000 }, (_, i) => ({ name: `Mặt hàng ${i + 1}`, qty: i + 1, price: "10.000" })) };
    let filled!: Uint8Array;
    // renderTemplate itself is synchronous: in this thread the loop could not turn once while it ran.
    expect(await turnsDuring(async () => (filled = await renderOffThread(invoiceTemplate(), data, { missing: "empty" })))).toBeGreaterThan(0);
    expect(documentXml(filled)).toBe(documentXml(renderTemplate(invoiceTemplate(), data, { missing: "empty" })));
  });

  test("a template's refusal crosses as itself: template_error with its problems", async () => {
    const e = await refusalOf(renderOffThread(unbalancedLoopTemplate(), { customer: { name: "x" }, items: [] }, { missing: "empty" }));
    expect(e).toBeInstanceOf(ServiceError);
    expect({ code: e.code, status: e.status }).toEqual({ code: "template_error", status: 422 });
    expect(e.detail.errors).toEqual([expect.objectContaining({ tag: "{{#items}}", reason: "unclosed_loop", part: "word/document.xml" })]);
    expect(e.message).toContain("{{/items}}");
  });

  test("a script is built there with its refusal as itself: script_error naming the path", async () => {
    const docx = await buildOffThread(prepareScript({ type: "text", outputs: ["docx"], body: [{ type: "paragraph", text: "Xin chào" }] }, 20_000));
    expect(documentXml(docx)).toContain("Xin chào");
    const e = await refusalOf(buildOffThread(prepareScript({ type: "text", outputs: ["docx"], body: [{ type: "table", columns: [30, 30], rows: [["a", "b"], [{ text: "c", colspan: 2 }, "d"]] }] }, 20_000)));
    expect(e).toBeInstanceOf(ServiceError);
    expect({ code: e.code, path: e.detail.path }).toEqual({ code: "script_error", path: expect.stringContaining("/body/0") });
  });
});
