// The memory ceiling of office-engine processes (DocBuilder workers, editing kits). A document
// can make LibreOffice allocate without end (a 50 KB docx with 15 MiB of paragraphs took 770 MB
// and kept growing, measured), and a machine without swap then kills whatever the kernel picks.
// Each engine process is therefore watched from its parent: its resident memory is read from
// /proc a few times a second and past SVC_ENGINE_MEMORY_LIMIT_MB the process is SIGKILLed, its
// document refused with corrupt_source, and a new process started.
//
// Why not RLIMIT_AS (prlimit --as, ulimit -v) in the spawn: the engine's address space is not its
// memory. Bun reserves several GB of address space at start and LibreOffice maps its libraries;
// under prlimit --as=2G and 3G the worker died with SIGSEGV before it was ready (measured), and a
// limit high enough to start would not bound what the document costs. Reading resident memory
// from the parent also names the cause, which a failed allocation inside the engine does not.

import { readFileSync } from "node:fs";
import { ServiceError } from "./errors";

export const MIB = 1024 * 1024;

/** How often the parents read their engines' resident memory. */
export const MEMORY_CHECK_MS = 250;

/** Resident memory of a process in bytes (VmRSS), null when it is gone or /proc cannot say. */
export function residentBytes(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** The answer to a request whose engine passed the ceiling: the document is what costs. */
export function engineMemoryError(limitBytes: number): ServiceError {
  const limitMb = Math.round(limitBytes / MIB);
  return new ServiceError(
    "corrupt_source",
    `Mở tệp này cần hơn ${limitMb} MB bộ nhớ, giới hạn cho một tài liệu, nên bộ xử lý tài liệu đã bị dừng: hãy chia tài liệu thành nhiều tệp nhỏ hơn hoặc giảm kích thước ảnh trong đó, rồi gửi lại.`,
    { reason: "engine_memory", limit_mb: limitMb },
  );
}
