// One simulated person for `bench:capacity` (bench/capacity.ts): the editor page's traffic without a
// browser. It posts the editor page's form through the proxy (the gate's page check, the editing
// server's warm start), opens the document WebSocket with the page's `load=` in its URL (the gate's
// WebSocket check), holds the tiles of a 1024×720 screen the way the page does (first screen,
// tilecombine with need=/have= for what an invalidation leaves stale, tile deltas applied), moves its
// caret to its own line with a click, then types about 3 characters a second with jitter (textinput,
// as the page sends a typed character), moving the caret now and then with arrow keys.
//
// Keystroke → updated tile: from sending a character to the first tile frame (whole or delta) for
// the tile under this view's caret whose version is newer than the one held when the key was sent
// and, for a delta, whose band of rows covers the caret's line. In a document shared with others a
// co-editor's edit on the same line and tile can answer first (then the figure is shorter than the
// truth); people are spread one per line to make that rare.

import { loadArguments, mouseCommand, keyCommand, textInputCommand, tileCombineCommand, clientVisibleAreaCommand } from "../app/edsrv/protocol/frames";

export const TILE_PX = 256;
export const TILE_TW = 3840; // 256 px at 100 % (15 twips a pixel)
/** What the simulated people type: common English words (the document's language). */
const WORDS = (
  "the of and to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part over new sound take only little work know place year live me back give most very after thing our just name good sentence man think say great where help through much before line right too mean old any same tell boy follow came want show also around form three small set put end does another well large must big even such because turn here why ask went men read need land different home us move try kind hand picture again change off play spell air away animal house point page letter mother answer found study still learn should world"
).split(" ");
/** Wider than any lowercase letter of the bench's 11 pt text (about 8 px). */
const CHAR_TW = 200;
export const SCREEN = { w: 1024 * 15, h: 720 * 15 };
/** Line pitch of the bench document (exact 18 pt lines, no paragraph spacing). */
export const LINE_TW = 360;

export interface JoinResult {
  ok: boolean;
  /** edit | readonly (perm: frame) when admitted. */
  perm?: string;
  /** The refusal as the page would see it: HTTP status (page stage or WebSocket upgrade) and body. */
  status?: number;
  detail?: string;
  ms: number;
}

interface Held {
  ver: number;
  wid: number;
}

export interface PersonStats {
  latencies: number[];
  /** Keys with no updated caret tile within the deadline. */
  timeouts: number;
  tiles: number;
  tileBytes: number;
  errors: string[];
  keys: number;
  /** Tiles pushed by the server (id=push) and tilecombine requests sent, during the hold. */
  pushed: number;
  requests: number;
  /** Tile frames by kind: header only (unchanged), a band of rows (delta), a whole tile. */
  same: number;
  deltas: number;
  whole: number;
}

