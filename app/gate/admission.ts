// Connection admission (spec "Connection admission", counting rules 3, 6, 7): the decision behind
// /svc/auth. The proxy asks twice for an editor: at the page (stage `page`, only warns early: the
// user gets the limit page) and at the document WebSocket (stage `ws`, the real admission, which
// counts the session as pending). See docs/gate-admission.md for how a session is identified.

import { createHash } from "node:crypto";
import type { Clock } from "../clock";
import type { Logger } from "../log";
import { parseHttpUrl } from "../net/http-url";
import { safeFetch } from "../net/safe-fetch";
import type { AllowList } from "../net/ssrf";
import type { ConnectionCounter } from "./counting";
import type { InputLag } from "./editor-load";
import { normaliseWopiSrc, parsePageUri, parseWsUri, requestsReadOnly, type DocKeyFn, type EditTarget } from "../editing-uri";

export type Stage = "page" | "ws";

export type AdmitReason = "readonly" | "under_cap" | "grace" | "reconnect" | "not_enforcing" | "not_an_editor_page" | "embedded";
export type RefuseReason = "limit" | "unknown_websocket";

export type Decision =
  | { admit: true; reason: AdmitReason; docKey?: string }
  | { admit: false; reason: RefuseReason; limit: number; current: number; edition: string };

/** CheckFileInfo on an outside WOPI host: UserCanWrite, or null when it could not be read. */
export type UserCanWrite = (wopiSrc: string, token: string) => Promise<boolean | null>;

export interface AdmissionOptions {
  counter: ConnectionCounter;
  clock: Clock;
  edition: () => string;
  /** SVC_WOPI_ALLOWED_HOSTS: origins (scheme://host[:port]) or host names; empty = never call out. */
  wopiAllowedHosts: string[];
  userCanWrite?: UserCanWrite;
  /** Document key of a WOPISrc with the alias groups applied (documentKeyer); default: no groups. */
  keyOf?: DocKeyFn;
  /** The gate's own WOPI documents (embedded sessions): admitted when their session was created. */
  ownDocument?: (docKey: string) => boolean;
  /** The mode of the embed session an access token belongs to, for one of our documents; null when none. */
  embeddedSession?: (docKey: string, token: string) => "edit" | "view" | null;
  /**
   * An embedded edit session that finds the cap full when its editor connects (its seat was not
   * taken in time): it is switched to read-only with `limited` (spec rule 6), so the editing
   * server's CheckFileInfo gives the view no write permission.
   */
  downgradeEmbedded?: (docKey: string, token: string, limit: { limit: number; current: number; edition: string }) => void;
  /**
   * The editing server's input lag when it is saturated, else null (editor-load.ts): then no new
   * editor is admitted below the cap, so new editors do not slow the people typing. Given only when
   * the operator set SVC_GATE_REFUSE_WHEN_SATURATED (outside v1: spec rule 3 admits below the cap).
   */
  saturation?: (now: number) => InputLag | null;
  logger?: Logger;
}

const CFI_CACHE_MS = 60_000;

export const tokenHash = (token: string) => createHash("sha256").update(token).digest("base64url").slice(0, 22);

/** Whether a WOPISrc's origin is listed in SVC_WOPI_ALLOWED_HOSTS. */
export function wopiHostAllowed(allowed: string[], wopiSrc: string): boolean {
  let u: URL;
  try {
    u = new URL(wopiSrc);
  } catch {
    return false;
  }
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  for (const raw of allowed) {
    const entry = raw.trim().toLowerCase().replace(/\/+$/, "");
    if (!entry) continue;
    if (entry.includes("://")) {
      try {
        const e = new URL(entry);
        const ePort = e.port || (e.protocol === "https:" ? "443" : "80");
        if (e.protocol === u.protocol && e.hostname === u.hostname.toLowerCase() && ePort === port) return true;
      } catch {
        // not a URL: ignore the entry
      }
    } else if (entry === u.hostname.toLowerCase() || entry === `${u.hostname.toLowerCase()}:${port}`) return true;
  }
  return false;
}

export class Admission {
  /** Tokens (hashed) admitted per document, with the time last seen: reconnect detection. */
  private known = new Map<string, Map<string, number>>();
  /**
   * Seats of embedded edit sessions (token hash → document, time admitted): the admission made
   * when the session was created or switched to edit, counted as pending. A seat is taken by the
   * session's first WebSocket while its pending entry lives (60 s); a session that connects later
   * (a "banked" session) is admitted as a new editing session then, cap included.
   */
  private seats = new Map<string, { docKey: string; at: number }>();
  private cfiCache = new Map<string, { at: number; canWrite: boolean | null }>();

  constructor(private readonly o: AdmissionOptions) {}

  private now() {
    return this.o.clock.now();
  }

  /** Sessions remembered for reconnect detection (for the benchmark and tests). */
  trackedSessions(): number {
    let n = 0;
    for (const m of this.known.values()) n += m.size;
    return n;
  }

