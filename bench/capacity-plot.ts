// The plot of bench:capacity (docs/img/capacity.svg): keystroke → tile p95 against people, one
// line per layout, log scale both ways, the target dashed. Hand-written SVG, no dependency.
// `bun bench/capacity-plot.ts <capacity JSON> [out.svg]` draws it again from a run's JSON.

import { readFileSync, writeFileSync } from "node:fs";

export interface PlotPoint {
  layout: string;
  people: number;
  latency: { p95: number };
}

export function capacityPlot(rs: PlotPoint[], o: { date: string; commit: string; cores: number; targetMs: number; names: Record<string, string> }): string {
  const { date, commit: rev, cores: nCores, targetMs: TARGET_P95 } = o;
  const W = 640, H = 400, L = 60, R = 170, T = 40, B = 50;
  const pw = W - L - R, ph = H - T - B;
  const xs = rs.map((r) => r.people), ys = rs.map((r) => r.latency.p95).filter(Number.isFinite);
  const xMax = Math.max(2, ...xs), yMin = 1, yMax = Math.max(100, ...ys) * 1.2;
  const x = (v: number) => L + (Math.log(Math.max(1, v)) / Math.log(xMax)) * pw;
  const y = (v: number) => T + ph - ((Math.log10(Math.max(yMin, v)) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * ph;
  const colours: Record<string, string> = { one: "#c0392b", ten: "#2471a3", each: "#229954" };
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  parts.push(`<text x="${L}" y="20" font-size="14" font-weight="bold">Keystroke → updated tile p95 against people typing</text>`);
  parts.push(`<text x="${L}" y="34" fill="#555">${esc(`${date.slice(0, 10)}, ${nCores} cores, commit ${rev}; 3 keys/s each, through Caddy and the gate`)}</text>`);
  for (const t of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000].filter((t) => t <= yMax)) {
    parts.push(`<line x1="${L}" x2="${L + pw}" y1="${y(t)}" y2="${y(t)}" stroke="#eee"/><text x="${L - 6}" y="${y(t) + 4}" text-anchor="end">${t}</text>`);
  }
  for (const t of [...new Set(xs)].sort((a, b) => a - b)) {
    parts.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${T}" y2="${T + ph}" stroke="#eee"/><text x="${x(t)}" y="${T + ph + 16}" text-anchor="middle">${t}</text>`);
  }
  parts.push(`<rect x="${L}" y="${T}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`);
  parts.push(`<line x1="${L}" x2="${L + pw}" y1="${y(TARGET_P95)}" y2="${y(TARGET_P95)}" stroke="#e67e22" stroke-dasharray="6 4"/><text x="${L + pw + 6}" y="${y(TARGET_P95) + 4}" fill="#e67e22">target ${TARGET_P95} ms</text>`);
  parts.push(`<text x="${L + pw / 2}" y="${H - 12}" text-anchor="middle">people typing (log scale)</text>`);
  parts.push(`<text transform="translate(16 ${T + ph / 2}) rotate(-90)" text-anchor="middle">p95 ms (log scale)</text>`);
  let ly = T + 10;
  for (const layout of Object.keys(o.names)) {
    const pts = rs.filter((r) => r.layout === layout && Number.isFinite(r.latency.p95)).sort((a, b) => a.people - b.people);
    if (!pts.length) continue;
    const c = colours[layout] ?? "#555";
    parts.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.map((r) => `${x(r.people).toFixed(1)},${y(r.latency.p95).toFixed(1)}`).join(" ")}"/>`);
    for (const r of pts) parts.push(`<circle cx="${x(r.people).toFixed(1)}" cy="${y(r.latency.p95).toFixed(1)}" r="3" fill="${c}"><title>${r.people} people: p95 ${r.latency.p95.toFixed(1)} ms</title></circle>`);
    parts.push(`<line x1="${L + pw + 6}" x2="${L + pw + 26}" y1="${ly + 20}" y2="${ly + 20}" stroke="${c}" stroke-width="2"/><text x="${L + pw + 30}" y="${ly + 24}">${esc(o.names[layout]!)}</text>`);
    ly += 18;
  }
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}

if (import.meta.main) {
  const [json, out = "docs/img/capacity.svg"] = process.argv.slice(2);
  if (!json) throw new Error("usage: bun bench/capacity-plot.ts <capacity JSON> [out.svg]");
  const run = JSON.parse(readFileSync(json, "utf8"));
  const names: Record<string, string> = { one: "1 document", ten: "10 documents", each: "1 document per person" };
  const points = (run.results as (PlotPoint & { skipped?: string })[]).filter((r) => r.layout !== "admission" && !r.skipped);
  writeFileSync(out, capacityPlot(points, { date: run.date, commit: run.commit, cores: run.machine.cores, targetMs: run.options.targetP95Ms, names }));
}
