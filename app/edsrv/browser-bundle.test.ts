// The page's scripts carry only what the page runs: the server's checks (zod, which the wire
// frames' server side uses) stay out. ui.js grew from 48 KB to 162 KB when a browser module
// imported the dialog events' zod schema.
import { expect, test } from "bun:test";
import { buildBrowserClient } from "./browser-bundle";

test("the page's scripts (ed.js, ui.js) do not carry zod or any other server-side validation library", async () => {
  const client = await buildBrowserClient({ dev: false, version: "test" });
  for (const file of ["ed.js", "ui.js"]) {
    const text = new TextDecoder().decode(client.asset(file)!.body);
    expect([file, /ZodError|invalid_type_error|\$ZodType/.test(text)]).toEqual([file, false]);
  }
});

test("ui.js carries no language table: the interface's texts come with the page, in its language only (page.ts)", async () => {
  const client = await buildBrowserClient({ dev: false, version: "test" });
  const ui = new TextDecoder().decode(client.asset("ui.js")!.body);
  for (const text of ["Toolbar tabs", "Các thẻ của thanh công cụ", "Paragraph style"]) expect([text, ui.includes(text)]).toEqual([text, false]);
});