/** Raw HTTP over TCP: the WebSocket upgrade answer's status and body when the proxy refuses it. */
export async function upgradeStatus(port: number, pathAndQuery: string, origin: string): Promise<{ status: number; body: string }> {
  const req = `GET ${pathAndQuery} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${origin}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;
  let text = "";
  await new Promise<void>((resolve) => {
    const done = setTimeout(resolve, 3000);
    void Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(s) { s.write(req); },
        data(s, d) { text += new TextDecoder().decode(d); if (/\r\n\r\n/.test(text) && (text.startsWith("HTTP/1.1 101") || text.length > 200 || /content-length: 0/i.test(text))) { clearTimeout(done); s.end(); resolve(); } },
        close() { clearTimeout(done); resolve(); },
        error() { clearTimeout(done); resolve(); },
      },
    });
  });
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0);
  return { status, body: text.split("\r\n\r\n").slice(1).join("").slice(0, 300) };
}

export class Person {
  ws: WebSocket | null = null;
  stats: PersonStats = { latencies: [], timeouts: 0, tiles: 0, tileBytes: 0, errors: [], keys: 0, pushed: 0, requests: 0, same: 0, deltas: 0, whole: 0 };
  /** Only keys sent while measuring count. */
  measuring = false;
  closed = false;
  private held = new Map<string, Held>();
  private pendingNeed = new Map<string, number>();
  private caret = { x: 0, y: 0, h: 0 };
  private caretKnown = false;
  /** Keys waiting for their tile: sent at t, caret tile place and line rows, held version then. */
  /** Keys typed and not yet seen on screen: a newer changed tile at one of `places` ("x,y" → the version held when typed), over the caret's rows. */
  private waiting: { t: number; places: Map<string, number>; rowTop: number; rowBottom: number }[] = [];
  private typing: ReturnType<typeof setTimeout> | null = null;
  private perm = "";
  private statusSeen = false;
  private reqId = 0;
  private typedOnLine = 0;

  constructor(
    readonly proxyUrl: string,
    readonly hash: string,
    readonly wopiSrc: string,
    readonly token: string,
    /** The person's line in the document (0-based): it clicks there before typing. */
    readonly line: number,
    readonly rand: () => number,
  ) {}

  private wsPath(): string {
    const a = encodeURIComponent(`${this.wopiSrc}?access_token=${encodeURIComponent(this.token)}&access_token_ttl=0`);
    const load = loadArguments(this.wopiSrc, "en-US", true, `0;0;${SCREEN.w};${SCREEN.h}`);
    return `/ed/${a}/ws?WOPISrc=${encodeURIComponent(this.wopiSrc)}&compat=/ws&load=${encodeURIComponent(load)}`;
  }

  /** The page (form POST through the proxy), then the socket; resolves once the first screen is held. */
  async join(timeoutMs = 60_000): Promise<JoinResult> {
    const t0 = performance.now();
    const origin = this.proxyUrl;
    const page = await fetch(`${this.proxyUrl}/browser/${this.hash}/ed.html?WOPISrc=${encodeURIComponent(this.wopiSrc)}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin },
      body: `access_token=${encodeURIComponent(this.token)}&access_token_ttl=0`,
    }).catch((e) => e as Error);
    if (page instanceof Error) return { ok: false, status: 0, detail: `page: ${page.message}`, ms: performance.now() - t0 };
    const pageBody = await page.text();
    if (page.status !== 200) {
      const title = /<title>([^<]*)<\/title>/i.exec(pageBody)?.[1];
      return { ok: false, status: page.status, detail: `page${page.redirected ? ` (redirected to ${new URL(page.url).pathname.split("/").slice(0, 3).join("/")}/…)` : ""}: ${title ?? pageBody.slice(0, 200)}`, ms: performance.now() - t0 };
    }
    const path = this.wsPath();
    const opened = await new Promise<boolean>((resolve) => {
      const ws = new WebSocket(this.proxyUrl.replace(/^http/, "ws") + path, { headers: { Origin: origin } } as any);
      ws.binaryType = "arraybuffer";
      this.ws = ws;
      ws.onopen = () => resolve(true);
      ws.onerror = () => resolve(false);
      ws.onclose = (ev) => {
        resolve(false);
        if (!this.closed) this.stats.errors.push(`socket closed ${ev.code}`);
        this.closed = true;
        this.stop();
      };
      ws.onmessage = (ev) => this.onFrame(ev.data as string | ArrayBuffer);
    });
    if (!opened) {
      this.closed = true;
      const r = await upgradeStatus(Number(new URL(this.proxyUrl).port), path, origin);
      return { ok: false, status: r.status, detail: `websocket: ${r.body}`, ms: performance.now() - t0 };
    }
    this.ws!.send(`coolclient 0.1 ${Date.now()} ${performance.now().toFixed(0)}`);
    this.ws!.send(`load ${loadArguments(this.wopiSrc, "en-US", true, `0;0;${SCREEN.w};${SCREEN.h}`)}`);
    const until = Date.now() + timeoutMs;
    while (!this.statusSeen && !this.closed && Date.now() < until) await Bun.sleep(20);
    if (!this.statusSeen) return { ok: false, detail: this.closed ? "closed before status" : "no status in time", ms: performance.now() - t0 };
    this.send(clientVisibleAreaCommand(0, 0, SCREEN.w, SCREEN.h));
    await Bun.sleep(300); // the first screen's tiles painted ahead arrive meanwhile
    this.requestScreen();
    while (this.held.size < this.screenPlaces().length && !this.closed && Date.now() < until) await Bun.sleep(20);
    if (this.perm === "edit") {
      // The caret to the end of this person's line: a click there.
      const y = 1440 + this.line * LINE_TW + LINE_TW / 2;
      this.send(mouseCommand("buttondown", 9000, y, 1, 1, 0));
      this.send(mouseCommand("buttonup", 9000, y, 1, 1, 0));
      const waitCaret = Date.now() + 5000;
      this.caretKnown = false;
      while (!this.caretKnown && !this.closed && Date.now() < waitCaret) await Bun.sleep(20);
    }
    return { ok: !this.closed, perm: this.perm, ms: performance.now() - t0 };
  }

  private send(frame: string) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(frame);
  }

  private screenPlaces(): [number, number][] {
    const out: [number, number][] = [];
    for (let y = 0; y < SCREEN.h; y += TILE_TW) for (let x = 0; x < SCREEN.w; x += TILE_TW) out.push([x, y]);
    return out;
  }

  /** What the page asks for its screen: every tile not held or stale, with need=/have=. */
  private requestScreen() {
    const xs: number[] = [], ys: number[] = [], needs: number[] = [], haves: number[] = [];
    for (const [x, y] of this.screenPlaces()) {
      const key = `${x},${y}`, h = this.held.get(key), need = this.pendingNeed.get(key);
      if (h && (need === undefined || h.ver >= need)) continue;
      xs.push(x); ys.push(y); needs.push(need ?? -1); haves.push(h?.wid ?? 0);
    }
    if (xs.length && this.measuring) this.stats.requests++;
    if (xs.length) this.send(tileCombineCommand({ part: 0, size: TILE_PX, twips: TILE_TW, xs, ys, needs, haves, id: ++this.reqId }));
  }

  private onFrame(data: string | ArrayBuffer) {
    const now = performance.now();
    if (typeof data === "string") return this.onText(data);
    const bytes = new Uint8Array(data);
    const nl = bytes.indexOf(10);
    const head = new TextDecoder().decode(bytes.subarray(0, nl));
    if (!head.startsWith("tile:")) return;
    const w: Record<string, string> = {};
    for (const m of head.matchAll(/(\w+)=(\S+)/g)) w[m[1]!] = m[2]!;
    const key = `${w.x},${w.y}`, ver = Number(w.ver), wid = Number(w.wid);
    const png = bytes.subarray(nl + 1);
    if (this.measuring) {
      this.stats.tiles++;
      this.stats.tileBytes += bytes.byteLength;
      if (w.id === "push") this.stats.pushed++;
      if (w.delta) this.stats.deltas++;
      else if (nl + 1 >= bytes.byteLength) this.stats.same++;
      else this.stats.whole++;
    }
    const prev = this.held.get(key);
    if (!prev || prev.ver <= ver) this.held.set(key, { ver, wid });
    const need = this.pendingNeed.get(key);
    if (need !== undefined && ver >= need) this.pendingNeed.delete(key);
    if (!png.byteLength && !w.delta) {
      // "same": the copy held is current at ver. Counts for a key only if pixels were expected to change: not.
    }
    // Which waiting keys this tile answers.
    let band: [number, number] | null = null;
    if (w.delta && png.byteLength >= 24) {
      const dy = Number(w.dy), hgt = new DataView(png.buffer, png.byteOffset + 20, 4).getUint32(0);
      band = [dy, dy + hgt];
    }
    const changed = png.byteLength > 0;
    this.waiting = this.waiting.filter((k) => {
      const heldVer = k.places.get(key);
      if (!changed || heldVer === undefined || ver <= heldVer) return true;
      if (band && (band[1] <= k.rowTop || band[0] >= k.rowBottom)) return true;
      this.stats.latencies.push(now - k.t);
      return false;
    });
  }

  private onText(text: string) {
    const i = text.indexOf(": ");
    const name = i > 0 ? text.slice(0, i) : text, arg = i > 0 ? text.slice(i + 2) : "";
    switch (name) {
      case "status": this.statusSeen = true; break;
      case "perm": this.perm = arg.trim(); break;
      case "invalidatecursor": {
        const n = arg.split(",").map((s) => Number(s.trim()));
        if (n.length >= 4 && n.every(Number.isFinite)) { this.caret = { x: n[0]!, y: n[1]!, h: n[3]! }; this.caretKnown = true; }
        break;
      }
      case "invalidatetiles": {
        const vm = / ver=(\d+)$/.exec(arg), ver = vm ? Number(vm[1]) : Infinity;
        const a = (vm ? arg.slice(0, vm.index) : arg).split(",").map((s) => s.trim());
        const all = a[0] === "EMPTY";
        const r = all ? null : a.slice(0, 4).map(Number);
        for (const [x, y] of this.screenPlaces()) {
          if (r && (x + TILE_TW <= r[0]! || x > r[0]! + r[2]! || y + TILE_TW <= r[1]! || y > r[1]! + r[3]!)) continue;
          const h = this.held.get(`${x},${y}`);
          if (!h || h.ver < ver) this.pendingNeed.set(`${x},${y}`, Math.max(this.pendingNeed.get(`${x},${y}`) ?? -1, ver));
        }
        this.requestScreen();
        break;
      }
      case "error": if (this.measuring) this.stats.errors.push(text.slice(0, 120)); break;
      case "close": this.stats.errors.push(text.slice(0, 120)); break;
    }
  }

  /**
   * Typing at `keysPerSecond` (interval jittered ±50 %), a caret move every 8-15 characters: common
   * English words and a space after each, or with `letters` random letters and a space now and
   * then, every word misspelled (the spell checker's worst case: LibreOffice checks a paragraph
   * again after each change, and an unknown word costs it far more than a known one).
   */
  startTyping(keysPerSecond = 3, moves = true, letters = false) {
    if (this.perm !== "edit") return;
    let untilMove = moves ? 8 + Math.floor(this.rand() * 8) : Infinity;
    let word = "";
    const nextChar = () => {
      if (letters) return this.typedOnLine > 0 && this.rand() < 0.18 ? " " : String.fromCharCode(97 + Math.floor(this.rand() * 26));
      if (!word) word = `${WORDS[Math.floor(this.rand() * WORDS.length)]!} `;
      const ch = word[0]!;
      word = word.slice(1);
      return ch;
    };
    const next = () => {
      if (this.closed) return;
      const gap = (1000 / keysPerSecond) * (0.5 + this.rand());
      this.typing = setTimeout(() => {
        if (this.closed) return;
        if (--untilMove <= 0) {
          untilMove = 8 + Math.floor(this.rand() * 8);
          // A caret move: left or right a few characters, or to the end of the line.
          const code = [1026, 1027, 1029][Math.floor(this.rand() * 3)]!;
          this.send(keyCommand("input", 0, code));
          this.send(keyCommand("up", 0, code));
        } else {
          this.typeChar(nextChar());
        }
        next();
      }, gap);
    };
    next();
  }

  private typeChar(ch: string) {
    // A space at the end of a line changes no pixel: not timed.
    if (this.measuring && this.caretKnown && ch !== " ") {
      const tx = Math.floor(this.caret.x / TILE_TW) * TILE_TW, ty = Math.floor(this.caret.y / TILE_TW) * TILE_TW;
      if (tx < SCREEN.w && ty < SCREEN.h) {
        const rowTop = Math.floor((this.caret.y - ty) / 15), rowBottom = Math.ceil((this.caret.y + this.caret.h - ty) / 15);
        // The character is drawn right of the caret: at a tile's right edge, in the next tile.
        const places = new Map<string, number>();
        for (const x of this.caret.x >= tx + TILE_TW - CHAR_TW && tx + TILE_TW < SCREEN.w ? [tx, tx + TILE_TW] : [tx]) places.set(`${x},${ty}`, this.held.get(`${x},${ty}`)?.ver ?? -1);
        this.waiting.push({ t: performance.now(), places, rowTop, rowBottom });
        this.stats.keys++;
      }
    }
    this.typedOnLine++;
    this.send(textInputCommand(ch));
  }

  /**
   * Keys still waiting after `deadlineMs` count as timeouts, and in the latencies as the deadline
   * (`asMs`): a key whose tile never came is at least that late.
   */
  expire(deadlineMs: number, asMs = deadlineMs) {
    const now = performance.now();
    const before = this.waiting.length;
    this.waiting = this.waiting.filter((k) => now - k.t < deadlineMs);
    const expired = before - this.waiting.length;
    this.stats.timeouts += expired;
    for (let i = 0; i < expired; i++) this.stats.latencies.push(asMs);
  }

  /** Forgets what was counted (a new measuring window). */
  resetStats() {
    this.stats = { ...this.stats, latencies: [], timeouts: 0, tiles: 0, tileBytes: 0, keys: 0, pushed: 0, requests: 0, same: 0, deltas: 0, whole: 0 };
  }

  stop() {
    if (this.typing) clearTimeout(this.typing);
    this.typing = null;
  }

  close() {
    this.stop();
    this.closed = true;
    try { this.ws?.close(); } catch { /* closed already */ }
  }
}
