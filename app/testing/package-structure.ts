// What an OOXML package holds, counted: for tests that check a save keeps a document's structure
// (app/docbuilder/structure-kept.test.ts). Counts of elements and parts, never content.

import { strFromU8, unzipSync } from "fflate";

export interface PackageStructure {
  slides: number;
  sheets: number;
  tables: number;
  pictures: number;
  charts: number;
  /** Charts whose data is an embedded workbook present in the package (what Office edits). */
  chartWorkbooks: number;
  /** Charts Office can edit: with their workbook, or in a workbook bound to its own cells (formulas naming sheet ranges). */
  editableCharts: number;
  /** Embedded packages and OLE objects other than chart workbooks. */
  embeddedObjects: number;
  comments: number;
  trackedChanges: number;
  /** Notes pages with text of their own (not only the slide number). */
  notesWithText: number;
  formulas: number;
  /** Hyperlink relationships. */
  links: number;
}

const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length;

export function packageStructure(bytes: Uint8Array): PackageStructure {
  const parts = unzipSync(bytes);
  const names = Object.keys(parts);
  const text = (name: string) => strFromU8(parts[name]!);
  const xmlOf = (re: RegExp) => names.filter((n) => re.test(n)).map(text);
  const sum = (re: RegExp, pattern: RegExp) => xmlOf(re).reduce((n, xml) => n + count(xml, pattern), 0);

  const chartParts = names.filter((n) => /\/charts\/chart\d+\.xml$/.test(n));
  const workbookParts = new Set<string>();
  for (const chart of chartParts) {
    const id = /<c:externalData r:id="([^"]+)"/.exec(text(chart))?.[1];
    const relsName = chart.replace(/charts\/(chart\d+\.xml)$/, "charts/_rels/$1.rels");
    if (!id || !parts[relsName]) continue;
    const target = new RegExp(`<Relationship [^>]*Id="${id}"[^>]*Target="\\.\\./embeddings/([^"]+)"`).exec(text(relsName))?.[1]
      ?? new RegExp(`<Relationship [^>]*Target="\\.\\./embeddings/([^"]+)"[^>]*Id="${id}"`).exec(text(relsName))?.[1];
    const part = target && names.find((n) => n.endsWith(`/embeddings/${target}`));
    if (part) workbookParts.add(part);
  }
  const notes = xmlOf(/^ppt\/notesSlides\/notesSlide\d+\.xml$/);
  return {
    slides: names.filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n)).length,
    sheets: names.filter((n) => /^xl\/worksheets\/sheet\d+\.xml$/.test(n)).length,
    tables: sum(/^word\/document\.xml$/, /<w:tbl>/g) + sum(/^ppt\/slides\/slide\d+\.xml$/, /<a:tbl>/g) + names.filter((n) => /^xl\/tables\/table\d+\.xml$/.test(n)).length,
    pictures: sum(/^(word\/(document|header\d*|footer\d*)|ppt\/slides\/slide\d+|xl\/drawings\/drawing\d+)\.xml$/, /<(pic|p|xdr):pic[\s>]/g),
    charts: chartParts.length,
    chartWorkbooks: workbookParts.size,
    editableCharts: workbookParts.size + chartParts.filter((c) => c.startsWith("xl/") && !/<c:externalData/.test(text(c)) && [...text(c).matchAll(/<c:f>([^<]*)<\/c:f>/g)].every((m) => m[1]!.includes("!")) && /<c:f>/.test(text(c))).length,
    embeddedObjects: names.filter((n) => /\/embeddings\//.test(n) && !workbookParts.has(n)).length,
    comments: sum(/^word\/comments\.xml$/, /<w:comment /g) + sum(/^xl\/comments\d*\.xml$/, /<comment /g) + sum(/^ppt\/comments\/.*\.xml$/, /<p:cm /g),
    trackedChanges: sum(/^word\/document\.xml$/, /<w:(ins|del) /g),
    notesWithText: notes.filter((xml) => [...xml.matchAll(/<a:t>([^<]*)<\/a:t>/g)].some((m) => /[^\s\d]/.test(m[1]!))).length,
    formulas: sum(/^xl\/worksheets\/sheet\d+\.xml$/, /<f[ >]/g),
    links: names.filter((n) => n.endsWith(".rels")).reduce((n, r) => n + count(text(r), /relationships\/hyperlink"/g), 0),
  };
}
