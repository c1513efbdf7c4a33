// Counting rule 1: every 10 s the gate asks the editing server's admin channel for its documents
// and views, with Collabora's protocol exactly (protocol notes §5), so it works against our editing
// server and a real Collabora alike:
//   1. GET <base>/browser/dist/admin/admin.html with Basic auth → cookie jwt=<token> (401: wrong
//      credentials → upstream.edsrv "auth_failed");
//   2. WebSocket <base><admin ws path> with Origin = the server's own origin; `auth jwt=<token>`,
//      `version`, `subscribe adddoc rmdoc modifications`, then `documents` every period (and soon
//      after a push, so an admitted session is confirmed early and a change of views or of the
//      modified state reaches the embed gate within a fraction of a second).
// Counting keeps only document keys, session ids and read-only flags: never file or user names.

import type { Clock } from "../clock";
import type { Logger } from "../log";
import { SAMPLE_INTERVAL_MS, type ConnectionCounter, type SampleDoc } from "./counting";
import { normaliseWopiSrc, type DocKeyFn } from "../editing-uri";
import { parseInputLagReply, type InputLag } from "./editor-load";

export type EdsrvState = "ok" | "down" | "auth_failed";

export interface SamplerOptions {
  baseUrl: string;
  user: string;
  password: string;
  adminWsPath: string;
  counter: ConnectionCounter;
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
  /** A `documents` request unanswered this long means the channel is dead. */
  replyTimeoutMs?: number;
  /** Document key with the alias groups applied, the same function /svc/auth uses. */
  keyOf?: DocKeyFn;
  /** Called with every applied sample (the embed gate reads its own documents from it). */
  onSample?: (docs: SampleDoc[], at: number) => void;
  /** Our editing server's input lag, with each sample (a Collabora server does not answer). */
  onInputLag?: (lag: InputLag, at: number) => void;
  /** The gate's own documents: their views keep user ids (see parseDocumentsReply). */
  ownDocument?: (docKey: string) => boolean;
}

const truthy = (v: unknown) => v === true || v === 1 || v === "1" || v === "true";
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

// userName and userId are not JSON-escaped by Collabora (a quote in a name breaks the JSON), so
// their values are taken out before parsing: each runs up to the next field Collabora writes after
// it. Anchoring on the next field of the same view (not on userId) keeps a view without userId
// from swallowing the next view. Names are dropped; user ids are kept aside, raw, for the embed
// gate's own documents (whose user ids never hold a quote).
const NAME_FIELDS = /"(userName|userId)":"([\s\S]*?)"(?=,"(?:userId|sessionid|readonly)":)/g;

/**
 * Parses a `documents {…}` reply into counting input; null when the reply is unreadable (the
 * sampler then keeps the previous sample). Pure and total: it never throws, whatever arrives.
 * A document or view that is not an object makes the whole reply unreadable: storing the rest
 * would free slots that may be taken. Missing fields are tolerated; a view without a readonly
 * flag counts as editing. keyOf maps the docKey through the alias groups. keepUserIdsOf names the
 * documents (the embed gate's own) whose views keep their user id and whose modified flag is read.
 */
