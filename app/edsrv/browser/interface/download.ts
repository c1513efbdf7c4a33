// Download as and print: the server exports the document, the page fetches the file.

import type { WopiInfo } from "../../protocol/frames";
import { button, el, named } from "./controls";
import { showNote } from "./note";
import { api, UI } from "./state";
import { T } from "./texts";
import { listen } from "./dom";

const FORMATS: Record<string, string[]> = {
  text: ["docx", "odt", "pdf", "rtf", "txt", "html", "epub"],
  spreadsheet: ["xlsx", "ods", "pdf", "csv", "html"],
  presentation: ["pptx", "odp", "pdf"],
  drawing: ["odg", "pdf", "png"],
};
let wopiInfo: WopiInfo = {};
let downloadPicker: HTMLSelectElement | undefined, printButton: HTMLButtonElement | undefined;

export function buildDownload(): HTMLElement[] {
  const picker = (downloadPicker = el("select", { "class": "tb-select", id: "download", ...named(T.download) }));
  listen(picker, "change", () => {
    const f = picker.value; picker.value = "";
    if (f) requestDownload(f, "export");
    api.focus();
  });
  printButton = button("print", T.print, { view: true, click: () => { requestDownload("pdf", "print"); } });
  return [picker, printButton];
}
/** What the host allows (CheckFileInfo): export and print hidden when it says so. */
export function applyWopi(): void {
  if (!downloadPicker || !printButton) return;
  downloadPicker.hidden = wopiInfo.HideExportOption === true || wopiInfo.DisableExport === true;
  printButton.hidden = wopiInfo.HidePrintOption === true || wopiInfo.DisablePrint === true || wopiInfo.DisableExport === true;
}
export function fillDownload(type: string): void {
  const picker = downloadPicker!;
  picker.innerHTML = "";
  picker.append(new Option(T.download + "…", ""));
  (FORMATS[type] || []).forEach((f) => { picker.append(new Option(f.toUpperCase(), f)); });
}
export function requestDownload(format: string, purpose: string): void {
  const name = (wopiInfo.BaseFileName || "document").replace(/\.[^.]*$/, "") + "." + format;
  api.send(api.frames.downloadAs(name, purpose, format));
}

export function installWopiInfo(): void {
  api.on("wopi", (f) => {
    wopiInfo = f.info;
    applyWopi();
  });
}

export function installDownloads(): void {
  api.on("downloadas", (f) => {
    const url = location.origin + "/ed/document/download/" + f.downloadId;
    UI.lastDownload = { url, purpose: f.purpose };
    // CheckFileInfo's DownloadAsPostMessage: the host downloads it (Collabora's Download_As).
    if (wopiInfo.DownloadAsPostMessage === true) { api.post("Download_As", { Type: f.purpose, URL: url }); return; }
    if (f.purpose === "print") {
      // The browser's PDF viewer prints it (a new tab: printing a PDF inside this frame is not portable).
      window.open(url + "?inline=1", "_blank", "noopener");
    } else {
      const a2 = el("a", { href: url, download: "" });
      document.body.append(a2); a2.click(); a2.remove();
    }
  });
  api.on("error", (f) => { if (f.command === "downloadas") showNote(T.downloadFailed); });
}
