// The document broker's views and tiles against a loopback WOPI host, with real kits: one view per
// token, first cursors, tile invalidations and pixel versions, tilecombine, deltas, pushed tiles,
// and opening (the first screen painted ahead, load in the socket's URL).
import { describe, expect, test } from "bun:test";
import { quietFor, until, waitFor, scaled } from "../testing/until";
import { documentsEnv, documentsHelpers } from "./testing/documents-env";
import { TestSocket, docWsUrl } from "./testing/ws-client";

const env = documentsEnv();
const { open, brokerOf, settled, newDoc } = documentsHelpers(env);

describe("views", () => {
  test("one editing view per access token: a second editing connection with the same token replaces the first, which is told why; another token's view stays", async () => {
    const src = newDoc();
    const first = await open(src, "tok_edit_1");
    const other = await open(src, "tok_edit_2");
    const second = await open(src, "tok_edit_1");
    expect(second.texts()).toContain("perm: edit");
    await waitFor(() => first.closed, "the first view of the same token closed");
    expect(first.texts()).toContain("close: replaced");
    await until(() => brokerOf(src)?.sessions.size, (n) => n === 2, "two sessions left on the document");
    expect(other.texts()).not.toContain("close: replaced");
    // A read-only view of the same token never replaces anything.
    const viewer = await open(src, "tok_edit_1", "&permission=readonly");
    expect(viewer.texts()).toContain("perm: readonly");
    await quietFor(200, "the editing view is not replaced by the read-only view of its token", () => second.closed || second.texts().includes("close: replaced"));
    expect(second.texts()).not.toContain("close: replaced");
    for (const s of [other, second, viewer]) s.close();
  });

  // The engine emits a new view's first cursor, selection and tile invalidation while the view is
  // being created; they can reach the server in the same read as the kit's answer, before the
  // session knows its view id. Dropped, the page shows no cursor until it moves (about one open
  // in four on 2 cores). Ten views in a row make a lost first cursor near certain to show.
  test("every new view receives its first cursor, also when the engine sends it with the view's creation", async () => {
    const src = newDoc();
    const sockets: TestSocket[] = [];
    const missing: number[] = [];
    for (let i = 0; i < 10; i++) {
      const s = await open(src, i % 2 ? "tok_edit_2" : "tok_edit_1");
      sockets.push(s);
      const got = await s.waitText("invalidatecursor:", 0, 3000).then(() => true, () => false);
      if (!got) missing.push(i);
    }
    expect(missing).toEqual([]);
    for (const s of sockets) s.close();
  }, scaled(60_000));

  // Creating a view invalidates the whole document about when its client asks for its first
  // screen: passed on, every tile of that screen was painted twice.
  test("a view gets no tile invalidation before its first tile; after it, an edit invalidates", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    await quietFor(400, "no tile invalidation before the view's first tile", () => s.texts().find((t) => t.startsWith("invalidatetiles:")));
    expect(s.texts().filter((t) => t.startsWith("invalidatetiles:"))).toEqual([]);
    s.send("tile part=0 width=256 height=256 x=0 y=0 w=3840 h=3840 id=1");
    await s.wait((f) => typeof f !== "string");
    const n = s.frames.length;
    s.send(`textinput text=${encodeURIComponent("Hi")}`);
    await s.waitText("invalidatetiles:", n);
    s.close();
  });

  // LibreOffice 25.2 tells every other view "EMPTY" (the whole document) for each change one view
  // makes; passed on, each other person's page asked for its whole screen on every key anyone typed.
  test("another person's typing invalidates where it changed the page, never the whole document, in a text document", async () => {
    const src = newDoc();
    const a = await open(src, "tok_edit_1");
    const b = await open(src, "tok_edit_2");
    for (const [s, id] of [[a, 1], [b, 2]] as const) {
      s.send(`tile part=0 width=256 height=256 x=0 y=0 w=3840 h=3840 id=${id}`);
      await s.wait((f) => typeof f !== "string");
    }
    await quietFor(300, "the views' first invalidations settled", () => undefined);
    const n = b.frames.length;
    for (const text of ["One", "Two", "Three"]) {
      const m = a.frames.length;
      a.send(`textinput text=${text}`);
      await a.waitText("invalidatetiles:", m);
    }
    const bSaw = () => b.texts().slice(n).filter((t) => t.startsWith("invalidatetiles:"));
    await until(() => bSaw(), (seen) => seen.length >= 3, "Bob told of Alice's three changes");
    expect(bSaw().filter((t) => /^invalidatetiles: EMPTY/.test(t))).toEqual([]);
    for (const t of bSaw()) expect(t).toMatch(/^invalidatetiles: \d+, \d+, \d+, \d+/);
    a.close();
    b.close();
  }, scaled(30_000));

  // A tile and an invalidation cross on the wire: the page cannot tell from their order whether the
  // tile holds the change. Both carry the document's pixel version: a tile of version v holds every
  // invalidation numbered up to v, and the page asks again only for a later one.
  test("tile invalidations and tiles carry the pixel version: a tile painted after an invalidation has at least its number", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    const tileVersion = async (id: number) => {
      s.send(`tile part=0 width=256 height=256 x=0 y=0 w=3840 h=3840 id=${id}`);
      const headOf = (f: string | Uint8Array) => (typeof f === "string" ? "" : new TextDecoder().decode(f.subarray(0, f.indexOf(10))));
      const f = await s.wait((f) => headOf(f).startsWith(`tile: id=${id} `));
      return Number(/ ver=(\d+)/.exec(headOf(f))![1]);
    };
    const v0 = await tileVersion(1);
    const versions: number[] = [];
    for (const text of ["One", "Two"]) {
      const n = s.frames.length;
      s.send(`textinput text=${text}`);
      const inv = await s.waitText("invalidatetiles:", n);
      expect(inv).toMatch(/^invalidatetiles: .+ ver=\d+$/);
      versions.push(Number(/ ver=(\d+)$/.exec(inv)![1]));
    }
    expect(versions[0]!).toBeGreaterThan(v0);
    expect(versions[1]!).toBeGreaterThan(versions[0]!);
    expect(await tileVersion(2)).toBeGreaterThanOrEqual(versions[1]!);
    s.close();
  });

  const headOf = (f: string | Uint8Array) => (typeof f === "string" ? "" : new TextDecoder().decode(f.subarray(0, f.indexOf(10) < 0 ? f.length : f.indexOf(10))));
  const tileFrames = (s: TestSocket, after = 0) => s.frames.slice(after).filter((f): f is Uint8Array => typeof f !== "string");
  const attr = (head: string, name: string) => new RegExp(` ${name}=(\\S+)`).exec(head)?.[1];

  test("tilecombine answers every tile asked for, each with its wire id; a tile the page holds unchanged comes back without a picture", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    s.send("tilecombine part=0 width=256 height=256 tileposx=0,3840,7680 tileposy=0,0,0 tilewidth=3840 tileheight=3840 id=1");
    await s.wait(() => tileFrames(s).length >= 3);
    const first = tileFrames(s).map((f) => ({ head: headOf(f), bytes: f.length }));
    expect(first.map((t) => attr(t.head, "x"))).toEqual(["0", "3840", "7680"]);
    for (const t of first) expect(t.bytes).toBeGreaterThan(t.head.length + 100); // a PNG each
    const wids = first.map((t) => Number(attr(t.head, "wid")));
    expect(new Set(wids).size).toBe(3);
    // Asked again, holding those copies: nothing changed, so no pictures and the same wire ids.
    const n = s.frames.length;
    s.send(`tilecombine part=0 width=256 height=256 tileposx=0,3840,7680 tileposy=0,0,0 tilewidth=3840 tileheight=3840 have=${wids.join(",")} id=2`);
    await s.wait(() => tileFrames(s, n).length >= 3);
    const again = tileFrames(s, n);
    expect(again.map((f) => f.length === headOf(f).length + 1)).toEqual([true, true, true]); // the header line only
    expect(again.map((f) => Number(attr(headOf(f), "wid")))).toEqual(wids);
    // A wrong wire id held gets the picture.
    const m = s.frames.length;
    s.send(`tile part=0 width=256 height=256 x=0 y=0 w=3840 h=3840 have=${wids[0]! + 1000} id=3`);
    await s.wait(() => tileFrames(s, m).length >= 1);
    expect(tileFrames(s, m)[0]!.length).toBeGreaterThan(headOf(tileFrames(s, m)[0]!).length + 100);
    s.close();
  });

  /** The width and height a tile frame's PNG declares (IHDR). */
  const pngSize = (f: Uint8Array) => {
    const png = f.subarray(f.indexOf(10) + 1), dv = new DataView(png.buffer, png.byteOffset, png.byteLength);
    return { width: dv.getUint32(16), height: dv.getUint32(20) };
  };

  test("tile deltas: a page that applies them gets, for a tile it holds, only the band of rows an edit changed; other pages get the whole tile", async () => {
    const src = newDoc();
    const withDeltas = await open(src, "tok_edit_1", "", " tiledeltas=1");
    const whole = await open(src, "tok_edit_2");
    const tileOf = async (s: TestSocket, have: number, id: number) => {
      const n = s.frames.length;
      s.send(`tile part=0 width=256 height=256 x=0 y=0 w=3840 h=3840 have=${have} id=${id}`);
      await s.wait(() => tileFrames(s, n).some((f) => attr(headOf(f), "id") === String(id)));
      return tileFrames(s, n).find((f) => attr(headOf(f), "id") === String(id))!;
    };
    const held = { deltas: Number(attr(headOf(await tileOf(withDeltas, 0, 1)), "wid")), whole: Number(attr(headOf(await tileOf(whole, 0, 1)), "wid")) };
    const n = withDeltas.frames.length;
    withDeltas.send("textinput text=Delta");
    await withDeltas.waitText("invalidatetiles:", n);
    await settled(src); // the engine has settled: both views' pixels are final
    const band = await tileOf(withDeltas, held.deltas, 2);
    const head = headOf(band);
    expect(Number(attr(head, "delta"))).toBe(held.deltas);
    const dy = Number(attr(head, "dy")), size = pngSize(band);
    expect(size.width).toBe(256);
    expect(size.height).toBeGreaterThan(0);
    expect(size.height).toBeLessThan(64); // one line of text, not the tile
    expect(dy + size.height).toBeLessThanOrEqual(256);
    expect(Number(attr(head, "wid"))).not.toBe(held.deltas);
    // Holding the band's result, nothing more changed: no picture.
    const same = await tileOf(withDeltas, Number(attr(head, "wid")), 3);
    expect(same.length).toBe(headOf(same).length + 1);
    // The page that did not ask for deltas gets its changed tile whole.
    const full = await tileOf(whole, held.whole, 2);
    expect(attr(headOf(full), "delta")).toBeUndefined();
    expect(pngSize(full)).toEqual({ width: 256, height: 256 });
    withDeltas.close();
    whole.close();
  });

  test("after an edit the server sends the visible tiles it invalidated without being asked, and a request that the push answers is not painted again", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    s.send("clientvisiblearea x=0 y=0 width=15360 height=11520");
    s.send("tile part=0 width=256 height=256 x=0 y=0 w=3840 h=3840 id=1");
    await s.wait(() => tileFrames(s).length >= 1);
    const n = s.frames.length;
    s.send(`textinput text=Pushed`);
    const inv = await s.waitText("invalidatetiles:", n);
    const ver = Number(/ ver=(\d+)$/.exec(inv)![1]);
    // Pushed: tile frames with id=push, at the invalidation's version or later, and no request sent.
    await s.wait(() => tileFrames(s, n).some((f) => attr(headOf(f), "id") === "push"));
    const pushed = tileFrames(s, n).map(headOf).filter((h) => attr(h, "id") === "push");
    for (const h of pushed) expect(Number(attr(h, "ver"))).toBeGreaterThanOrEqual(ver);
    // The page's own request for a pushed tile, needing that version: answered by the push alone.
    const x = attr(pushed[0]!, "x"), y = attr(pushed[0]!, "y");
    const m = s.frames.length;
    s.send(`tilecombine part=0 width=256 height=256 tileposx=${x} tileposy=${y} tilewidth=3840 tileheight=3840 need=${ver} id=9`);
    s.send("status");
    await s.waitText("status:", m);
    expect(tileFrames(s, m).filter((f) => attr(headOf(f), "id") === "9")).toEqual([]);
    s.close();
  });

  test("every tile asked for is answered: one the engine fails to paint is answered tilestale (the page awaits each and asks none again until then)", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    const n = s.frames.length;
    // 4096 px tiles are past what the engine paints (2048): the paint fails.
    s.send("tilecombine part=0 width=4096 height=4096 tileposx=0,3840 tileposy=0,0 tilewidth=3840 tileheight=3840 id=77");
    await s.waitText("error: cmd=tilecombine", n);
    const stale = s.frames.slice(n).filter((t): t is string => typeof t === "string" && t.startsWith("tilestale: id=77 "));
    expect(stale.map((t) => / x=(\d+) /.exec(t)![1])).toEqual(["0", "3840"]);
    expect(tileFrames(s, n)).toEqual([]);
    s.close();
  });
});

