// Identifiers of the spec's formats, from a cryptographic random source: ids of jobs and files
// are unguessable because result downloads are addressed by them.

import { randomBytes } from "node:crypto";

const hex = (chars: number) => randomBytes(Math.ceil(chars / 2)).toString("hex").slice(0, chars);

export const newRequestId = () => `req_${hex(16)}`;
/**
 * A job's or a file's id names the DocBuilder instance that holds it in its first two characters
 * (two decimal digits, 00-99, still hexadecimal): with several instances the proxy sends a job's
 * polls and a file's downloads to that instance (the Caddyfile's owner route), no state shared.
 * The other 22 characters are random (88 bits).
 */
export const instanceTag = (instance: number): string => String(instance).padStart(2, "0");
export const newJobId = (instance = 0) => `job_${instanceTag(instance)}${hex(22)}`;
export const newFileId = (instance = 0) => `file_${instanceTag(instance)}${hex(22)}`;
/** The instance number an id of a job or a file names. */
export const instanceOf = (id: string): number => Number(id.slice(id.indexOf("_") + 1, id.indexOf("_") + 3));
export const newSessionId = () => `ses_${hex(24)}`;
export const newDocId = () => `doc_${hex(32)}`;
export const newInstanceId = () => `inst_${hex(16)}`;

export const ID_PATTERNS = {
  request: /^req_[0-9a-f]{16}$/,
  job: /^job_[0-9a-f]{24}$/,
  file: /^file_[0-9a-f]{24}$/,
  session: /^ses_[0-9a-f]{24}$/,
  doc: /^doc_[0-9a-f]{32}$/,
  instance: /^inst_[0-9a-f]+$/,
} as const;
