// Documents that try to pull another file's content into themselves, for the "documents pull in
// nothing" tests: linked sections, included text, external references, WEBSERVICE, DDE. Each
// names the files it is given (`targets`: absolute paths, relative paths, file: URLs) once per
// kind of link, and carries a cached text of its own so that the copy, the PDF and the text show
// where the pulled content would be.
import { strToU8, zipSync } from "fflate";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A path or URL as a file: URL (relative paths stay relative: LibreOffice resolves them against the document). */
export function asFileUrl(target: string): string {
  if (/^[a-z]+:/i.test(target)) return target;
  return target.startsWith("/") ? `file://${encodeURI(target)}` : encodeURI(target);
}

const ODF_NS =
  `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
  `xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" ` +
  `xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ` +
  `xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" xmlns:config="urn:oasis:names:tc:opendocument:xmlns:config:1.0" ` +
  `xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" ` +
  `xmlns:office-ooo="http://openoffice.org/2009/office"`;

/**
 * settings.xml naming the document's own link update mode: 2 is "always" (Writer: AUTOMATIC;
 * Calc's document setting uses the same numbers through its API), the strongest a document can ask.
 */
function odfSettings(linkUpdateMode: number | null): string {
  const item = linkUpdateMode === null ? "" : `<config:config-item config:name="LinkUpdateMode" config:type="short">${linkUpdateMode}</config:config-item>`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-settings ${ODF_NS} office:version="1.3"><office:settings>` +
    `<config:config-item-set config:name="ooo:configuration-settings">${item}</config:config-item-set></office:settings></office:document-settings>`
  );
}

function odfPackage(mime: string, content: string, settings: string | null): Uint8Array {
  const entries = [`<manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/>`, `<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>`];
  const files: Record<string, any> = { mimetype: [strToU8(mime), { level: 0 }], "content.xml": strToU8(content) };
  if (settings) {
    files["settings.xml"] = strToU8(settings);
    entries.push(`<manifest:file-entry manifest:full-path="settings.xml" manifest:media-type="text/xml"/>`);
  }
  files["META-INF/manifest.xml"] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">${entries.join("")}</manifest:manifest>`,
  );
  return zipSync(files);
}

export interface PullOptions {
  /** The document's own link update mode in settings.xml (null: none written). */
  linkUpdateMode?: number | null;
  /** A paragraph of the document's own (the control: a document that does carry a marker). */
  ownText?: string;
}

/**
 * An odt with a linked section per target (text:section-source: what "Insert > Section > Link"
 * makes) and the same as a master document's sub-document would (section-source with the whole
 * file, filter name "writer8").
 */
export function odtWithLinkedSections(targets: string[], opts: PullOptions = {}): Uint8Array {
  const sections = targets
    .map(
      (t, i) =>
        `<text:section text:name="S${i}"><text:section-source xlink:href="${esc(asFileUrl(t))}" xlink:type="simple" xlink:show="embed"/>` +
        `<text:p>cached section ${i}</text:p></text:section>`,
    )
    .join("");
  const content =
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content ${ODF_NS} office:version="1.3"><office:body><office:text>` +
    `<text:p>Linked sections below.</text:p>${sections}${opts.ownText ? `<text:p>${esc(opts.ownText)}</text:p>` : ""}<text:p>The end.</text:p></office:text></office:body></office:document-content>`;
  return odfPackage("application/vnd.oasis.opendocument.text", content, odfSettings(opts.linkUpdateMode ?? 2));
}

/** A master document (.odm): its sub-documents are linked sections to whole files. */
export function odmWithSubdocuments(targets: string[], opts: PullOptions = {}): Uint8Array {
  const sections = targets
    .map((t, i) => `<text:section text:name="${esc(t)}"><text:section-source xlink:href="${esc(asFileUrl(t))}" xlink:type="simple" xlink:show="embed"/><text:p>cached subdocument ${i}</text:p></text:section>`)
    .join("");
  const content =
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content ${ODF_NS} office:version="1.3"><office:body><office:text global="true">` +
    `<text:p>Master document.</text:p>${sections}<text:p>The end.</text:p></office:text></office:body></office:document-content>`;
  return odfPackage("application/vnd.oasis.opendocument.text-master", content, odfSettings(opts.linkUpdateMode ?? 2));
}

