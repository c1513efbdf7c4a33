// GET /hosting/discovery (XML) and GET /hosting/capabilities (JSON), as Collabora Online answers
// them (protocol notes §1–§2, spec "Editing-server discovery and capabilities"), with the spec's
// page name ed.html and no proof-key element.

import type { Config } from "../config";
import { SERVICE_VERSION } from "../version";

/** The editing server's own version (its protocol and page); part of the /browser/<hash>/ segment. */
export const EDSRV_VERSION = `${SERVICE_VERSION}-edsrv.1`;

interface AppDef {
  name: string;
  icon?: string;
  edit: string[];
  view: string[];
  editnew?: string[];
}

/** Extension apps: what opens for editing (edit + view) and what opens view-only. */
export const APPS: AppDef[] = [
  {
    name: "writer",
    icon: "x-office-document.svg",
    edit: ["odt", "fodt", "ott", "doc", "docx", "docm", "dotx", "dotm", "rtf", "txt"],
    view: ["sxw", "stw", "dot", "wpd", "pdb", "hwp", "wps", "wri", "lrf", "mw", "fb2", "cwk", "pages", "abw", "602"],
    editnew: ["docx", "odt"],
  },
  {
    name: "calc",
    icon: "x-office-spreadsheet.svg",
    edit: ["ods", "fods", "ots", "xls", "xla", "xltx", "xltm", "xlsx", "xlsb", "xlsm", "dif", "slk", "csv", "tsv", "dbf"],
    view: ["sxc", "stc", "wk1", "wks", "xlr", "123", "qpw", "wb1", "wq1", "wq2", "gnumeric", "numbers"],
    editnew: ["xlsx", "ods"],
  },
  {
    name: "impress",
    icon: "x-office-presentation.svg",
    edit: ["odp", "fodp", "otp", "ppt", "pptx", "pptm", "potx", "potm", "ppsx"],
    view: ["sxi", "sti", "pot", "cgm", "key"],
    editnew: ["pptx", "odp"],
  },
  {
    name: "draw",
    icon: "x-office-drawing.svg",
    edit: ["odg", "fodg"],
    view: ["sxd", "std", "otg", "svg", "dxf", "emf", "wmf", "cdr", "vsd", "vsdx", "vss", "pub", "p65", "wpg", "fh", "pdf"],
  },
];

/** MIME-type apps (legacy form, ext empty): [mime, editable]. */
export const MIME_APPS: [string, boolean][] = [
  ["application/vnd.oasis.opendocument.text", true],
  ["application/vnd.oasis.opendocument.text-flat-xml", true],
  ["application/vnd.oasis.opendocument.text-template", true],
  ["application/msword", true],
  ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", true],
  ["application/vnd.ms-word.document.macroEnabled.12", true],
  ["application/rtf", true],
  ["text/rtf", true],
  ["text/plain", true],
  ["application/vnd.oasis.opendocument.spreadsheet", true],
  ["application/vnd.oasis.opendocument.spreadsheet-flat-xml", true],
  ["application/vnd.ms-excel", true],
  ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", true],
  ["application/vnd.ms-excel.sheet.macroEnabled.12", true],
  ["text/csv", true],
  ["application/vnd.oasis.opendocument.presentation", true],
  ["application/vnd.oasis.opendocument.presentation-flat-xml", true],
  ["application/vnd.ms-powerpoint", true],
  ["application/vnd.openxmlformats-officedocument.presentationml.presentation", true],
  ["application/vnd.oasis.opendocument.graphics", true],
  ["application/vnd.oasis.opendocument.graphics-flat-xml", true],
  ["application/pdf", false],
  ["image/svg+xml", false],
  ["image/png", false],
];

/** Extensions that open for editing (every ext with an edit action); anything else opens read-only. */
export const EDITABLE_EXTENSIONS: ReadonlySet<string> = new Set(APPS.flatMap((a) => a.edit));

/** http(s)://<SVC_ONLINE_SERVER_NAME>, the origin of every URL the editing server publishes. */
export function publicOrigin(config: Config): string {
  const scheme = config.online.sslTermination ? "https" : "http";
  const name = config.online.serverName.replace(/^https?:\/\//, "").replace(/\/+$/, "");
  return `${scheme}://${name || `${config.edsrv.listen.hostname}:${config.edsrv.listen.port}`}`;
}

const xmlAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

export function discoveryXml(config: Config, hash: string): string {
  const srv = publicOrigin(config);
  const base = `${srv}/browser/${hash}/`;
  const urlsrc = `${base}ed.html?`;
  // Spec: one net-zone named external-http; SSL termination changes only the scheme of urlsrc.
  const zone = "external-http";
  const action = (name: string, ext: string, isDefault: boolean) =>
    `      <action name="${name}"${isDefault ? ' default="true"' : ""} ext="${ext}" urlsrc="${xmlAttr(urlsrc)}"/>`;
  const out: string[] = ['<?xml version="1.0" encoding="utf-8"?>', "<wopi-discovery>", `  <net-zone name="${zone}">`];
  for (const app of APPS) {
    out.push(`    <app name="${app.name}" favIconUrl="${xmlAttr(base + "images/" + (app.icon ?? "x-office-drawing.svg"))}">`);
    for (const ext of app.edit) {
      out.push(action("edit", ext, true));
      out.push(action("view", ext, true));
    }
    for (const ext of app.editnew ?? []) out.push(action("editnew", ext, false));
    for (const ext of app.view) out.push(action("view", ext, false));
    out.push("    </app>");
  }
  for (const [mime, editable] of MIME_APPS) {
    out.push(`    <app name="${xmlAttr(mime)}" favIconUrl="${xmlAttr(base + "images/x-office-document.svg")}">`);
    if (editable) out.push(action("edit", "", true));
    out.push(action("view", "", editable));
    out.push("    </app>");
  }
  out.push('    <app name="Capabilities">');
  out.push(`      <action name="getinfo" ext="" urlsrc="${xmlAttr(srv + "/hosting/capabilities")}"/>`);
  out.push("    </app>");
  out.push("  </net-zone>", "</wopi-discovery>", "");
  return out.join("\n");
}

export function capabilities(opts: { serverId: string; hash: string; kitVersion: string }): Record<string, unknown> {
  return {
    "convert-to": { available: false, endpoint: "/ed/convert-to" },
    hasTemplateSaveAs: false,
    hasTemplateSource: false,
    hasMobileSupport: true,
    productName: "SVC Editing Server",
    serverId: opts.serverId,
    productVersion: EDSRV_VERSION,
    productVersionHash: opts.hash,
    productKitVersion: opts.kitVersion,
    hasProxyPrefix: false,
    hasSettingIframeSupport: false,
    hasZoteroSupport: false,
    hasWASMSupport: false,
    hasDocumentSigningSupport: false,
    hasWopiAccessCheck: false,
    // Ours only: POSTing the editor page (with its token) starts loading the document; the gate
    // does so when it creates an embed session, before the browser asks for the page.
    hasDocumentPreload: true,
  };
}