  private remember(docKey: string, token: string | null, now: number) {
    if (!token) return;
    let m = this.known.get(docKey);
    if (!m) this.known.set(docKey, (m = new Map()));
    m.set(tokenHash(token), now);
  }

  /** A session seen before for this document, whose document is still open or within its grace. */
  private isReconnect(t: EditTarget, now: number): boolean {
    if (!t.token) return false;
    const m = this.known.get(t.docKey);
    const seen = m?.get(tokenHash(t.token));
    if (seen === undefined) return false;
    const c = this.o.counter;
    if (c.openEditViews(t.docKey) > 0 || c.graceSlots(t.docKey, now) > 0) return true;
    return now - seen < c.reconnectGraceMs;
  }

  /** Forgets sessions of documents that are neither open nor recently admitted. */
  prune(now = this.now()): void {
    const open = this.o.counter.trackedDocuments();
    for (const [doc, m] of this.known) {
      if (open.has(doc)) continue;
      for (const [h, at] of m) if (now - at >= this.o.counter.reconnectGraceMs) m.delete(h);
      if (!m.size) this.known.delete(doc);
    }
    for (const [k, v] of this.cfiCache) if (now - v.at >= CFI_CACHE_MS) this.cfiCache.delete(k);
    for (const [k, v] of this.seats) if (now - v.at >= this.o.counter.pendingTtlMs) this.seats.delete(k);
  }

  private takeSeat(docKey: string, token: string, now: number): boolean {
    const h = tokenHash(token);
    const seat = this.seats.get(h);
    if (!seat) return false;
    this.seats.delete(h);
    return seat.docKey === docKey && now - seat.at < this.o.counter.pendingTtlMs;
  }

  /** Read-only by CheckFileInfo: only at the cap, only for allowed outside hosts, never for our own. */
  private async readOnlyByHost(t: EditTarget, now: number): Promise<boolean> {
    if (!t.token || !this.o.userCanWrite || this.o.ownDocument?.(t.docKey)) return false;
    if (!wopiHostAllowed(this.o.wopiAllowedHosts, t.wopiSrc)) return false;
    const key = `${t.docKey} ${tokenHash(t.token)}`;
    let hit = this.cfiCache.get(key);
    if (!hit || now - hit.at >= CFI_CACHE_MS) {
      hit = { at: now, canWrite: await this.o.userCanWrite(t.wopiSrc, t.token) };
      this.cfiCache.set(key, hit);
    }
    return hit.canWrite === false;
  }

  /** A refusal always reports the effective cap, also when saturation refused below it. */
  private refuse(reason: RefuseReason): Decision {
    const { current, pending, limit } = this.o.counter.load();
    return { admit: false, reason, limit, current: current + pending, edition: this.o.edition() };
  }

  /**
   * A new editing session of a document: admitted when counting does not enforce, under the cap,
   * or on one of the document's reconnect grace slots; counted as pending once admitted.
   */
  private admitNew(docKey: string, now: number, count: boolean): Decision | null {
    const c = this.o.counter;
    const busy = this.o.saturation?.(now);
    if (busy) {
      if (count) this.o.logger?.info("admission_saturated", { p95_ms: busy.p95Ms, samples: busy.samples });
      return null;
    }
    if (!c.enforcing(now)) {
      if (count) c.addPending(docKey, now);
      return { admit: true, reason: "not_enforcing", docKey };
    }
    const { current, pending, limit } = c.load(now);
    if (current + pending < limit) {
      if (count) c.addPending(docKey, now);
      return { admit: true, reason: "under_cap", docKey };
    }
    return null;
  }

  private takeGraceSlot(docKey: string, now: number, count: boolean): Decision | null {
    const c = this.o.counter;
    if (!(count ? c.takeGrace(docKey, now) : c.graceSlots(docKey, now) > 0)) return null;
    if (count) c.addPending(docKey, now);
    return { admit: true, reason: "grace", docKey };
  }

  /**
   * An embedded session asking to edit (spec rule 6: at the cap it opens read-only instead). The
   * decision is made once, when the session is created or switched to edit; its editor page and
   * WebSocket are then admitted as an open session.
   */
  admitEmbedded(docKey: string, token: string): Decision {
    const now = this.now();
    const d = this.admitNew(docKey, now, true) ?? this.takeGraceSlot(docKey, now, true) ?? this.refuse("limit");
    if (d.admit) this.seats.set(tokenHash(token), { docKey, at: now });
    return d;
  }