describe("opening", () => {
  const headOf = (f: Uint8Array) => new TextDecoder().decode(f.subarray(0, f.indexOf(10) < 0 ? f.length : f.indexOf(10)));
  const tilesWithId = (s: TestSocket, id: string) => s.frames.filter((f): f is Uint8Array => typeof f !== "string" && headOf(f).includes(` id=${id} `)).map(headOf);
  const at = (head: string, name: string) => Number(new RegExp(` ${name}=(\\S+)`).exec(head)?.[1]);
  /** Everything the server sends ahead of a request is sent before its answer (one kit, in order). */
  async function afterARequest(s: TestSocket) {
    s.send("tilecombine part=0 width=256 height=256 tileposx=0 tileposy=0 tilewidth=3840 tileheight=3840 id=probe");
    await s.wait(() => tilesWithId(s, "probe").length === 1 || s.texts().some((t) => t.startsWith("tilestale: id=probe")));
  }

  test("first screen: a page that asks for it is told, before its status, which tiles of its area are painted ahead, and gets each without asking", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1", "", " firstscreen=1 clientvisiblearea=0;0;15360;10800");
    const texts = s.texts();
    const announce = texts.find((t) => t.startsWith("firstscreen: "));
    expect(announce).toBeDefined();
    expect(texts.indexOf(announce!)).toBeLessThan(texts.findIndex((t) => t.startsWith("status: ")));
    const xs = /tileposx=(\S+)/.exec(announce!)![1]!.split(",").map(Number), ys = /tileposy=(\S+)/.exec(announce!)![1]!.split(",").map(Number);
    expect(xs.length).toBeGreaterThanOrEqual(6); // a page's width by three rows
    expect(Math.max(...xs)).toBeLessThan(15360);
    expect(Math.max(...ys)).toBeLessThan(10800);
    await s.wait(() => tilesWithId(s, "first").length >= xs.length);
    const got = tilesWithId(s, "first").map((h) => `${at(h, "x")},${at(h, "y")}`).sort();
    expect(got).toEqual(xs.map((x, i) => `${x},${ys[i]}`).sort());
    s.close();
  });

  test("first screen: nothing is painted ahead for a page that does not ask, nor for a slide deck (shown fitted, at another zoom)", async () => {
    for (const [fixture, args] of [["hello.docx", " clientvisiblearea=0;0;15360;10800"], ["hello.pptx", " firstscreen=1 clientvisiblearea=0;0;15360;10800"]] as const) {
      const s = await open(newDoc(fixture), "tok_edit_1", "", args);
      await afterARequest(s);
      expect(s.texts().some((t) => t.startsWith("firstscreen: "))).toBe(false);
      expect(tilesWithId(s, "first")).toEqual([]);
      s.close();
    }
  });

  // The engine makes a view's first states about a second after the view (an idle): made in
  // English and the language set by the page's `viewlanguage` after it, a Vietnamese page's screen
  // reader said "Page 1 of 1" until the caret moved (CI's census caught it under load).
  test("a view is made in the session's language: its first states are in it before the page sends viewlanguage", async () => {
    const s = await open(newDoc(), "tok_edit_1", "", " lang=vi");
    const state = await s.waitText("statechanged: .uno:StatePageNumber=");
    expect(state).toBe("statechanged: .uno:StatePageNumber=Trang 1 trên 1");
    s.close();
  });

  test("load in the socket's URL: the view is made at the upgrade, before the page sends a frame; a load frame afterwards changes nothing", async () => {
    const src = newDoc();
    const load = `url=${encodeURIComponent(src)} lang=en-US firstscreen=1 clientvisiblearea=0;0;7680;3840`;
    const s = new TestSocket(`${docWsUrl(env.ed.url, src, "tok_edit_1")}&load=${encodeURIComponent(load)}`, env.origin);
    await s.waitText("status: ");
    await s.wait(() => tilesWithId(s, "first").length >= 2);
    s.send(`load ${load}`);
    await afterARequest(s);
    expect(s.texts().filter((t) => t.startsWith("status: "))).toHaveLength(1);
    expect(s.texts().filter((t) => t.startsWith("firstscreen: "))).toHaveLength(1);
    const broker = [...env.ed.brokers.values()].find((b) => b.wopiSrc === src)!;
    expect(broker.sessions.size).toBe(1);
    s.close();
  });
});

