// GET /ed/getMetrics: Prometheus text exposition (admin Basic auth or the jwt cookie).

import type { DocumentBroker } from "./documents";
import { memoryKb } from "./admin";

const label = (s: string) => s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

export function metricsText(opts: {
  docs: DocumentBroker[];
  kits: { idle: number; assigned: number; total: number; spawned: number; crashes: number };
  startedAt: number;
  saves: { ok: number; failed: number };
}): string {
  const open = opts.docs.filter((d) => d.state === "loaded" || d.state === "closing");
  const views = open.flatMap((d) => [...d.sessions.values()]);
  const lines = [
    "# HELP edsrv_uptime_seconds Seconds since the editing server started.",
    "# TYPE edsrv_uptime_seconds gauge",
    `edsrv_uptime_seconds ${Math.floor((Date.now() - opts.startedAt) / 1000)}`,
    "# TYPE document_active_views_active_count gauge",
    `document_active_views_active_count ${views.length}`,
    "# TYPE document_active_views_readonly_count gauge",
    `document_active_views_readonly_count ${views.filter((v) => v.readOnly).length}`,
    "# TYPE document_active_views_edit_count gauge",
    `document_active_views_edit_count ${views.filter((v) => !v.readOnly).length}`,
    "# TYPE document_all_count gauge",
    `document_all_count ${open.length}`,
    "# TYPE document_modified_count gauge",
    `document_modified_count ${open.filter((d) => d.modified).length}`,
    "# TYPE kit_assigned_count gauge",
    `kit_assigned_count ${opts.kits.assigned}`,
    "# TYPE kit_idle_count gauge",
    `kit_idle_count ${opts.kits.idle}`,
    "# TYPE kit_spawned_total counter",
    `kit_spawned_total ${opts.kits.spawned}`,
    "# TYPE kit_crashed_total counter",
    `kit_crashed_total ${opts.kits.crashes}`,
    "# TYPE storage_putfile_ok_total counter",
    `storage_putfile_ok_total ${opts.saves.ok}`,
    "# TYPE storage_putfile_failed_total counter",
    `storage_putfile_failed_total ${opts.saves.failed}`,
    "# TYPE doc_info gauge",
    ...open.map((d) => `doc_info{host="${label(new URL(d.wopiSrc).hostname)}",key="${label(d.docKey)}",filename="${label(d.fileName)}",pid="${d.pid}"} 1`),
    "# TYPE doc_memory_kb gauge",
    ...open.map((d) => `doc_memory_kb{pid="${d.pid}"} ${memoryKb(d.pid)}`),
  ];
  return lines.join("\n") + "\n";
}
