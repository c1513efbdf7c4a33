// Access tokens of embed sessions and the signatures of download links.
// - An access token is 256 random bits in base64url: URL-safe, since the editing server carries it
//   in WOPI query strings and Collabora escapes it three times on the way (protocol notes §6).
//   Only its SHA-256 is stored.
// - A download link is signed with HMAC-SHA256 under a key of the gate's own, made once and kept
//   in the data directory (so links stay valid across restarts), compared in constant time.

import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

export const newAccessToken = (): string => randomBytes(32).toString("base64url");

export const accessTokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");

/** Constant-time equality of two hex digests of the same kind. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** Reads the key file, or makes it (atomically, mode 0600) when there is none. */
export function loadOrCreateKey(file: string): Buffer {
  if (existsSync(file)) {
    const hex = readFileSync(file, "utf8").trim();
    if (/^[0-9a-f]{64}$/.test(hex)) return Buffer.from(hex, "hex");
    throw new Error(`${file} does not hold a 256-bit hex key; remove it to have a new one made (every download link signed with the old key stops working)`);
  }
  const key = randomBytes(32);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, key.toString("hex") + "\n", { mode: 0o600 });
  renameSync(tmp, file);
  return key;
}

export class LinkSigner {
  constructor(private readonly key: Buffer) {}

  sign(docId: string, version: number, exp: number): string {
    return createHmac("sha256", this.key).update(`${docId}\n${version}\n${exp}`).digest("hex");
  }

  /** Only the exact form the gate writes (64 lowercase hex) can match: Buffer.from(…, "hex") alone
   *  would read "ABCD…" or a valid sig followed by junk as the same bytes. */
  verify(docId: string, version: number, exp: number, sig: string): boolean {
    if (!/^[0-9a-f]{64}$/.test(sig)) return false;
    return sameDigest(this.sign(docId, version, exp), sig);
  }
}
