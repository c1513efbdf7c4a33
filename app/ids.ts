// Identifiers of the spec's formats, from a cryptographic random source: ids of jobs and files
// are unguessable because result downloads are addressed by them.

import { randomBytes } from "node:crypto";

const hex = (chars: number) => randomBytes(Math.ceil(chars / 2)).toString("hex").slice(0, chars);

export const newRequestId = () => `req_${hex(16)}`;
export const newJobId = () => `job_${hex(24)}`;
export const newFileId = () => `file_${hex(24)}`;
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
