// Builds the embed gate from the configuration: the database and version files in
// <data>/embed/, documents, sessions, the WOPI host, download links, save callbacks, presence
// and retention. server.ts wires it to admission (the cap for embedded sessions) and to the
// admin-channel sampler (who is in which document, when a document is closed).

import { mkdirSync } from "node:fs";
import path from "node:path";
import type { CallbackSender } from "../callbacks/sender";
import type { Clock } from "../clock";
import type { Config } from "../config";
import type { Decision } from "../gate/admission";
import type { SampleDoc } from "../gate/counting";
import type { DocKeyFn } from "../editing-uri";
import { ID_PATTERNS } from "../ids";
import type { Logger } from "../log";
import { checkTarget, safeFetch } from "../net/safe-fetch";
import type { AllowList } from "../net/ssrf";
import type { DemoTargets } from "../demo/local-targets";
import { EditorDiscovery } from "./discovery-client";
import { EmbedDocuments, type SourceDownload } from "./documents";
import { DownloadLinks } from "./downloads";
import { VersionFiles } from "./files";
import { DocumentPresence } from "./presence";
import { SaveCallbacks } from "./save-callbacks";
import { LinkSigner, accessTokenHash, loadOrCreateKey } from "./secrets";
import { EmbedSessions } from "./sessions";
import { EmbedStore } from "./store";
import { WopiHost } from "./wopi-host";

const SOURCE_TIMEOUT_MS = 60_000;
const RETENTION_SWEEP_MS = 10 * 60_000;

export interface EmbedGateOptions {
  config: Config;
  clock: Clock;
  logger: Logger;
  sender: CallbackSender;
  fetchAllow: AllowList;
  /** The gate's own address as the editing server reaches it: the first entry of alias group 1. */
  wopiBase: string;
  keyOf: DocKeyFn;
  admitEdit: (docKey: string, token: string) => Decision;
  /** A sample older than this is not fresh: 3 sample periods. */
  staleAfterMs: number;
  /** How often the editing server is sampled: at most this long, deliveries left pending wait for the first sample at a start. */
  sampleIntervalMs: number;
  /** Tests shorten the spec's 30 s; never an operator setting. */
  closedAfterMs?: number;
  download?: SourceDownload;
  /** Development: the demo's own URLs reached on the gate's listener (app/demo/local-targets.ts). */
  localTargets?: Pick<DemoTargets, "download" | "checkCallbackUrl">;
}

export type EmbedGate = ReturnType<typeof createEmbedGate>;

