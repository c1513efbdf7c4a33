// The editing server's WOPI client: CheckFileInfo, GetFile and PutFile exactly as Collabora
// Online calls them (protocol notes §4). Every call goes to the WOPISrc with the access token in
// the query (access_token, access_token_ttl, plus the WOPISrc's own query) and, unless
// no_auth_header, also as "Authorization: Bearer". URLs written to logs are redacted (no query).

import { EDSRV_VERSION } from "./discovery";

export interface WopiAuth {
  token: string;
  ttl: string;
  noAuthHeader: boolean;
}

/**
 * The token fields of an editor page's form, or of the WebSocket URL the page builds from them
 * (access_token, access_token_ttl: Unix ms or 0, no_auth_header), as the WOPI client sends them.
 */
export function wopiAuthFrom(get: (name: string) => string | null | undefined): WopiAuth {
  const ttl = get("access_token_ttl") ?? "";
  return { token: get("access_token") ?? "", ttl: /^\d+$/.test(ttl) ? ttl : "0", noAuthHeader: ["1", "true"].includes(get("no_auth_header") ?? "") };
}

export interface CheckFileInfo {
  BaseFileName: string;
  Size?: number;
  OwnerId?: string;
  UserId?: string;
  UserFriendlyName?: string;
  LastModifiedTime?: string;
  UserCanWrite?: boolean;
  PostMessageOrigin?: string;
  [k: string]: unknown;
}

export type CfiResult =
  | { kind: "ok"; info: CheckFileInfo }
  | { kind: "unauthorized"; status: number }
  | { kind: "failed"; status: number; message: string };

export type PutResult =
  | { kind: "ok"; lastModifiedTime: string | null }
  | { kind: "conflict" }
  | { kind: "toolarge" }
  | { kind: "unauthorized"; status: number }
  | { kind: "failed"; status: number; message: string };

export interface PutOptions {
  isModifiedByUser: boolean;
  isAutosave: boolean;
  isExitSave: boolean;
  /** The LastModifiedTime last received; omitted when null (unknown or forced save). */
  timestamp: string | null;
  extendedData?: string;
}

/** origin + path, no query: the only form of a WOPI URL that may be logged. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "[invalid url]";
  }
}

export class WopiClient {
  constructor(
    private readonly serverId: string,
    private readonly timeoutMs = 30_000,
  ) {}

  private url(wopiSrc: string, suffix: string, auth: WopiAuth): string {
    const u = new URL(wopiSrc);
    u.pathname = u.pathname.replace(/\/+$/, "") + suffix;
    u.searchParams.set("access_token", auth.token);
    u.searchParams.set("access_token_ttl", auth.ttl || "0");
    if (auth.noAuthHeader) u.searchParams.set("no_auth_header", "1");
    return u.toString();
  }

  private headers(auth: WopiAuth, extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = {
      "User-Agent": `SVC-edsrv/${EDSRV_VERSION}`,
      "X-COOL-WOPI-ServerId": this.serverId,
      ...extra,
    };
    if (!auth.noAuthHeader && auth.token) h.Authorization = `Bearer ${auth.token}`;
    return h;
  }

  async checkFileInfo(wopiSrc: string, auth: WopiAuth): Promise<CfiResult> {
    let res: Response;
    try {
      res = await fetch(this.url(wopiSrc, "", auth), { headers: this.headers(auth), signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      return { kind: "failed", status: 0, message: String((err as Error)?.message ?? err) };
    }
    if (res.status === 401 || res.status === 403 || res.status === 404) {
      await res.body?.cancel();
      return { kind: "unauthorized", status: res.status };
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      return { kind: "failed", status: res.status, message: `CheckFileInfo answered ${res.status}` };
    }
    let info: unknown;
    try {
      info = await res.json();
    } catch {
      return { kind: "failed", status: 200, message: "CheckFileInfo body is not JSON" };
    }
    if (!info || typeof info !== "object" || Array.isArray(info)) return { kind: "failed", status: 200, message: "CheckFileInfo body is not an object" };
    const base = (info as CheckFileInfo).BaseFileName;
    if (typeof base !== "string" || base === "" || base.includes("/")) return { kind: "failed", status: 200, message: "BaseFileName missing or invalid" };
    const out = info as CheckFileInfo;
    if (out.LastModifiedTime !== undefined && typeof out.LastModifiedTime !== "string") out.LastModifiedTime = String(out.LastModifiedTime);
    return { kind: "ok", info: out };
  }

  /** GetFile: the raw bytes, or null with the status when the host does not answer 200. */
  async getFile(wopiSrc: string, auth: WopiAuth, fileUrl?: string): Promise<{ bytes: Uint8Array } | { status: number; message: string }> {
    const tries = fileUrl ? [fileUrl, this.url(wopiSrc, "/contents", auth)] : [this.url(wopiSrc, "/contents", auth)];
    let last = { status: 0, message: "no attempt" };
    for (const url of tries) {
      try {
        const res = await fetch(url, { headers: this.headers(auth), signal: AbortSignal.timeout(this.timeoutMs) });
        if (res.status === 200) return { bytes: new Uint8Array(await res.arrayBuffer()) };
        await res.body?.cancel();
        last = { status: res.status, message: `GetFile answered ${res.status}` };
      } catch (err) {
        last = { status: 0, message: String((err as Error)?.message ?? err) };
      }
    }
    return last;
  }

  async putFile(wopiSrc: string, auth: WopiAuth, body: Uint8Array, o: PutOptions): Promise<PutResult> {
    const headers: Record<string, string> = {
      "X-WOPI-Override": "PUT",
      "Content-Type": "application/octet-stream",
      "X-COOL-WOPI-IsModifiedByUser": String(o.isModifiedByUser),
      "X-COOL-WOPI-IsAutosave": String(o.isAutosave),
      "X-COOL-WOPI-IsExitSave": String(o.isExitSave),
    };
    // The LastModifiedTime last received, under both of Collabora's names: a host written for
    // LibreOffice Online (or an old Collabora) reads only the X-LOOL- one.
    if (o.timestamp !== null) headers["X-COOL-WOPI-Timestamp"] = headers["X-LOOL-WOPI-Timestamp"] = o.timestamp;
    if (o.extendedData) headers["X-COOL-WOPI-ExtendedData"] = o.extendedData;
    if (o.isExitSave) headers.Connection = "close";
    let res: Response;
    try {
      res = await fetch(this.url(wopiSrc, "/contents", auth), {
        method: "POST",
        headers: this.headers(auth, headers),
        body: body as unknown as BodyInit,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      return { kind: "failed", status: 0, message: String((err as Error)?.message ?? err) };
    }
    const text = await res.text().catch(() => "");
    if (res.status === 200) {
      let lmt: string | null = null;
      try {
        const j = JSON.parse(text);
        if (j && typeof j.LastModifiedTime === "string") lmt = j.LastModifiedTime;
      } catch {
        // a missing JSON body is only a warning (as in Collabora)
      }
      return { kind: "ok", lastModifiedTime: lmt };
    }
    if (res.status === 409) return { kind: "conflict" };
    if (res.status === 413) return { kind: "toolarge" };
    if (res.status === 401 || res.status === 403 || res.status === 404) return { kind: "unauthorized", status: res.status };
    return { kind: "failed", status: res.status, message: `PutFile answered ${res.status}` };
  }
}