export function parseDocumentsReply(text: string, keyOf: DocKeyFn = normaliseWopiSrc, keepUserIdsOf: (docKey: string) => boolean = () => false): SampleDoc[] | null {
  if (typeof text !== "string" || !text.startsWith("documents ")) return null;
  const userIds: string[] = [];
  const body = text
    .slice("documents ".length)
    .replace(NAME_FIELDS, (_m, field: string, value: string) => (field === "userId" ? `"userId":"#${userIds.push(value) - 1}"` : '"userName":""'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isObject(parsed) || !Array.isArray(parsed.documents)) return null;
  const out: SampleDoc[] = [];
  for (const d of parsed.documents) {
    if (!isObject(d)) return null;
    let key: string | null = null;
    for (const cand of [d.docKey, d.wopiSrc]) {
      if (typeof cand !== "string" || !cand) continue;
      let v = cand;
      try {
        if (!/^https?:\/\//i.test(v)) v = decodeURIComponent(v);
      } catch {
        continue;
      }
      key = keyOf(v);
      if (key) break;
    }
    const pid = typeof d.pid === "number" || typeof d.pid === "string" ? String(d.pid) : "";
    if (!key) key = `pid:${pid || out.length}`;
    if (d.views !== undefined && !Array.isArray(d.views)) return null;
    const views: unknown[] = d.views ?? [];
    const editSessions: string[] = [];
    const users: { userId: string; readonly: boolean }[] = [];
    let readonly = 0;
    for (const [i, v] of views.entries()) {
      if (!isObject(v)) return null;
      const sid = typeof v.sessionid === "string" || typeof v.sessionid === "number" ? String(v.sessionid) : "";
      const ro = truthy(v.readonly);
      if (ro) readonly++;
      else editSessions.push(`${pid}/${sid || `#${i}`}`);
      const ref = typeof v.userId === "string" ? /^#(\d+)$/.exec(v.userId) : null;
      users.push({ userId: ref ? (userIds[Number(ref[1])] ?? "") : "", readonly: ro });
    }
    const doc: SampleDoc = { docKey: key, editSessions, readonly };
    // User ids only for the gate's own documents; never for an outside host's.
    if (keepUserIdsOf(key)) Object.assign(doc, { views: users, modified: d.modified === "Yes" || d.modified === true });
    out.push(doc);
  }
  return out;
}

export class EdsrvSampler {
  state: EdsrvState = "down";
  /** The editing server's version and its office engine's, as /svc/status shows them (upstream.edsrv_version). */
  version = "";
  private serverVersion = "";
  private engineVersion = "";
  private ws: WebSocket | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private soon: ReturnType<typeof setTimeout> | null = null;
  private awaiting: number | null = null;
  private stopped = true;
  private connecting: Promise<void> | null = null;
  private refreshing: Promise<EdsrvState> | null = null;
  private readonly intervalMs: number;
  private readonly replyTimeoutMs: number;
  private readonly log: Logger;
  /** Resolves waiters after each applied sample (tests, start-up). */
  private sampleWaiters: (() => void)[] = [];
  samples = 0;

  constructor(private readonly o: SamplerOptions) {
    this.intervalMs = o.intervalMs ?? SAMPLE_INTERVAL_MS;
    this.replyTimeoutMs = o.replyTimeoutMs ?? Math.min(5000, this.intervalMs);
    this.log = o.logger.child({ component: "sampler" });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.startConnect();
  }

  /**
   * A sample taken now rather than the last one (the doctor's look, `GET /svc/healthz?edsrv=fresh`):
   * a channel that is up is asked at once; one that is down is tried again at once instead of at
   * its next retry (an editing server that started after the gate's last try). Resolves with the
   * state after that sample or failed try, or as it stands after `timeoutMs`. Callers at the same
   * time share one.
   */
  refresh(timeoutMs: number): Promise<EdsrvState> {
    if (this.stopped) return Promise.resolve(this.state);
    this.refreshing ??= this.takeFreshSample(timeoutMs).finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async takeFreshSample(timeoutMs: number): Promise<EdsrvState> {
    const sampled = this.nextSample();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)));
    const attempt = (async () => {
      if (this.connecting) await this.connecting;
      if (this.stopped) return;
      if (this.ws?.readyState === WebSocket.OPEN) this.request();
      else if (!this.ws) {
        if (this.retry) clearTimeout(this.retry);
        this.retry = null;
        await this.startConnect();
        if (!this.ws) return; // the try failed: its state is the answer
      }
      await sampled;
    })();
    try {
      await Promise.race([attempt, bound]);
    } finally {
      clearTimeout(timer);
    }
    return this.state;
  }

  private startConnect(): Promise<void> {
    const p = this.connect().finally(() => {
      if (this.connecting === p) this.connecting = null;
    });
    this.connecting = p;
    return p;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry);
    if (this.soon) clearTimeout(this.soon);
    this.timer = this.retry = this.soon = null;
    try {
      this.ws?.close();
    } catch {
      // already closed
    }
    this.ws = null;
  }

  /** Resolves after the next applied sample. */
  nextSample(): Promise<void> {
    return new Promise((r) => this.sampleWaiters.push(r));
  }

  private setState(s: EdsrvState, why?: string) {
    if (s !== this.state) this.log[s === "ok" ? "info" : "warn"]("edsrv_admin_state", { state: s, reason: why });
    this.state = s;
  }

  private scheduleRetry() {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.startConnect();
    }, this.intervalMs);
  }

  private async login(): Promise<string | null> {
    const auth = Buffer.from(`${this.o.user}:${this.o.password}`).toString("base64");
    let res: Response;
    try {
      res = await fetch(`${this.o.baseUrl}/browser/dist/admin/admin.html`, {
        headers: { Authorization: `Basic ${auth}` },
        redirect: "manual",
        signal: AbortSignal.timeout(this.replyTimeoutMs),
      });
    } catch (err) {
      this.setState("down", (err as Error).name);
      return null;
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      this.setState("auth_failed", `http_${res.status}`);
      return null;
    }
    if (!res.ok) {
      await res.body?.cancel();
      this.setState("down", `http_${res.status}`);
      return null;
    }
    const cookies = res.headers.getSetCookie?.() ?? [res.headers.get("set-cookie") ?? ""];
    for (const c of cookies) {
      const m = /(?:^|;\s*)jwt=([^;]+)/.exec(c);
      if (m) {
        await res.body?.cancel();
        return m[1]!;
      }
    }
    // Collabora also embeds the token in the page.
    const html = await res.text();
    const m = /jwtToken\s*=\s*['"]([^'"]+)['"]|data-jwt="([^"]+)"/.exec(html);
    if (m) return (m[1] ?? m[2])!;
    this.setState("down", "no_token");
    return null;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    if (!this.o.password) {
      // An empty password never authenticates (Collabora rejects it too).
      this.setState("auth_failed", "no_password");
      this.scheduleRetry();
      return;
    }
    const jwt = await this.login();
    if (this.stopped) return;
    if (!jwt) return this.scheduleRetry();
    const base = new URL(this.o.baseUrl);
    const wsUrl = `${base.protocol === "https:" ? "wss:" : "ws:"}//${base.host}${this.o.adminWsPath}`;
    let ws: WebSocket;
    try {
      ws = new WebSocket(wsUrl, { headers: { Origin: base.origin } } as unknown as string[]);
    } catch (err) {
      this.setState("down", (err as Error).name);
      return this.scheduleRetry();
    }
    this.ws = ws;
    let authed = false;
    ws.onopen = () => {
      ws.send(`auth jwt=${encodeURIComponent(jwt)}`);
      ws.send("version");
      ws.send("subscribe adddoc rmdoc modifications");
      this.request();
      this.timer = setInterval(() => this.request(), this.intervalMs);
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data !== "string") return;
      const text = ev.data;
      if (text === "InvalidAuthToken" || text === "NotAuthenticated") {
        this.setState("auth_failed", text);
        ws.close();
        return;
      }
      if (text.startsWith("documents ")) {
        const docs = parseDocumentsReply(text, this.o.keyOf, this.o.ownDocument);
        this.awaiting = null;
        if (!docs) {
          this.log.warn("edsrv_admin_unreadable_documents", {});
          return;
        }
        authed = true;
        this.setState("ok");
        const at = this.o.clock.now();
        this.o.counter.applySample(docs, at);
        try {
          this.o.onSample?.(docs, at);
        } catch (e) {
          this.log.error("sample_hook_failed", { error: e as Error });
        }
        this.samples++;
        for (const w of this.sampleWaiters.splice(0)) w();
        return;
      }
      if (text.startsWith("svc_input_lag ")) {
        const lag = parseInputLagReply(text);
        if (lag) this.o.onInputLag?.(lag, this.o.clock.now());
        return;
      }
      if (text.startsWith("coolserver ")) {
        try {
          const v = JSON.parse(text.slice(11)) as { Version?: string; Hash?: string };
          this.serverVersion = String(v.Version ?? "");
          this.version = editingServerVersion(this.serverVersion, this.engineVersion);
        } catch {
          // keep the previous version
        }
        return;
      }
      if (text.startsWith("lokitversion ")) {
        // The office engine behind the editing server (Collabora's core, or our LibreOffice).
        try {
          const v = JSON.parse(text.slice(13)) as { ProductName?: string; ProductVersion?: string; ProductExtension?: string };
          this.engineVersion = [v.ProductName, `${v.ProductVersion ?? ""}${v.ProductExtension ?? ""}`].filter(Boolean).join(" ");
          this.version = editingServerVersion(this.serverVersion, this.engineVersion);
        } catch {
          // keep the previous version
        }
        return;
      }
      if (text.startsWith("adddoc ") || text.startsWith("rmdoc ") || text.startsWith("modifications ")) this.requestSoon();
    };
    ws.onclose = () => {
      if (this.ws === ws) this.ws = null;
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      this.awaiting = null;
      if (this.state !== "auth_failed" || authed) this.setState("down", "closed");
      this.scheduleRetry();
    };
    ws.onerror = () => {
      // onclose follows
    };
  }

  private request() {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    const now = Date.now();
    if (this.awaiting !== null && now - this.awaiting > this.replyTimeoutMs) {
      // No answer to the previous request: the channel is dead.
      this.setState("down", "no_reply");
      ws.close();
      return;
    }
    if (this.awaiting === null) this.awaiting = now;
    ws.send("documents");
    if (this.o.onInputLag) ws.send("svc_input_lag");
    // Until the editing server names its engine: ours knows it once its first kit has started.
    if (!this.engineVersion) ws.send("version");
  }

  private requestSoon() {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      this.request();
    }, 200);
  }
}

/** "1.0.0 (LibreOffice 25.2.3.2)": the editing server's own version, then the engine it runs when it says. */
export function editingServerVersion(server: string, engine: string): string {
  return engine ? `${server} (${engine})`.trim() : server;
}