export function createEmbedGate(o: EmbedGateOptions) {
  const { config, clock } = o;
  const logger = o.logger.child({ component: "embed" });
  const root = path.join(config.dataDir, "embed");
  mkdirSync(root, { recursive: true });
  const store = new EmbedStore(path.join(root, "embed.sqlite"));
  const files = new VersionFiles(root);
  const signer = new LinkSigner(loadOrCreateKey(path.join(root, "link-key")));
  const wopiBase = o.wopiBase.replace(/\/+$/, "");
  const wopiSrc = (docId: string) => `${wopiBase}/svc/wopi/files/${docId}`;
  const ownPrefix = o.keyOf(wopiSrc(""))!;
  const docIdOfKey = (docKey: string): string | null => {
    if (!docKey.startsWith(ownPrefix)) return null;
    const id = docKey.slice(ownPrefix.length);
    return ID_PATTERNS.doc.test(id) ? id : null;
  };

  const safeDownload: SourceDownload = async (url, toFile, maxBytes) => {
    await safeFetch(url, { toFile, maxBytes, timeoutMs: SOURCE_TIMEOUT_MS, allow: o.fetchAllow, followRedirects: 5, requireOk: true, userAgent: "SVC-Gate/1.0" });
  };
  const download: SourceDownload = o.download ?? (o.localTargets ? o.localTargets.download(safeDownload) : safeDownload);
  const safeCheck = (url: string) => checkTarget(url, o.fetchAllow);
  const checkCallbackUrl = o.localTargets ? o.localTargets.checkCallbackUrl(safeCheck) : safeCheck;
  const documents = new EmbedDocuments({ store, files, download, clock, logger, maxFileBytes: config.embed.maxFileMb * 1024 * 1024 });
  const links = new DownloadLinks({ store, documents, signer, clock, publicUrl: config.publicUrl, lifetimeMs: config.embed.retainHours * 3600_000 });

  // Presence and callbacks refer to each other through these two functions.
  let usersOf: (docId: string) => { id: string; name: string }[] = () => [];
  const callbacks = new SaveCallbacks({
    store,
    sender: o.sender,
    secret: config.embed.callbackSecret,
    clock,
    logger,
    downloadUrl: (docId, v) => links.url(docId, v),
    usersOf: (docId) => usersOf(docId),
  });
  const presence = new DocumentPresence({
    store,
    clock,
    logger,
    docIdOfKey,
    staleAfterMs: o.staleAfterMs,
    closedAfterMs: o.closedAfterMs,
    onClosed: (doc) => void callbacks.closed(doc, store.version(doc.doc_id, doc.version)!),
  });
  const concreteOrigins = config.embed.allowedOrigins.filter((x) => x !== "*");
  const wopi = new WopiHost({
    store,
    documents,
    callbacks,
    presence,
    clock,
    logger,
    defaultPostMessageOrigin: concreteOrigins.length === 1 ? concreteOrigins[0]!.replace(/\/+$/, "") : null,
  });
  const discovery = new EditorDiscovery({ baseUrl: config.online.url, clock, logger });
  /**
   * The browser needs 300-500 ms after the session's answer to request the editor page, which is
   * when the editing server would start loading the document. Ours starts on the page's POST, so
   * the gate posts it at once (to the configured editing server, the token in the body).
   */
  const warmStart = (editorUrl: string, form: { access_token: string; access_token_ttl: number }) => {
    void discovery.preloadSupported().then((ok) => {
      if (!ok) return;
      const body = new URLSearchParams({ access_token: form.access_token, access_token_ttl: String(form.access_token_ttl) });
      return fetch(`${config.online.url}${editorUrl}`, { method: "POST", body, redirect: "manual", signal: AbortSignal.timeout(5000) }).then((r) => r.body?.cancel());
    }).catch((e) => logger.debug("embed_warm_start_failed", { error: e instanceof Error ? e.message : String(e) }));
  };
  const sessions = new EmbedSessions({
    store,
    documents,
    discovery,
    warmStart,
    callbacks,
    presence,
    clock,
    logger,
    auth: { jwtSecret: config.embed.jwtSecret, allowUnsigned: config.embed.allowUnsigned },
    sessionTtlMs: config.embed.sessionTtlMinutes * 60_000,
    admitEdit: o.admitEdit,
    checkCallbackUrl,
    wopiSrc,
    docKey: (docId) => o.keyOf(wopiSrc(docId))!,
    downloadUrl: (docId, v) => links.url(docId, v),
  });
  usersOf = (docId) => sessions.usersOf(docId);

  const retainMs = config.embed.retainHours * 3600_000;
  /** Closed documents past retention: files and rows go. */
  const sweep = (now = clock.now()): number => {
    let n = 0;
    for (const doc of store.expiredDocuments(now - retainMs)) {
      documents.purge(doc);
      n++;
    }
    if (n) logger.info("embed_retention_swept", { documents: n });
    return n;
  };
  let sweeper: ReturnType<typeof setInterval> | null = null;
  let stopped = false;

  /** The live session an access token belongs to, for one of our documents. */
  const liveSession = (docKey: string, token: string) => {
    const docId = docIdOfKey(docKey);
    const s = docId ? store.sessionByTokenHash(accessTokenHash(token)) : null;
    return s && s.doc_id === docId && s.state === "active" && clock.now() < s.expires_at ? s : null;
  };

  const allowed = new Set(config.embed.allowedOrigins.map((x) => x.replace(/\/+$/, "").toLowerCase()));
  return {
    enabled: config.embed.enabled,
    store,
    sessions,
    wopi,
    links,
    presence,
    callbacks,
    documents,
    sweep,
    /** CORS and session creation: no Origin (a server) is accepted; a browser's must be listed (or `*`). */
    originAllowed(origin: string | null | undefined): boolean {
      if (!origin) return true;
      return allowed.has("*") || allowed.has(origin.toLowerCase());
    },
    ownDocument: (docKey: string) => docIdOfKey(docKey) !== null,
    /** The mode of the live session an access token belongs to, for one of our documents. */
    embeddedSession(docKey: string, token: string): "edit" | "view" | null {
      return liveSession(docKey, token)?.mode ?? null;
    },
    /** At the cap when its editor connects: the edit session opens read-only, limited (spec rule 6). */
    downgradeEmbedded(docKey: string, token: string, limit: { limit: number; current: number; edition: string }): void {
      const s = liveSession(docKey, token);
      if (!s || s.mode !== "edit") return;
      store.setMode(s.session_id, "view", "edit", true, clock.now());
      logger.info("embed_session_mode", { session_id: s.session_id, mode: "view", requested_mode: "edit", limited: true, reason: "limit_at_connect", limit: limit.limit, current: limit.current });
    },
    onSample: (docs: SampleDoc[], at: number) => presence.applySample(docs, at),
    counts: () => ({ open_documents: store.countOpenDocuments(), sessions: store.countLiveSessions(clock.now()) }),
    start(): void {
      sweep();
      // A delivery a previous run left pending carries `users`, who has the document open when it
      // is sent (the spec): the gate knows that from its first sample of the editing server, a
      // moment after it starts. A retry due at once after a restart was sent before it, naming
      // nobody while the person was still in the document (gate-crash.e2e.test.ts, on a busy machine).
      void presence.sampled(o.sampleIntervalMs).then(() => {
        if (!stopped) callbacks.resume();
      });
      presence.start();
      sweeper = setInterval(() => sweep(), RETENTION_SWEEP_MS);
      sweeper.unref?.();
    },
    stop(): void {
      stopped = true;
      presence.stop();
      if (sweeper) clearInterval(sweeper);
      store.close();
    },
  };
}
