// Documents that refer to outside resources, for "the engines make no network request" tests:
// each names every base URL it is given (the canary servers, see canary.ts) once per resource.
import { strToU8, zipSync } from "fflate";

const DOCX_CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const DOCX_ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

/** An inline picture whose blip is linked (r:link), not embedded. */
function linkedPicture(n: number, rid: string): string {
  return (
    `<w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="952500" cy="952500"/><wp:docPr id="${n}" name="Picture ${n}"/>` +
    `<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">` +
    `<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="${n}" name="linked${n}.png"/><pic:cNvPicPr/></pic:nvPicPr>` +
    `<pic:blipFill><a:blip r:link="${rid}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic>` +
    `</a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`
  );
}

/** A docx with one linked (external) picture per base URL. */
export function docxLinkingImages(bases: string[]): Uint8Array {
  const rels = bases
    .map((b, i) => `<Relationship Id="rIdLinked${i}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="${b}/docx-image-${i}.png" TargetMode="External"/>`)
    .join("");
  const pictures = bases.map((_, i) => `<w:p>${linkedPicture(i + 1, `rIdLinked${i}`)}</w:p>`).join("");
  const document =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
    `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">` +
    `<w:body><w:p><w:r><w:t>Linked pictures below.</w:t></w:r></w:p>${pictures}<w:p><w:r><w:t>The end.</w:t></w:r></w:p></w:body></w:document>`;
  return zipSync({
    "[Content_Types].xml": strToU8(DOCX_CONTENT_TYPES),
    "_rels/.rels": strToU8(DOCX_ROOT_RELS),
    "word/document.xml": strToU8(document),
    "word/_rels/document.xml.rels": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`),
  });
}

/** An odt with one linked picture (draw:image xlink:href, not in the package) per base URL. */
export function odtLinkingImages(bases: string[]): Uint8Array {
  const frames = bases
    .map((b, i) => `<text:p><draw:frame draw:name="linked${i}" text:anchor-type="as-char" svg:width="2cm" svg:height="2cm"><draw:image xlink:href="${b}/odt-image-${i}.png" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`)
    .join("");
  const content =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3">` +
    `<office:body><office:text><text:p>Linked pictures below.</text:p>${frames}<text:p>The end.</text:p></office:text></office:body></office:document-content>`;
  const manifest =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`;
  return zipSync({
    mimetype: [strToU8("application/vnd.oasis.opendocument.text"), { level: 0 }],
    "content.xml": strToU8(content),
    "META-INF/manifest.xml": strToU8(manifest),
  });
}

/** An HTML page with a linked stylesheet and a picture per base URL, an @import and a CSS background. */
export function htmlLinkingResources(bases: string[]): string {
  const sheets = bases.map((b, i) => `<link rel="stylesheet" href="${b}/style-${i}.css">`).join("");
  const pictures = bases.map((b, i) => `<p><img src="${b}/html-image-${i}.png" width="20" height="20" alt="linked ${i}"></p>`).join("");
  return (
    `<!DOCTYPE html><html><head><title>Linking</title>${sheets}<style>@import url("${bases[0]}/import.css");</style></head>` +
    `<body><p>Text before the pictures.</p>${pictures}<p style="background-image:url('${bases[0]}/background.png')">The end.</p></body></html>`
  );
}
