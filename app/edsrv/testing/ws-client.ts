// A document/admin WebSocket client for tests: collects frames and waits for one that matches.

export class TestSocket {
  frames: (string | Uint8Array)[] = [];
  closed = false;
  private waiters: { pred: (f: string | Uint8Array) => boolean; resolve: (f: any) => void; reject: (e: Error) => void }[] = [];
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
      for (const w of this.waiters) w.reject(new Error("socket closed before the expected frame"));
      this.waiters = [];
      for (const c of this.closeWaiters) c();
    };
  }

  send(t: string) {
    this.ws.send(t);
  }

  /** The first frame (already received or future) matching pred. */
  wait<T extends string | Uint8Array = string>(pred: (f: string | Uint8Array) => boolean): Promise<T> {
    const seen = this.frames.find(pred);
    if (seen !== undefined) return Promise.resolve(seen as T);
    if (this.closed) return Promise.reject(new Error("socket closed before the expected frame"));
    return new Promise((resolve, reject) => this.waiters.push({ pred, resolve, reject }));
  }

  /** A text frame starting with prefix, received after `after` frames. */
  waitText(prefix: string, after = 0): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = (f: string | Uint8Array) => typeof f === "string" && f.startsWith(prefix);
      const seen = this.frames.slice(after).find(check);
      if (seen !== undefined) return resolve(seen as string);
      if (this.closed) return reject(new Error(`closed before ${prefix}`));
      this.waiters.push({ pred: check, resolve, reject });
    });
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
