// A document/admin WebSocket client for tests: collects frames and waits for one that matches.
// Every wait has a deadline (scaled, app/testing/until.ts): one that never comes fails naming what
// it waited for and the last text frames that did arrive, not as the test's own timeout.
import { scaled } from "../../testing/until";

/** How long wait/waitText wait for their frame unless told (before scaling). */
export const FRAME_WAIT_MS = 30_000;

export class TestSocket {
  frames: (string | Uint8Array)[] = [];
  closed = false;
  private waiters: { pred: (f: string | Uint8Array) => boolean; resolve: (f: any) => void; reject: (e: Error) => void; what: string }[] = [];
  private closeWaiters: (() => void)[] = [];
  ws: WebSocket;
  opened: Promise<void>;

  constructor(url: string, origin: string) {
    this.ws = new WebSocket(url, { headers: { Origin: origin } } as any);
    this.ws.binaryType = "arraybuffer";
    this.opened = new Promise((resolve, reject) => {
      this.ws.onopen = () => resolve();
      this.ws.onerror = () => reject(new Error("websocket error"));
    });
    this.ws.onmessage = (ev) => {
      const f = typeof ev.data === "string" ? ev.data : new Uint8Array(ev.data as ArrayBuffer);
      this.frames.push(f);
      for (const w of [...this.waiters]) if (w.pred(f)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(f);
      }
    };
    this.ws.onclose = () => {
      this.closed = true;
      for (const w of this.waiters) w.reject(new Error(`socket closed before ${w.what}; ${this.lastSeen()}`));
      this.waiters = [];
      for (const c of this.closeWaiters) c();
    };
  }

  send(t: string) {
    this.ws.send(t);
  }

  /**
   * The first frame (already received or future) matching pred; rejects after `ms` (scaled) naming
   * `what` (by default, pred's source) and the last text frames received.
   */
  wait<T extends string | Uint8Array = string>(pred: (f: string | Uint8Array) => boolean, what = `a frame matching ${String(pred).slice(0, 160)}`, ms = FRAME_WAIT_MS): Promise<T> {
    const seen = this.frames.find(pred);
    if (seen !== undefined) return Promise.resolve(seen as T);
    return this.waitFuture(pred, what, ms);
  }

  /** A text frame starting with prefix, received after `after` frames; rejects after `ms` (scaled). */
  waitText(prefix: string, after = 0, ms = FRAME_WAIT_MS): Promise<string> {
    const check = (f: string | Uint8Array) => typeof f === "string" && f.startsWith(prefix);
    const seen = this.frames.slice(after).find(check);
    if (seen !== undefined) return Promise.resolve(seen as string);
    return this.waitFuture(check, `a text frame starting ${JSON.stringify(prefix)} after frame ${after}`, ms);
  }

  private waitFuture<T>(pred: (f: string | Uint8Array) => boolean, what: string, ms: number): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`socket closed before ${what}; ${this.lastSeen()}`));
    return new Promise<T>((resolve, reject) => {
      const w = {
        pred,
        what,
        resolve: (f: T) => {
          clearTimeout(timer);
          resolve(f);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error(`never: ${what} within ${scaled(ms)} ms; ${this.lastSeen()}`));
      }, scaled(ms));
      this.waiters.push(w);
    });
  }

  /** The last few text frames received (shortened) and how many frames came: for a failed wait. */
  private lastSeen(n = 6): string {
    const texts = this.texts().slice(-n).map((t) => (t.length > 160 ? `${t.slice(0, 160)}…` : t));
    return `${this.frames.length} frames received (${this.frames.length - this.texts().length} binary); last text frames: ${JSON.stringify(texts)}`;
  }

  texts(): string[] {
    return this.frames.filter((f): f is string => typeof f === "string");
  }

  whenClosed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((r) => this.closeWaiters.push(r));
  }

  close() {
    this.ws.close();
  }
}

/** Collabora's canonical document WebSocket URL. */
export function docWsUrl(edsrvUrl: string, wopiSrc: string, token: string, extra = ""): string {
  const a = encodeURIComponent(`${wopiSrc}?access_token=${encodeURIComponent(token)}&access_token_ttl=0${extra}`);
  return `${edsrvUrl.replace(/^http/, "ws")}/ed/${a}/ws?WOPISrc=${encodeURIComponent(wopiSrc)}&compat=/ws`;
}

/**
 * A page's document connection, as the editor opens it: the WebSocket, `load`, and its first
 * `status:` frame (rejecting, with the frames seen, when that never comes).
 */
export async function openDocument(edsrvUrl: string, wopiSrc: string, token: string, o: { origin?: string; extra?: string; loadArgs?: string } = {}): Promise<TestSocket> {
  const s = new TestSocket(docWsUrl(edsrvUrl, wopiSrc, token, o.extra ?? ""), o.origin ?? edsrvUrl);
  await s.opened;
  s.send(`load url=${encodeURIComponent(wopiSrc)}${o.loadArgs ?? ""}`);
  await s.waitText("status:");
  return s;
}