  /**
   * The WebSocket of an embedded session in mode edit. Its seat (taken at creation) admits its
   * first connection; a later one is a reconnect of a view the gate admitted (the editing server
   * keeps one editing view per access token: the new connection replaces the old view, so the
   * count does not grow); anything else is a new editing session now, and at the cap the session
   * opens read-only (spec rule 6) instead of being refused.
   */
  private admitEmbeddedConnection(t: EditTarget & { token: string }, now: number): Decision {
    if (this.takeSeat(t.docKey, t.token, now) || this.isReconnect(t, now)) {
      this.remember(t.docKey, t.token, now);
      return { admit: true, reason: "embedded", docKey: t.docKey };
    }
    const admitted = this.admitNew(t.docKey, now, true) ?? this.takeGraceSlot(t.docKey, now, true);
    if (admitted) {
      this.remember(t.docKey, t.token, now);
      return admitted;
    }
    const refused = this.refuse("limit");
    if (!refused.admit) this.o.downgradeEmbedded?.(t.docKey, t.token, { limit: refused.limit, current: refused.current, edition: refused.edition });
    this.o.logger?.info("embedded_session_downgraded", { reason: "limit" });
    return { admit: true, reason: "readonly", docKey: t.docKey };
  }

  async decide(stage: Stage, rawUri: string): Promise<Decision> {
    const now = this.now();
    const keyOf = this.o.keyOf ?? normaliseWopiSrc;
    const t = stage === "ws" ? parseWsUri(rawUri, keyOf) : parsePageUri(rawUri, keyOf);
    if (!t) {
      // Rule 7: a WebSocket the gate cannot read is always refused; a page it cannot read is left
      // to the editing server (this stage only warns).
      return stage === "ws" ? this.refuse("unknown_websocket") : { admit: true, reason: "not_an_editor_page" };
    }
    if (requestsReadOnly(t)) return { admit: true, reason: "readonly", docKey: t.docKey };
    // Our own documents: the session was admitted (or opened read-only) when it was created. The
    // page carries its token in the form body, which this check never sees.
    if (this.o.ownDocument?.(t.docKey)) {
      if (stage === "page") return { admit: true, reason: "embedded", docKey: t.docKey };
      const mode = t.token ? (this.o.embeddedSession?.(t.docKey, t.token) ?? null) : null;
      if (mode === "view") return { admit: true, reason: "readonly", docKey: t.docKey };
      if (mode === "edit") return this.admitEmbeddedConnection(t as EditTarget & { token: string }, now);
    }
    const counted = stage === "ws";
    const admitted = this.admitNew(t.docKey, now, counted);
    if (admitted) {
      if (counted) this.remember(t.docKey, t.token, now);
      return admitted;
    }
    // At the cap: reconnects of a known session, then the document's grace slots, then read-only
    // sessions proven by the WOPI host; everything else is refused.
    if (this.isReconnect(t, now)) {
      if (counted) this.remember(t.docKey, t.token, now);
      return { admit: true, reason: "reconnect", docKey: t.docKey };
    }
    const grace = this.takeGraceSlot(t.docKey, now, counted);
    if (grace) {
      if (counted) this.remember(t.docKey, t.token, now);
      return grace;
    }
    if (await this.readOnlyByHost(t, now)) return { admit: true, reason: "readonly", docKey: t.docKey };
    return this.refuse("limit");
  }
}

/**
 * The host names of SVC_WOPI_ALLOWED_HOSTS entries, for the SSRF allow list of the CheckFileInfo
 * call: an operator who lists a file-sync host there allows the gate to reach it, which is usually
 * on the internal network. Entries that are no origin or host name are left out.
 */
export function wopiAllowedHostNames(allowed: string[]): string[] {
  const names: string[] = [];
  for (const raw of allowed) {
    const entry = raw.trim();
    const u = entry ? parseHttpUrl(entry.includes("://") ? entry : `http://${entry}`) : null;
    if (u) names.push(u.hostname.replace(/^\[|\]$/g, ""));
  }
  return names;
}

const CFI_MAX_BYTES = 1024 * 1024;

/**
 * CheckFileInfo (GET <WOPISrc>?access_token=…, also as a Bearer header, as Collabora sends it) on
 * an outside WOPI host, through the SSRF-safe client: the address is resolved once, checked
 * against `allow` and dialled as checked; redirects are not followed (the token would go with
 * them). UserCanWrite, or null when the answer could not be read (then the session is not taken
 * for read-only).
 */
export function checkFileInfoFetcher(allow: AllowList, timeoutMs = 2000): UserCanWrite {
  return async (wopiSrc, token) => {
    const url = new URL(wopiSrc);
    url.search = "";
    url.searchParams.set("access_token", token);
    try {
      const res = await safeFetch(url, {
        allow,
        maxBytes: CFI_MAX_BYTES,
        timeoutMs,
        followRedirects: 0,
        requireOk: true,
        userAgent: "SVC-Gate/1.0",
        headers: { Accept: "application/json", Authorization: `Bearer ${token}` },
      });
      const info: unknown = JSON.parse(new TextDecoder().decode(res.body));
      return typeof info === "object" && info !== null && (info as { UserCanWrite?: unknown }).UserCanWrite === true;
    } catch {
      return null;
    }
  };
}
