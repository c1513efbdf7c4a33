// HTTP Basic with one password (any non-empty user name), compared in constant time: the editing
// server's admin channel and the gate's metrics (the same SVC_EDSRV_ADMIN_PASSWORD) check it so.

import { createHash, timingSafeEqual } from "node:crypto";

/** Whether an Authorization header is Basic with a non-empty user and `password`; never with no password set. */
export function basicAuthMatches(header: string | undefined | null, password: string): boolean {
  if (!password || !header || !/^Basic /i.test(header)) return false;
  let decoded: string;
  try {
    decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  } catch {
    return false;
  }
  const colon = decoded.indexOf(":");
  if (colon <= 0) return false;
  const given = createHash("sha256").update(decoded.slice(colon + 1)).digest();
  const want = createHash("sha256").update(password).digest();
  return timingSafeEqual(given, want);
}
