// The admin channel, Collabora-compatible (protocol notes §5): a JWT obtained with HTTP Basic
// auth from the admin page (/browser/dist/admin/admin.html or /browser/<hash>/admin/admin.html),
// then the WebSocket /ed/adminws with an Origin check, `auth jwt=<token>` and text commands.
// The password is SVC_EDSRV_ADMIN_PASSWORD, compared in constant time; the user name may be any
// non-empty name ("admin" by convention); an empty password disables admin login altogether.

import { generateKeyPairSync, createSign, createVerify } from "node:crypto";
import { basicAuthMatches } from "../basic-auth";
import { readFileSync } from "node:fs";
import type { Logger } from "../log";
import type { AdminEvents, ClientSession, DocumentBroker } from "./documents";
import type { InputLagSummary } from "./input-lag";

export const JWT_EXPIRY_SECS = 1800;

export interface AdminSocket {
  send(text: string): void;
  close(): void;
  authed: boolean;
  subscriptions: Set<string>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url");
/** Collabora's URI encoding for admin lines (space encoded too). */
const enc = (s: string) => encodeURIComponent(s);

export function memoryKb(pid: number): number {
  if (!pid) return 0;
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export class AdminHub implements AdminEvents {
  private readonly keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  readonly sockets = new Set<AdminSocket>();
  private readonly log: Logger;

  constructor(
    private readonly password: string,
    private readonly docs: () => DocumentBroker[],
    private readonly info: { serverId: string; version: string; hash: string; kitVersion: () => string; startedAt: number; inputLag?: () => InputLagSummary },
    logger: Logger,
    private readonly killKit: (pid: number) => boolean,
  ) {
    this.log = logger.child({ component: "admin" });
  }

  /** Checks an Authorization: Basic header (any non-empty user, the configured password). */
  checkBasic(header: string | undefined | null): boolean {
    return basicAuthMatches(header, this.password);
  }

  issueJwt(now = Date.now()): string {
    const header = b64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
    const payload = b64url(JSON.stringify({ iss: "admin", sub: "admin", aud: "admin", nme: "admin", exp: Math.floor(now / 1000) + JWT_EXPIRY_SECS }));
    const sig = createSign("RSA-SHA256").update(`${header}.${payload}`).sign(this.keys.privateKey);
    return `${header}.${payload}.${b64url(sig)}`;
  }

  verifyJwt(token: string, now = Date.now()): boolean {
    const parts = token.split(".");
    if (parts.length !== 3) return false;
    try {
      const ok = createVerify("RSA-SHA256").update(`${parts[0]}.${parts[1]}`).verify(this.keys.publicKey, Buffer.from(parts[2]!, "base64url"));
      if (!ok) return false;
      const payload = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
      return typeof payload.exp === "number" && payload.exp * 1000 > now;
    } catch {
      return false;
    }
  }

  /** A jwt cookie or Basic header authorises admin pages and metrics. */
  authorised(headers: Headers): boolean {
    if (this.checkBasic(headers.get("authorization"))) return true;
    const m = /(?:^|;\s*)jwt=([^;]+)/.exec(headers.get("cookie") ?? "");
    return !!m && this.verifyJwt(decodeURIComponent(m[1]!));
  }

  documentsJson(): string {
    const now = Date.now();
    const docs = this.docs().filter((d) => d.state === "loaded" || d.state === "closing");
    const items = docs.map((d) => {
      const views = [...d.sessions.values()].map(
        (s) => `{"userName":"${s.userName}","userId":"${s.userId}","sessionid":"${s.id}","readonly":"${s.readOnly ? 1 : 0}"}`,
      );
      const wopiSrc = new URL(d.wopiSrc);
      return (
        `{"pid":${d.pid},"docKey":"${d.docKey}","fileName":"${enc(d.fileName)}","wopiHost":"${wopiSrc.hostname}",` +
        `"activeViews":${d.sessions.size},"memory":${memoryKb(d.pid)},"elapsedTime":${Math.floor((now - d.startedAt) / 1000)},` +
        `"idleTime":${Math.floor((now - d.lastActivity) / 1000)},"modified":"${d.modified ? "Yes" : "No"}",` +
        `"uploaded":"${d.everUploaded ? "Yes" : "No"}","wopiSrc":"${wopiSrc.origin}${wopiSrc.pathname}","views":[${views.join(",")}]}`
      );
    });
    return `documents {"documents":[${items.join(",")}]}`;
  }

  private activeUsers(): number {
    return this.docs().reduce((n, d) => n + d.sessions.size, 0);
  }

  handle(sock: AdminSocket, text: string): void {
    const [cmd = "", ...rest] = text.trim().split(/\s+/);
    if (!sock.authed) {
      if (cmd === "auth") {
        const arg = rest.find((r) => r.startsWith("jwt="));
        let token = arg ? arg.slice(4) : "";
        try {
          token = decodeURIComponent(token);
        } catch {
          // keep as given
        }
        if (token && this.verifyJwt(token)) {
          sock.authed = true;
          return;
        }
        sock.send("InvalidAuthToken");
      } else {
        sock.send("NotAuthenticated");
      }
      sock.close();
      return;
    }
    switch (cmd) {
      case "documents":
        sock.send(this.documentsJson());
        return;
      case "active_users_count":
        sock.send(`active_users_count ${this.activeUsers()}`);
        return;
      case "active_docs_count":
        sock.send(`active_docs_count ${this.docs().filter((d) => d.state === "loaded" || d.state === "closing").length}`);
        return;
      case "version":
        sock.send(`coolserver ${JSON.stringify({ Version: this.info.version, Hash: this.info.hash, Protocol: "0.1", Id: this.info.serverId })}`);
        sock.send(`lokitversion ${JSON.stringify({ ProductName: "LibreOffice", ProductVersion: this.info.kitVersion() })}`);
        return;
      case "uptime":
        sock.send(`uptime ${Math.floor((Date.now() - this.info.startedAt) / 1000)}`);
        return;
      case "svc_input_lag":
        // Ours, not Collabora's (which answers nothing): how long typing waits for its answer.
        if (this.info.inputLag) sock.send(`svc_input_lag ${JSON.stringify(this.info.inputLag())}`);
        return;
      case "mem_consumed":
        sock.send(`mem_consumed ${this.docs().reduce((n, d) => n + memoryKb(d.pid), 0)}`);
        return;
      case "subscribe":
        for (const r of rest) sock.subscriptions.add(r);
        return;
      case "unsubscribe":
        for (const r of rest) sock.subscriptions.delete(r);
        return;
      case "kill": {
        const pid = Number(rest[0]);
        if (Number.isInteger(pid) && this.killKit(pid)) this.log.warn("admin_kill", { pid });
        return;
      }
      default:
        return;
    }
  }

  private notify(event: string, line: string): void {
    for (const s of this.sockets) if (s.authed && s.subscriptions.has(event)) s.send(line);
  }

  addView(d: DocumentBroker, s: ClientSession): void {
    const src = new URL(d.wopiSrc);
    this.notify(
      "adddoc",
      `adddoc ${d.pid} ${enc(d.fileName)} ${s.id} ${enc(s.userName)} ${enc(s.userId)} ${memoryKb(d.pid)} ${src.hostname} ${s.readOnly ? 1 : 0} ${src.origin}${src.pathname} ${d.docKey}`,
    );
  }
  removeView(d: DocumentBroker, s: ClientSession): void {
    this.notify("rmdoc", `rmdoc ${d.pid} ${s.id}`);
  }
  modified(d: DocumentBroker): void {
    this.notify("modifications", `modifications ${d.pid} ${d.modified ? "Yes" : "No"}`);
  }
  uploaded(d: DocumentBroker, ok: boolean): void {
    this.notify("uploaded", `uploaded ${d.pid} ${ok ? "Yes" : "No"}`);
  }
}