const W_NS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`;
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/** A complex field: begin, instruction, separate, its cached result, end. */
function field(instr: string, cached: string, opts: { dirty?: boolean } = {}): string {
  return (
    `<w:r><w:fldChar w:fldCharType="begin"${opts.dirty ? ` w:dirty="true"` : ""}/></w:r><w:r><w:instrText xml:space="preserve"> ${esc(instr)} </w:instrText></w:r>` +
    `<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>${esc(cached)}</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>`
  );
}

/**
 * A docx that pulls each target in every way Word knows: INCLUDETEXT and INCLUDEPICTURE fields
 * (marked dirty: "update on open"), DDEAUTO, an altChunk and a subDoc with external targets, and
 * an attached template (settings.xml.rels, TargetMode="External").
 */
export function docxPulling(targets: string[]): Uint8Array {
  const rels: string[] = [];
  const body: string[] = [`<w:p><w:r><w:t>Pulled content below.</w:t></w:r></w:p>`];
  targets.forEach((t, i) => {
    const winPath = t.replace(/\\/g, "\\\\");
    body.push(`<w:p>${field(`INCLUDETEXT "${winPath}"`, `cached includetext ${i}`, { dirty: true })}</w:p>`);
    body.push(`<w:p>${field(`INCLUDEPICTURE "${winPath}" \\d`, `cached includepicture ${i}`, { dirty: true })}</w:p>`);
    body.push(`<w:p>${field(`DDEAUTO soffice "${winPath}" S1`, `cached ddeauto ${i}`, { dirty: true })}</w:p>`);
    body.push(`<w:p>${field(`LINK soffice "${winPath}" "" \\a \\t`, `cached link ${i}`, { dirty: true })}</w:p>`);
    rels.push(`<Relationship Id="rAlt${i}" Type="${REL}/aFChunk" Target="${esc(asFileUrl(t))}" TargetMode="External"/>`);
    body.push(`<w:altChunk r:id="rAlt${i}"/>`);
    rels.push(`<Relationship Id="rSub${i}" Type="${REL}/subDocument" Target="${esc(asFileUrl(t))}" TargetMode="External"/>`);
    body.push(`<w:p><w:subDoc r:id="rSub${i}"/></w:p>`);
  });
  body.push(`<w:p><w:r><w:t>The end.</w:t></w:r></w:p>`);
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document ${W_NS}><w:body>${body.join("")}</w:body></w:document>`;
  const settings = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:settings ${W_NS}><w:attachedTemplate r:id="rTpl"/><w:updateFields w:val="true"/><w:linkStyles/></w:settings>`;
  const settingsRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rTpl" Type="${REL}/attachedTemplate" Target="${esc(asFileUrl(targets[0] ?? "x.dotx"))}" TargetMode="External"/></Relationships>`;
  return zipSync({
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
        `<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`,
    ),
    "word/document.xml": strToU8(document),
    "word/_rels/document.xml.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rSet" Type="${REL}/settings" Target="settings.xml"/>${rels.join("")}</Relationships>`,
    ),
    "word/settings.xml": strToU8(settings),
    "word/_rels/settings.xml.rels": strToU8(settingsRels),
  });
}

/**
 * An ods whose cells pull each target: a formula with an external reference
 * (`='file:///…/canary.ods'#$Sheet1.A1`), WEBSERVICE and FILTERXML(WEBSERVICE()) of a file: URL,
 * a linked sheet (table:table-source) and a DDE link (table:dde-source), every cell with a cached
 * value of its own. `sheetTargets` are spreadsheets (for the external reference and the linked
 * sheet), `textTargets` any file (WEBSERVICE).
 */
export function odsPulling(sheetTargets: string[], textTargets: string[], opts: PullOptions = {}): Uint8Array {
  const rows: string[] = [];
  const cell = (formula: string, cached: string) => `<table:table-cell table:formula="${esc(formula)}" office:value-type="string" office:string-value="${esc(cached)}"><text:p>${esc(cached)}</text:p></table:table-cell>`;
  sheetTargets.forEach((t, i) => {
    rows.push(`<table:table-row>${cell(`of:=['${asFileUrl(t)}'#$Sheet1.A1]`, `cached extref ${i}`)}</table:table-row>`);
  });
  textTargets.forEach((t, i) => {
    rows.push(`<table:table-row>${cell(`of:=COM.MICROSOFT.WEBSERVICE("${asFileUrl(t)}")`, `cached webservice ${i}`)}</table:table-row>`);
    rows.push(`<table:table-row>${cell(`of:=COM.MICROSOFT.FILTERXML(COM.MICROSOFT.WEBSERVICE("${asFileUrl(t)}");"//x")`, `cached filterxml ${i}`)}</table:table-row>`);
  });
  const linkedSheets = sheetTargets
    .map(
      (t, i) =>
        `<table:table table:name="Linked${i}"><table:table-source xlink:type="simple" xlink:href="${esc(asFileUrl(t))}" table:filter-name="calc8" table:table-name="Sheet1" table:mode="copy-results-only"/>` +
        `<table:table-column/><table:table-row><table:table-cell office:value-type="string"><text:p>cached linked sheet ${i}</text:p></table:table-cell></table:table-row></table:table>`,
    )
    .join("");
  const dde = textTargets
    .map((t, i) => `<table:dde-link><office:dde-source office:name="dde${i}" office:dde-application="soffice" office:dde-topic="${esc(t)}" office:dde-item="Sheet1.A1" office:automatic-update="true"/><table:table><table:table-column/><table:table-row><table:table-cell office:value-type="string" office:string-value="cached dde ${i}"><text:p>cached dde ${i}</text:p></table:table-cell></table:table-row></table:table></table:dde-link>`)
    .join("");
  textTargets.forEach((t, i) => {
    rows.push(`<table:table-row>${cell(`of:=DDE("soffice";"${t}";"Sheet1.A1")`, `cached ddefn ${i}`)}</table:table-row>`);
  });
  const content =
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content ${ODF_NS} office:version="1.3"><office:body><office:spreadsheet>` +
    `<table:table table:name="Sheet1"><table:table-column/><table:table-row><table:table-cell office:value-type="string"><text:p>Pulled cells below.</text:p></table:table-cell></table:table-row>${rows.join("")}` +
    `<table:table-row><table:table-cell office:value-type="string"><text:p>The end.</text:p></table:table-cell></table:table-row></table:table>${linkedSheets}` +
    (dde ? `<table:dde-links>${dde}</table:dde-links>` : "") +
    `</office:spreadsheet></office:body></office:document-content>`;
  return odfPackage("application/vnd.oasis.opendocument.spreadsheet", content, odfSettings(opts.linkUpdateMode ?? 2));
}

/** A one-sheet ods whose A1 holds `text`: what an external reference or a linked sheet would read. */
export function odsHolding(text: string): Uint8Array {
  const content =
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content ${ODF_NS} office:version="1.3"><office:body><office:spreadsheet>` +
    `<table:table table:name="Sheet1"><table:table-column/><table:table-row><table:table-cell office:value-type="string"><text:p>${esc(text)}</text:p></table:table-cell></table:table-row></table:table>` +
    `</office:spreadsheet></office:body></office:document-content>`;
  return odfPackage("application/vnd.oasis.opendocument.spreadsheet", content, null);
}

const X_NS = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`;

/**
 * An xlsx whose cells pull each target: an external reference through an externalLink part whose
 * target is the file (TargetMode="External"), WEBSERVICE and FILTERXML(WEBSERVICE()) of a file:
 * URL; every formula has a cached value of its own (what Excel saved), so only a recalculation or
 * a link update changes what is shown.
 */
export function xlsxPulling(sheetTargets: string[], textTargets: string[]): Uint8Array {
  const cells: string[] = [`<row r="1"><c r="A1" t="inlineStr"><is><t>Pulled cells below.</t></is></c></row>`];
  let r = 2;
  const links: Record<string, Uint8Array> = {};
  const wbRels: string[] = [`<Relationship Id="rS1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>`];
  const extRefs: string[] = [];
  const ctOverrides: string[] = [];
  sheetTargets.forEach((t, i) => {
    const n = i + 1;
    cells.push(`<row r="${r}"><c r="A${r}" t="str"><f>[${n}]Sheet1!$A$1</f><v>cached extref ${i}</v></c></row>`);
    r++;
    links[`xl/externalLinks/externalLink${n}.xml`] = strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<externalLink ${X_NS}><externalBook r:id="rId1"><sheetNames><sheetName val="Sheet1"/></sheetNames>` +
        `<sheetDataSet><sheetData sheetId="0"><row r="1"><cell r="A1" t="str"><v>cached extref ${i}</v></cell></row></sheetData></sheetDataSet></externalBook></externalLink>`,
    );
    links[`xl/externalLinks/_rels/externalLink${n}.xml.rels`] = strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/externalLinkPath" Target="${esc(asFileUrl(t))}" TargetMode="External"/></Relationships>`,
    );
    wbRels.push(`<Relationship Id="rE${n}" Type="${REL}/externalLink" Target="externalLinks/externalLink${n}.xml"/>`);
    extRefs.push(`<externalReference r:id="rE${n}"/>`);
    ctOverrides.push(`<Override PartName="/xl/externalLinks/externalLink${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/>`);
  });
  textTargets.forEach((t, i) => {
    cells.push(`<row r="${r}"><c r="A${r}" t="str"><f>_xlfn.WEBSERVICE("${esc(asFileUrl(t))}")</f><v>cached webservice ${i}</v></c></row>`);
    r++;
    cells.push(`<row r="${r}"><c r="A${r}" t="str"><f>_xlfn.FILTERXML(_xlfn.WEBSERVICE("${esc(asFileUrl(t))}"),"//x")</f><v>cached filterxml ${i}</v></c></row>`);
    r++;
  });
  cells.push(`<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>The end.</t></is></c></row>`);
  return zipSync({
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
        `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>${ctOverrides.join("")}</Types>`,
    ),
    "_rels/.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    "xl/workbook.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook ${X_NS}><sheets><sheet name="Sheet1" sheetId="1" r:id="rS1"/></sheets>${extRefs.length ? `<externalReferences>${extRefs.join("")}</externalReferences>` : ""}<calcPr calcId="191029" fullCalcOnLoad="1"/></workbook>`,
    ),
    "xl/_rels/workbook.xml.rels": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${wbRels.join("")}</Relationships>`),
    "xl/worksheets/sheet1.xml": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet ${X_NS}><sheetData>${cells.join("")}</sheetData></worksheet>`),
    ...links,
  });
}