describe("pushed tiles first", () => {
  test("a view's invalidation and the caret after it follow the tiles pushed for that invalidation", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1", "", " tiledeltas=1");
    s.send("clientvisiblearea x=0 y=0 width=15360 height=11520");
    s.send("tile part=0 width=256 height=256 x=0 y=0 w=3840 h=3840 id=1");
    await s.wait((f) => typeof f !== "string");
    await settled(src); // the view's opening is over: what follows is the edit's
    const n = s.frames.length;
    s.send("textinput text=Order");
    const inv = await s.waitText("invalidatetiles:", n);
    const ver = Number(/ ver=(\d+)$/.exec(inv)![1]);
    const frames = s.frames.slice(n);
    const at = (pred: (f: string | Uint8Array) => boolean) => frames.findIndex(pred);
    const headOf = (f: Uint8Array) => new TextDecoder().decode(f.subarray(0, f.indexOf(10) < 0 ? f.length : f.indexOf(10)));
    const pushed = at((f) => typeof f !== "string" && / id=push /.test(headOf(f)) && Number(/ ver=(\d+)/.exec(headOf(f))![1]) >= ver);
    expect(pushed).toBeGreaterThanOrEqual(0);
    expect(pushed).toBeLessThan(at((f) => f === inv));
    const caret = await s.waitText("invalidatecursor:", n);
    expect(at((f) => f === inv)).toBeLessThan(s.frames.slice(n).indexOf(caret));
    s.close();
  });
});
