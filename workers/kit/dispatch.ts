// Dispatch: each request line parsed, queued as its op says (KIT_OPS in kit-protocol.ts) and
// handed to its op's handler; its reply goes out when the handler finishes.

import { isKitOp, JOURNALLED_OPS, KIT_OPS, ORDERED_OPS, PER_VIEW_OPS, type KitOp, type KitRequestOf, type KitResult } from "../kit-protocol";
import { accessibility, joinTyping, key, mouse, settle, textInput, uno } from "./input";
import { commandvalues, insertgraphic, paste, selection } from "./clipboard";
import { closedialogs, dialogevent, paintwindow, windowclose, windowkey, windowmouse, windowtext } from "./dialogs";
import { load, save } from "./files";
import { presentationinfo, slideimage } from "./slideshow";
import { thumbnail, tiles } from "./tiles";
import { clientzoom, moveparts, part, status, unview, view, viewlanguage, visiblearea } from "./views";
import { kit, log, send, views } from "./state";
import { loopTurn } from "../kit-loop";

type Handler<Op extends KitOp> = (req: KitRequestOf<Op>) => KitResult<Op> | Promise<KitResult<Op>>;

/** Every op's handler: an op added to KIT_OPS without one here does not compile. */
const HANDLERS: { [Op in KitOp]: Handler<Op> } = {
  load,
  view,
  viewlanguage,
  clientzoom,
  unview,
  status,
  key,
  mouse,
  textinput: textInput,
  uno,
  dialogevent,
  paintwindow,
  windowmouse,
  windowkey,
  windowtext,
  windowclose,
  closedialogs,
  a11y: accessibility,
  presentationinfo,
  slideimage,
  selection,
  commandvalues,
  thumbnail,
  moveparts,
  paste,
  insertgraphic,
  part,
  visiblearea,
  tiles,
  save,
  ping: () => ({ views: views.size, loaded: kit.doc !== null }),
  settle,
};

async function handle(req: Record<string, unknown>): Promise<unknown> {
  const op = req.op;
  if (!isKitOp(op)) throw new Error(`unknown op ${JSON.stringify(op)}`);
  // A person's input, or work slower than input, starts here: the editing server's watchdog then
  // knows what is under way and, should the engine stop answering, which input it stopped on
  // (app/edsrv/kit-watchdog.ts). Tiles and status, the frequent ones, need no word.
  if ((JOURNALLED_OPS.has(op) || KIT_OPS[op].answer !== "input") && typeof req.id === "string") send({ type: "begin", id: req.id, turn: loopTurn() });
  // The fields are the server's (kit-protocol.ts); each handler still checks what it reads.
  return (HANDLERS[op] as Handler<KitOp>)(req as KitRequestOf<KitOp>);
}

/** Every request of the shared queue (commands, copies, pastes, saves, leaving), in order. */
let sharedChain: Promise<unknown> = Promise.resolve();

/**
 * Ordered requests keep their order: a view's input after that view's earlier input and after
 * every request of the shared queue before it; every other ordered request (commands, copies,
 * pastes, saves, leaving) after everything sent before it, every view's input included. Input
 * naming no known view has no queue of its own: it goes in the shared queue, where it fails.
 */
function enqueueOrdered(req: Record<string, unknown>): Promise<unknown> {
  const view = PER_VIEW_OPS.has(String(req.op)) && typeof req.viewId === "number" ? views.get(req.viewId) : undefined;
  if (view) {
    const p = Promise.allSettled([view.chain, sharedChain]).then(() => handle(req));
    view.chain = p;
    return p;
  }
  sharedChain = Promise.allSettled([sharedChain, ...[...views.values()].map((v) => v.chain)]).then(() => handle(req));
  return sharedChain;
}

/** Parses one request line and starts it; its reply goes out when it finishes. */
export function start(line: string): void {
  let req: Record<string, unknown>;
  try {
    req = JSON.parse(line);
    if (!req || typeof req !== "object") throw new Error("not an object");
  } catch {
    log("warn", "kit_request_malformed", { bytes: line.length });
    return;
  }
  const id = typeof req.id === "string" ? req.id : "";
  // Input and saves keep their order even when one request waits (an undo or a save settling);
  // tiles and status do not queue behind them.
  const ordered = ORDERED_OPS.has(String(req.op));
  if (ordered) joinTyping(req);
  const handled = ordered ? enqueueOrdered(req) : handle(req);
  handled.then(
    (result) => send({ type: "reply", id, ok: true, result }),
    (err) => send({ type: "reply", id, ok: false, error: String((err as Error)?.message ?? err) }),
  );
}
