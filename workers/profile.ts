// The engine's start: its private LibreOffice profile (settings pinned before start), its
// environment, and the options every load passes. Shared by DocBuilder workers and editing kits.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileUrl } from "./lok";

/** Options given to every documentLoadWithOptions. Batch=true: dialogs are cancelled, not awaited. */
export const LOAD_OPTIONS = "Batch=true,MacroSecurityLevel=3";
/**
 * The options of the second load of a file that may be encrypted, with the password callback
 * registered: without Batch, because LibreOffice 7.5 and later never ask a batch load for a
 * password (7.4 did). LibreOfficeKit's own interaction handler answers every other question of
 * such a load (an I/O error aborts); the CSV import dialog, the one that would wait, never comes
 * here (only OLE2 and ZIP containers, the kinds that can be encrypted, are loaded twice).
 */
export const PASSWORD_LOAD_OPTIONS = "MacroSecurityLevel=3";

/**
 * Whether this LibreOffice has its dialogs: Debian's -nogui packages leave out the libraries that
 * hold them (libcuilo.so: Format > Character, Paragraph, Page…), and there a dialog command aborts
 * the engine. The full packages (scripts/setup.sh) have them.
 */
export function hasDialogLibraries(programDir: string): boolean {
  return existsSync(join(programDir, "libcuilo.so"));
}

/**
 * The options of an editing kit's loads. Batch=true would cancel every dialog, and not only for
 * that load: LibreOfficeKit sets the process's dialog mode to silent and never sets it back, so a
 * kit that is to show dialogs never passes it (not in its warm-up either). Without Batch the
 * questions of a load are answered by LibreOfficeKit's own interaction handler, as in the
 * password load above. DeviceFormFactor=desktop: LibreOffice describes its dialogs for a desktop
 * (a phone's view asks for "mobile" itself). An engine without the dialog libraries keeps Batch.
 */
export function kitLoadOptions(dialogs: boolean): string {
  return dialogs ? "MacroSecurityLevel=3,DeviceFormFactor=desktop" : LOAD_OPTIONS;
}

/**
 * [path, property, type, value] written into the profile's registrymodifications.xcu before start.
 *
 * Documents pull in nothing (app/documents-pull-nothing.test.ts): a document may name other files
 * whose content LibreOffice would copy into it (a linked section, INCLUDETEXT, an external
 * reference, WEBSERVICE, DDE, a linked OLE object), which then shows in the copy, the PDF and the
 * saved file. Every setting of LibreOffice 7.4's configuration schema (main.xcd, calc.xcd,
 * writer.xcd, impress.xcd, draw.xcd) that decides whether such a link is followed is pinned here
 * (the Security, Link, Update, External, DDE, WebService and Load properties were all read):
 * - Writer and Calc link updates: never (below). A document's own LinkUpdateMode (settings.xml)
 *   wins over these (LibreOffice's source: the global value applies only when the document says
 *   "global"), so they are not enough alone:
 * - no trusted location (SecureURL empty) with macro security at its highest: LibreOffice 7.4.7
 *   updates a document's links on load without asking only for a document in a trusted location
 *   or at macro security 0 (isTrustedLocationUriForUpdatingLinks); otherwise it asks, and under
 *   LibreOfficeKit nobody answers yes.
 *   Measured on 7.4.7: no document of the test pulled anything on load, on F9 / Ctrl+Shift+F9 or on
 *   .uno:UpdateFields / Calculate / CalculateHard / UpdateTableLinks, with these settings, without
 *   the link ones (update modes, referer block, SecureURL, ExecutePlugins removed) and even with
 *   the document's folder trusted: LibreOfficeKit's loads did not update links at all. The settings
 *   are kept for any path that would (a later version, another load path), not because a test
 *   fails without them.
 * - BlockUntrustedRefererLinks: pictures, media and HTML resources a document links are not
 *   loaded when the document is not in a trusted location (none is). A loaded document's own URL
 *   is its referer; no load option is needed. Measured on 25.2 (issue 44 item 4, the canary
 *   inside the engine's readable set): with it, an ODF linked draw:image, a docx r:link picture
 *   and an HTML img show nothing; without it (false), each showed the canary. An SVG picture's
 *   <image href> and RTF's INCLUDEPICTURE are read whatever it says: workers/linked-pictures.ts.
 * What has no setting in 7.4, and what the engine does instead (measured, see the test): Impress
 *   and Draw have no link update setting of their own (not measured here); WEBSERVICE/FILTERXML
 *   take only http(s) URLs (a file: URL gives #VALUE!), and http(s) has no content provider (NETWORK_CONTENT_PROVIDERS); Calc's external references stay unresolved
 *   (Err:540) on a hard recalculation; DDE has no transport on Linux (cached values stay).
 * Not pinned: Writer's Update/Field and Update/Chart ("update fields and charts automatically")
 * read no file and turning them off would leave page counts and charts stale.
 * NOT covered by any setting: LibreOffice 7.4 follows a Writer linked section (odt
 * text:section-source) whenever .uno:UpdateAllLinks or .uno:UpdateAll is dispatched, whatever the
 * update mode and trusted locations; the editing server's command allow list and the kernel
 * confinement of what an engine may read (workers/confine.ts) are what stop that.
 */
