// The container test's editor check (scripts/container-test.sh): an embedded session's document
// opened over the editor's WebSocket through the proxy, as the editor page does, until its engine
// (a kit) has loaded it; a typed character changes it. It proves
// the image can run editing kits (their native code is compiled at start against the C headers).
//   bun scripts/container-editor-check.ts <public base URL> '<session JSON>'

import { openDocument } from "../app/edsrv/testing/ws-client";

const [base, sessionJson] = process.argv.slice(2);
if (!base || !sessionJson) throw new Error("usage: container-editor-check.ts <base> <session JSON>");
const session = JSON.parse(sessionJson) as { editor_url: string; form: { access_token: string } };
const wopiSrc = new URL(session.editor_url, base).searchParams.get("WOPISrc");
if (!wopiSrc) throw new Error(`no WOPISrc in ${session.editor_url}`);
// Its status: a kit loaded it.
const doc = await openDocument(base, wopiSrc, session.form.access_token, { origin: base });
const before = doc.frames.length;
doc.send("textinput text=x");
// The kit changed the document (its tiles are not asked for here: no screen).
await doc.waitText("statechanged: .uno:ModifiedStatus=true", before, 30_000);
console.log(`document loaded by a kit and typed into (${doc.frames.length} frames)`);
doc.ws.close();
process.exit(0);
