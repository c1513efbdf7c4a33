// The profile's network settings (issue 21, item 3) as written before start, also over a profile
// LibreOffice itself wrote back. What they achieve is measured in app/engines-no-network.test.ts.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { engineEnvironment, writeProfileConfig } from "./profile";
import { refusedBindings } from "../app/edsrv/key-door";
import { DEFAULT_PROGRAM_DIR } from "./lok-abi";

const LONG_PROVIDER_DATA =
  "/org.openoffice.ucb.Configuration/ContentProviders/org.openoffice.ucb.Configuration:ContentProvidersDataPrimaryKeys['Local']/SecondaryKeys/org.openoffice.ucb.Configuration:ContentProvidersDataSecondaryKeys['Office']/ProviderData";

test("engines make no network request: the profile removes the network content providers and names a closed proxy, once each, also over a profile LibreOffice wrote back", () => {
  const dir = mkdtempSync(join(tmpdir(), "profile-test-"));
  try {
    mkdirSync(join(dir, "user"));
    // As LibreOffice 7.4 writes them at exit: the set path spelt out, the proxy type untyped.
    writeFileSync(
      join(dir, "user/registrymodifications.xcu"),
      `<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry">\n` +
        `<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetProxyType" oor:op="fuse"><value>2</value></prop></item>\n` +
        `<item oor:path="${LONG_PROVIDER_DATA}"><node oor:name="Provider3" oor:op="remove"/></item>\n` +
        `<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="LastCompatibilityCheckID" oor:op="fuse"><value>40(Build:2)</value></prop></item>\n` +
        `</oor:items>\n`,
    );
    const xcu = readFileSync(writeProfileConfig(dir), "utf8");
    expect(xcu).toContain("LastCompatibilityCheckID");
    for (const p of ["Provider3", "Provider4", "Provider4a", "Provider12", "Provider12a", "Provider12b", "Provider6", "Provider43"]) {
      expect(xcu.match(new RegExp(`<node oor:name="${p}" oor:op="remove"/>`, "g"))).toHaveLength(1);
    }
    // Without its oor:type LibreOffice ignored the proxy type (measured): it is written typed.
    expect(xcu.match(/oor:name="ooInetProxyType"/g)).toHaveLength(1);
    expect(xcu).toContain('<prop oor:name="ooInetProxyType" oor:op="fuse" oor:type="xs:int"><value>2</value>');
    expect(xcu).toContain('<prop oor:name="ooInetNoProxy" oor:op="fuse" oor:type="xs:string"><value></value>');
    for (const scheme of ["HTTP", "HTTPS", "FTP"]) {
      expect(xcu).toContain(`<prop oor:name="ooInet${scheme}ProxyName" oor:op="fuse" oor:type="xs:string"><value>127.0.0.1</value>`);
      expect(xcu).toContain(`<prop oor:name="ooInet${scheme}ProxyPort" oor:op="fuse" oor:type="xs:int"><value>9</value>`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("engines make no network request: the engines' environment names the closed proxy for every scheme, no exceptions, and no CUPS", () => {
  const env = engineEnvironment("/p", "/t", { spelling: true });
  for (const name of ["http_proxy", "https_proxy", "all_proxy", "HTTPS_PROXY", "ALL_PROXY"]) expect(env[name]).toBe("http://127.0.0.1:9");
  // libxml2 reads ftp_proxy too and accepts only an ftp:// proxy (otherwise it goes without one).
  for (const name of ["ftp_proxy", "FTP_PROXY"]) expect(env[name]).toBe("ftp://127.0.0.1:9");
  expect(env.no_proxy).toBe("");
  expect(env.NO_PROXY).toBe("");
  expect(env.SAL_DISABLE_CUPS).toBe("1");
});

test("every file type opens, edits and saves: the engines run with a UTF-8 character set (CSV and sheet text keep non-ASCII)", () => {
  expect(engineEnvironment("/p", "/t", { spelling: true }).LC_CTYPE).toBe("C.UTF-8");
});

test("spell checking is for the editor's kits only: DocBuilder's workers run without the languages (a text export took 3× as long with them)", () => {
  expect(engineEnvironment("/p", "/t", { spelling: true }).LOK_ALLOWLIST_LANGUAGES).toBe("en_US vi_VN");
  expect(engineEnvironment("/p", "/t", { spelling: false }).LOK_ALLOWLIST_LANGUAGES).toBeUndefined();
});

test("an editing kit's profile unbinds the shortcut keys whose command the door refuses (issue 44), once each, over a profile written before", () => {
  const dir = mkdtempSync(join(tmpdir(), "profile-test-"));
  try {
    const removeKeys = refusedBindings(DEFAULT_PROGRAM_DIR);
    expect(removeKeys.length).toBeGreaterThan(20);
    writeProfileConfig(dir, { removeKeys });
    const xcu = readFileSync(writeProfileConfig(dir, { removeKeys }), "utf8");
    const global = "/org.openoffice.Office.Accelerators/PrimaryKeys/Global";
    const writer = "/org.openoffice.Office.Accelerators/PrimaryKeys/Modules/org.openoffice.Office.Accelerators:Module['com.sun.star.text.TextDocument']";
    for (const [p, key] of [[global, "K_MOD1"], [global, "P_MOD1"], [global, "F11_MOD2"], [writer, "F12_MOD1"], [writer, "F2_MOD1"]] as const) {
      expect(xcu.split("\n").filter((l) => l === `<item oor:path="${p}"><node oor:name="${key}" oor:op="remove"/></item>`)).toHaveLength(1);
    }
    // Typing's own keys stay bound.
    expect(xcu).not.toContain('oor:name="BACKSPACE"');
    expect(xcu).not.toContain('oor:name="B_MOD1"');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