export const PROFILE_SETTINGS: ReadonlyArray<readonly [string, string, "boolean" | "int" | "string-list", string]> = [
  // Macros: highest security level, execution disabled altogether.
  ["/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "int", "3"],
  ["/org.openoffice.Office.Common/Security/Scripting", "DisableMacrosExecution", "boolean", "true"],
  // Do not fetch links referred to by untrusted documents (remote images etc.).
  ["/org.openoffice.Office.Common/Security/Scripting", "BlockUntrustedRefererLinks", "boolean", "true"],
  // No trusted location: no document is trusted to update its links (or run macros) unasked.
  ["/org.openoffice.Office.Common/Security/Scripting", "SecureURL", "string-list", ""],
  // No plug-in may load what a document embeds by reference.
  ["/org.openoffice.Office.Common/Security/Scripting", "ExecutePlugins", "boolean", "false"],
  // Link updates on load: never. Writer: 0 never, 1 on request (default), 2 always.
  // Calc (ScLkUpdMode): 0 always, 1 never, 2 on request (default).
  ["/org.openoffice.Office.Writer/Content/Update", "Link", "int", "0"],
  ["/org.openoffice.Office.Calc/Content/Update", "Link", "int", "1"],
  // Formulas are not recalculated on load (1 = never; 2 would prompt).
  ["/org.openoffice.Office.Calc/Formula/Load", "OOXMLRecalcMode", "int", "1"],
  ["/org.openoffice.Office.Calc/Formula/Load", "ODFRecalcMode", "int", "1"],
  // AutoCorrect's URL recognition off (issue 44): typed text that looks like a URL would become a
  // link to whatever it names (`file:`, `javascript:`, `vnd.sun.star.script:`), the targets
  // `.uno:SetHyperlink` refuses. Links come in through that command, whose targets are checked.
  ["/org.openoffice.Office.Common/AutoCorrect", "SetInetAttribute", "boolean", "false"],
  ["/org.openoffice.Office.Writer/AutoFunction/Format/Option", "SetInetAttribute", "boolean", "false"],
  // No lock files (.~lock.*#) at all, no first-start wizard, tips, crash reporter, update checks,
  // autosave or recovery data.
  ["/org.openoffice.Office.Common/Misc", "UseLocking", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "UseDocumentOOoLockFile", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "UseDocumentSystemFileLocking", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "FirstRun", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "ShowTipOfTheDay", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "CrashReport", "boolean", "false"],
  ["/org.openoffice.Setup/Office", "ooSetupInstCompleted", "boolean", "true"],
  ["/org.openoffice.Office.Update/Update", "Enabled", "boolean", "false"],
  ["/org.openoffice.Office.Recovery/RecoveryInfo", "Enabled", "boolean", "false"],
  ["/org.openoffice.Office.Recovery/AutoSave", "Enabled", "boolean", "false"],
  ["/org.openoffice.Office.Common/Save/Document", "AutoSave", "boolean", "false"],
  ["/org.openoffice.Office.Common/Save/Document", "CreateBackup", "boolean", "false"],
];

/**
 * Import filters whose options LibreOffice asks for in a dialog of the filter's own (its
 * UIComponent), with the UIComponent removed in every engine's profile (issue 44). Our own loads
 * always give the options (workers/csv-import.ts, the kit's load options), so the dialog is never
 * needed; a load nobody asked for is where it appeared: a formula typed into a cell that refers to
 * a local text file (`='file:///etc/hostname'#$Sheet1.A1` + Enter) makes Calc load that file
 * hidden, with an interaction handler, and the Text Import dialog ran its own loop with no view
 * and no callback: the engine stopped answering everyone (measured on 25.2). Without the
 * component the reference stays unresolved (Err:…/#REF!) and the engine answers on.
 * Export dialogs are not listed: they come only from commands, and those reach the page.
 */
export const IMPORT_DIALOG_FILTERS = [
  "Text - txt - csv (StarCalc)",
  "HTML (StarCalc)",
  "calc_HTML_WebQuery",
  "DIF",
  "Lotus",
  "dBase",
  "Text (encoded)",
  "Text (encoded) (StarWriter/Web)",
  "Text (encoded) (StarWriter/GlobalDocument)",
] as const;
const FILTERS = "/org.openoffice.TypeDetection.Filter/Filters";
const filterPath = (name: string) => `${FILTERS}/org.openoffice.TypeDetection.Filter:Filter['${name}']`;

/**
 * The engines make no network request, whatever a document or a paste refers to: LibreOffice
 * fetched linked pictures (docx, odt, pasted HTML) on open, on copy and on paste, and the
 * stylesheets of HTML delivered as docx/odt/doc/rtf, from any address (127.0.0.2, [::1],
 * 0x7f000002…). LibreOffice 7.4 has no host allow list (HostFilter / LOK_HOST_ALLOWLIST came
 * later), so the engines are cut off in layers, each measured alone with canary servers
 * (app/engines-no-network.test.ts):
 *
 * 1. No content provider for a network scheme. LibreOffice reaches every http(s), WebDAV and FTP
 *    URL (pictures, stylesheets, linked sections, "update links") through its Universal Content
 *    Broker, which takes its providers from the configuration: with http, https, the WebDAV
 *    schemes, ftp and CMIS removed, such a URL has no content and nothing is opened, not even a
 *    socket (strace). A linked picture stays a link (its URL is kept, a placeholder is painted).
 * 2. A proxy that is not there, for anything that reaches the network anyway: the profile names
 *    a manual proxy on a closed loopback port (no exception list) and the environment does the
 *    same for libcurl's own proxy variables. Alone (providers in place), LibreOffice 7.4's WebDAV
 *    client gives up before it opens a socket when any proxy is set; a later version that does
 *    contact its proxy finds nothing listening.
 *
 * ooInetProxyType needs its oor:type in the user layer: without it the value was ignored (the
 * default, "system", came out as no proxy at all).
 */
const NETWORK_CONTENT_PROVIDERS = ["Provider3", "Provider4", "Provider4a", "Provider12", "Provider12a", "Provider12b", "Provider6", "Provider43"] as const; // http, vnd.sun.star.webdav, webdav, https, vnd.sun.star.webdavs, webdavs, ftp, vnd.libreoffice.cmis
const PROVIDER_DATA = "/org.openoffice.ucb.Configuration/ContentProviders/Local/SecondaryKeys/Office/ProviderData";
/** Where the engines' proxy points: a loopback port nothing listens on (9, discard). */
export const NO_PROXY_HOST = "127.0.0.1";
export const NO_PROXY_PORT = 9;
/** [path, property, xs type, value]: written with their type (see above). */
const NETWORK_SETTINGS: ReadonlyArray<readonly [string, string, "xs:int" | "xs:string", string]> = [
  ["/org.openoffice.Inet/Settings", "ooInetProxyType", "xs:int", "2"], // 0 none, 1 system, 2 manual
  ["/org.openoffice.Inet/Settings", "ooInetNoProxy", "xs:string", ""],
  ["/org.openoffice.Inet/Settings", "ooInetHTTPProxyName", "xs:string", NO_PROXY_HOST],
  ["/org.openoffice.Inet/Settings", "ooInetHTTPProxyPort", "xs:int", String(NO_PROXY_PORT)],
  ["/org.openoffice.Inet/Settings", "ooInetHTTPSProxyName", "xs:string", NO_PROXY_HOST],
  ["/org.openoffice.Inet/Settings", "ooInetHTTPSProxyPort", "xs:int", String(NO_PROXY_PORT)],
  ["/org.openoffice.Inet/Settings", "ooInetFTPProxyName", "xs:string", NO_PROXY_HOST],
  ["/org.openoffice.Inet/Settings", "ooInetFTPProxyPort", "xs:int", String(NO_PROXY_PORT)],
];

/**
 * libcurl's proxy variables (LibreOffice's own curl users that set no proxy of their own read
 * them). ftp_proxy is also libxml2's, which takes only an ftp:// proxy: given an http:// one it
 * printed "error : Unknown IO error" on every document load and went without a proxy; curl
 * refuses an ftp:// proxy, which refuses the request as well.
 */
function proxyEnvironment(): Record<string, string> {
  const proxy = `http://${NO_PROXY_HOST}:${NO_PROXY_PORT}`;
  const env: Record<string, string> = { no_proxy: "", NO_PROXY: "" };
  for (const name of ["http_proxy", "https_proxy", "ftp_proxy", "all_proxy"]) {
    env[name] = name === "ftp_proxy" ? `ftp://${NO_PROXY_HOST}:${NO_PROXY_PORT}` : proxy;
    env[name.toUpperCase()] = env[name]!;
  }
  return env;
}

/**
 * The environment LibreOffice starts with: everything it writes stays inside this engine's profile.
 *
 * Why UNO_SHARED_PACKAGES_CACHE: LibreOffice keeps "shared" extensions (installed for every user
 * of the machine) in <install>/share/uno_packages/cache, on Debian /var/spool/libreoffice/…, and
 * every start checks it. Run as root (a fresh machine's `npm run start`) that directory is
 * writable, so the first engine ever started on the machine creates uno_packages/ in it, by a
 * check-then-create that throws (WrappedTargetRuntimeException, the process exits 1) when another
 * engine created the folder in between. Engines start together (the pool's workers, the editing
 * server's kits), so on a new machine one of them died before ready (`worker_exited …
 * ever_ready:false`) and only its restart worked, the folder existing by then. Reproduced with an
 * empty shared cache in a private mount namespace and mkdir delayed by strace: 2 of 3 engines
 * exited. Each engine now has its own (empty) shared repository inside its profile: nothing is
 * shared between engines, and the machine's LibreOffice installation is never written.
 */
export function engineEnvironment(profileDir: string, tempDir: string, use: { spelling: boolean }): Record<string, string> {
  return {
    TMPDIR: tempDir,
    UNO_SHARED_PACKAGES_CACHE: fileUrl(join(profileDir, "shared-extensions")),
    // Under LibreOfficeKit only the languages listed here get spell checking (none when unset:
    // "No language allowlisted, turning off the language support"): the dictionaries setup
    // installs, for the editor's kits. Not for DocBuilder's workers: a conversion shows no
    // squiggles, and with the languages on, a 1225-page novel took 5.0 s instead of 1.7 s to
    // export as text (1.76× the floor end to end, bench:corpus).
    ...(use.spelling ? { LOK_ALLOWLIST_LANGUAGES: SPELLING_LANGUAGES } : {}),
    // LibreOffice's "system" text encoding comes from the locale's character set, and without a
    // UTF-8 one (the image sets no LANG: POSIX) a sheet saved as CSV or read as text had "?" for
    // every character outside ASCII ("作業NO" became "??NO"). The filters' own character-set
    // option does not survive LOK's saveAs (engine.ts), so the engines run with UTF-8 as theirs.
    LC_CTYPE: "C.UTF-8",
    // No network: see NETWORK_CONTENT_PROVIDERS. And no printer discovery: LibreOffice asks the
    // CUPS server for its printers (a connection to [::1]:631 and 127.0.0.1:631 at start, strace);
    // PDF export needs no printer.
    SAL_DISABLE_CUPS: "1",
    ...proxyEnvironment(),
  };
}

/** The languages whose hunspell dictionaries setup installs (Debian's hunspell-en-us and hunspell-vi). */
export const SPELLING_LANGUAGES = "en_US vi_VN";

function xcuItem(path: string, name: string, value: string, type?: string): string {
  const t = type ? ` oor:type="${type}"` : "";
  return `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse"${t}><value>${value}</value></prop></item>`;
}

function xcuRemoveNode(path: string, name: string): string {
  return `<item oor:path="${path}"><node oor:name="${name}" oor:op="remove"/></item>`;
}

/** Every item the profile pins, each with its key (path and name) for merging. */
function pinnedItems(): { key: string; xml: string }[] {
  return [
    ...PROFILE_SETTINGS.map(([p, n, , v]) => ({ key: `${p}\u0000${n}`, xml: xcuItem(p, n, v) })),
    ...NETWORK_SETTINGS.map(([p, n, t, v]) => ({ key: `${p}\u0000${n}`, xml: xcuItem(p, n, v, t) })),
    ...NETWORK_CONTENT_PROVIDERS.map((n) => ({ key: `${PROVIDER_DATA}\u0000${n}`, xml: xcuRemoveNode(PROVIDER_DATA, n) })),
    ...IMPORT_DIALOG_FILTERS.map((f) => ({ key: `${canonicalPath(filterPath(f))}\u0000UIComponent`, xml: xcuItem(filterPath(f), "UIComponent", "", "xs:string") })),
  ];
}

/**
 * A configuration path with set elements by name only: LibreOffice writes the path of our
 * provider removals back as `…/ContentProviders/org.openoffice.ucb.Configuration:ContentProvidersDataPrimaryKeys['Local']/…`.
 */
function canonicalPath(path: string): string {
  return path.replace(/\/[^/\[]+\['([^']*)'\]/g, "/$1");
}

/**
 * Writes (or merges into) <profileDir>/user/registrymodifications.xcu (`removeKeys`: accelerator
 * bindings to remove, [set path, key name], an editing kit's). Existing entries written by
 * LibreOffice itself are kept (so a restart on an existing profile stays fast); ours replace any
 * entry for the same path and property.
 */
export function writeProfileConfig(profileDir: string, opts: { removeKeys?: [string, string][] } = {}): string {
  const userDir = join(profileDir, "user");
  mkdirSync(userDir, { recursive: true });
  const file = join(userDir, "registrymodifications.xcu");
  // An editing kit's shortcut keys that run a command the door refuses are unbound (app/edsrv/key-door.ts).
  const pinned = [...pinnedItems(), ...(opts.removeKeys ?? []).map(([p, n]) => ({ key: `${canonicalPath(p)}\u0000${n}`, xml: xcuRemoveNode(p, n) }))];
  const ours = new Set(pinned.map((i) => i.key));
  let kept: string[] = [];
  if (existsSync(file)) {
    const old = readFileSync(file, "utf8");
    kept = old
      .split("\n")
      .filter((l) => l.startsWith("<item "))
      .filter((l) => {
        const m = /^<item oor:path="([^"]*)"><(?:prop|node) oor:name="([^"]*)"/.exec(l);
        return !(m && ours.has(`${canonicalPath(m[1]!)}\u0000${m[2]}`));
      });
  }
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n` +
    [...kept, ...pinned.map((i) => i.xml)].join("\n") +
    `\n</oor:items>\n`;
  writeFileSync(file, xml);
  return file;
}
