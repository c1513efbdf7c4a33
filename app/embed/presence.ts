// Who has each embedded document open, and when a document is closed, from the editing server's
// admin channel the gate already samples (the `documents` reply and the adddoc/rmdoc/modifications
// pushes that make the sampler ask again at once), as Collabora integrations do:
//   - users: the people with a view in the latest fresh sample;
//   - modified: the editing server holds unsaved changes;
//   - closed: no view for 30 consecutive seconds, and no exit save still pending (the document is
//     not listed as modified), and the document either had a view since it was opened or has no
//     live session left (a session created and never opened does not close its document while
//     it may still be opened; its 30 s count from when no session can open it any more).
// Nothing is decided without a fresh sample: with the admin channel down, documents stay open.

import type { Clock } from "../clock";
import type { SampleDoc } from "../gate/counting";
import type { Logger } from "../log";
import type { DocumentRow, EmbedStore } from "./store";

export const CLOSED_AFTER_MS = 30_000;

interface DocPresence {
  /** Since when no view was seen (sample time or later activity); null while views exist. */
  emptySince: number | null;
}

export interface PresenceOptions {
  store: EmbedStore;
  clock: Clock;
  logger: Logger;
  /** The doc_id of one of our own documents from an admin-channel document key; null for others. */
  docIdOfKey: (docKey: string) => string | null;
  /** A sample older than this is not fresh (3 sample periods, as for counting). */
  staleAfterMs: number;
  closedAfterMs?: number;
  onClosed: (doc: DocumentRow) => void;
}

export class DocumentPresence {
  private docs = new Map<string, SampleDoc>();
  private state = new Map<string, DocPresence>();
  private sampledAt: number | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly closedAfterMs: number;
  private firstSampleTaken!: () => void;
  /** Resolves at the first sample of the editing server this process takes. */
  private readonly firstSample = new Promise<void>((resolve) => (this.firstSampleTaken = resolve));

  constructor(private readonly o: PresenceOptions) {
    this.closedAfterMs = o.closedAfterMs ?? CLOSED_AFTER_MS;
  }

  /**
   * Resolves at the first sample of the editing server, or after `boundMs` when none comes (the
   * admin channel down: who has a document open cannot be known then).
   */
  sampled(boundMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
      timer.unref?.();
    });
    return Promise.race([this.firstSample, bound]).finally(() => clearTimeout(timer));
  }

  start(tickMs = 1000): void {
    this.timer ??= setInterval(() => this.tick(), tickMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private fresh(now: number): boolean {
    return this.sampledAt !== null && now - this.sampledAt < this.o.staleAfterMs;
  }

  /** A sample of the editing server's documents (every document, ours are picked out). */
  applySample(sample: SampleDoc[], at = this.o.clock.now()): void {
    const ours = new Map<string, SampleDoc>();
    for (const d of sample) {
      const id = this.o.docIdOfKey(d.docKey);
      if (!id) continue;
      const prev = ours.get(id);
      // Two entries for one document (two kits during a reload): views add up.
      ours.set(id, prev ? { ...prev, editSessions: [...prev.editSessions, ...d.editSessions], readonly: prev.readonly + d.readonly, views: [...(prev.views ?? []), ...(d.views ?? [])], modified: prev.modified || d.modified } : d);
    }
    this.docs = ours;
    this.sampledAt = at;
    this.firstSampleTaken();
    this.tick(at);
  }

  /** The editing server asked CheckFileInfo: a view is being opened, the document is not empty. */
  noteActivity(docId: string, at = this.o.clock.now()): void {
    const st = this.state.get(docId);
    if (st?.emptySince !== null && st?.emptySince !== undefined) st.emptySince = Math.max(st.emptySince, at);
  }

  private viewsOf(docId: string): number {
    const d = this.docs.get(docId);
    return d ? d.editSessions.length + d.readonly : 0;
  }

  tick(now = this.o.clock.now()): void {
    if (!this.fresh(now)) return;
    const open = this.o.store.openDocuments();
    const openIds = new Set(open.map((d) => d.doc_id));
    for (const id of this.state.keys()) if (!openIds.has(id)) this.state.delete(id);
    for (const doc of open) {
      let st = this.state.get(doc.doc_id);
      if (!st) this.state.set(doc.doc_id, (st = { emptySince: null }));
      if (this.viewsOf(doc.doc_id) > 0) {
        st.emptySince = null;
        if (!doc.view_seen) this.o.store.markViewSeen(doc.doc_id);
        continue;
      }
      st.emptySince ??= Math.max(this.sampledAt!, doc.opened_at);
      if (this.docs.get(doc.doc_id)?.modified) continue; // the exit save is still to come
      if (!doc.view_seen && this.o.store.countLiveSessions(now, doc.doc_id) > 0) {
        // Someone may still open it: its 30 s start when nobody can, not when it was first seen empty.
        st.emptySince = now;
        continue;
      }
      if (now - st.emptySince < this.closedAfterMs) continue;
      if (!this.o.store.markClosed(doc.doc_id, now)) continue;
      this.state.delete(doc.doc_id);
      this.o.logger.info("embed_document_closed", { doc_id: doc.doc_id, version: doc.version });
      this.o.onClosed({ ...doc, state: "closed", closed_at: now });
    }
  }

  /** User ids with a view in the latest fresh sample (empty when unknown). */
  userIds(docId: string, now = this.o.clock.now()): string[] {
    if (!this.fresh(now)) return [];
    const views = this.docs.get(docId)?.views ?? [];
    return [...new Set(views.map((v) => v.userId).filter(Boolean))];
  }

  /** Unsaved changes on the editing server (false when unknown). */
  modified(docId: string, now = this.o.clock.now()): boolean {
    return this.fresh(now) && this.docs.get(docId)?.modified === true;
  }

  /** A view is open now (for the status and tests). */
  hasViews(docId: string): boolean {
    return this.viewsOf(docId) > 0;
  }
}
