// The editing server's discovery, read by the gate to build editor_url (spec: "the /browser/<hash>/
// segment changes with the server version; discovery must be re-read; caching for a few minutes
// suffices"). Works against our editing server and a real Collabora Online alike: the action's
// urlsrc is taken as published, only its path and query are kept (editor_url is relative to the
// public origin), and WOPISrc, lang and closebutton are appended.

import { XMLParser } from "fast-xml-parser";
import type { Clock } from "../clock";
import { ServiceError } from "../errors";
import type { Logger } from "../log";

export const DISCOVERY_TTL_MS = 5 * 60_000;
const FETCH_TIMEOUT_MS = 5000;

/** ext → action name (edit, view, …) → urlsrc */
export type DiscoveryActions = Map<string, Map<string, string>>;

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Reads the actions of a discovery document; throws when it is not one. */
export function parseDiscovery(xml: string): DiscoveryActions {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", processEntities: true });
  const doc = parser.parse(xml) as { "wopi-discovery"?: { "net-zone"?: unknown } };
  const zones = asArray(doc["wopi-discovery"]?.["net-zone"] as Record<string, unknown> | Record<string, unknown>[] | undefined);
  if (!zones.length) throw new Error("no wopi-discovery/net-zone element");
  const out: DiscoveryActions = new Map();
  for (const zone of zones) {
    for (const app of asArray(zone.app as Record<string, unknown>[] | undefined)) {
      for (const action of asArray(app.action as Record<string, string>[] | undefined)) {
        const ext = String(action.ext ?? "").toLowerCase();
        if (!ext || !action.name || !action.urlsrc) continue;
        const byName = out.get(ext) ?? new Map<string, string>();
        if (!byName.has(action.name)) byName.set(action.name, action.urlsrc);
        out.set(ext, byName);
      }
    }
  }
  if (!out.size) throw new Error("no action with an extension");
  return out;
}

export interface EditorUrlParams {
  wopiSrc: string;
  lang: string;
  closeButton: boolean;
  readOnly: boolean;
}

/** The editor page path relative to the public origin, with the query the spec names. */
export function editorUrl(urlsrc: string, p: EditorUrlParams): string {
  const u = new URL(urlsrc);
  let url = u.pathname + u.search;
  if (!url.includes("?")) url += "?";
  else if (!url.endsWith("?") && !url.endsWith("&")) url += "&";
  url += `WOPISrc=${encodeURIComponent(p.wopiSrc)}&lang=${encodeURIComponent(p.lang)}&closebutton=${p.closeButton ? 1 : 0}`;
  // Collabora's client opens read-only at once with permission=readonly (the server decides from UserCanWrite anyway).
  if (p.readOnly) url += "&permission=readonly";
  return url;
}

export class EditorDiscovery {
  private cached: { at: number; actions: DiscoveryActions } | null = null;
  private inflight: Promise<DiscoveryActions> | null = null;
  private preload: { at: number; answer: Promise<boolean> } | null = null;

  constructor(
    private readonly o: { baseUrl: string; clock: Clock; logger: Logger; ttlMs?: number; fetchImpl?: typeof fetch },
  ) {}

  private async load(): Promise<DiscoveryActions> {
    const res = await (this.o.fetchImpl ?? fetch)(`${this.o.baseUrl}/hosting/discovery`, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: "manual" });
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Error(`discovery answered ${res.status}`);
    }
    return parseDiscovery(await res.text());
  }

  async actions(): Promise<DiscoveryActions> {
    const now = this.o.clock.now();
    if (this.cached && now - this.cached.at < (this.o.ttlMs ?? DISCOVERY_TTL_MS)) return this.cached.actions;
    if (!this.inflight) {
      this.inflight = this.load()
        .then((actions) => {
          this.cached = { at: this.o.clock.now(), actions };
          return actions;
        })
        .finally(() => {
          this.inflight = null;
        });
    }
    try {
      return await this.inflight;
    } catch (e) {
      this.o.logger.warn("discovery_unavailable", { error: e instanceof Error ? e.message : String(e) });
      throw new ServiceError("editor_unavailable", "Không đọc được discovery của máy chủ soạn thảo (GET /hosting/discovery): máy chủ soạn thảo có thể đang khởi động hoặc đã dừng; hãy thử lại sau.", {
        reason: e instanceof Error && e.name === "TimeoutError" ? "timeout" : "unreadable",
      });
    }
  }

  /**
   * Whether the editing server loads a document as soon as its editor page is requested (ours says
   * so in /hosting/capabilities; Collabora Online does not). An answer is kept as long as the
   * discovery; capabilities that cannot be read count as "no" and are asked for again next time.
   */
  async preloadSupported(): Promise<boolean> {
    const now = this.o.clock.now();
    if (this.preload && now - this.preload.at < (this.o.ttlMs ?? DISCOVERY_TTL_MS)) return this.preload.answer;
    const at = now;
    const answer = (this.o.fetchImpl ?? fetch)(`${this.o.baseUrl}/hosting/capabilities`, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: "manual" })
      .then(async (res) => {
        if (res.status !== 200) throw new Error(`capabilities answered ${res.status}`);
        return (await res.json())?.hasDocumentPreload === true;
      })
      .catch(() => {
        if (this.preload?.answer === answer) this.preload = null;
        return false;
      });
    this.preload = { at, answer };
    return answer;
  }

  /** urlsrc of the action for this extension (edit; view for read-only when published). */
  async urlsrc(ext: string, readOnly: boolean): Promise<string> {
    const byName = (await this.actions()).get(ext);
    const src = (readOnly ? byName?.get("view") : undefined) ?? byName?.get("edit") ?? byName?.get("view");
    if (!src) {
      throw new ServiceError("editor_unavailable", `Máy chủ soạn thảo không công bố trình soạn thảo cho loại tệp ${ext} trong discovery.`, { reason: "no_action", fileType: ext });
    }
    return src;
  }
}
