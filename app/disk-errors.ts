// A write to the data directory that fails because the disk is full or read-only is the
// operator's problem, not the caller's: it is named as such (500 internal with detail.reason
// disk_full / disk_read_only, a Vietnamese sentence naming the data directory), logged at error
// level, and never disguised as a download, upload or document error. Nothing is lost by it: what
// was being written is refused whole, and everything works again once there is space.

import { ServiceError } from "./errors";

export type DiskProblem = "disk_full" | "disk_read_only";

const CODES: Record<string, DiskProblem> = { ENOSPC: "disk_full", EDQUOT: "disk_full", EROFS: "disk_read_only" };

/** The disk problem behind an error (its own or its cause's), or null when it is something else. */
export function diskProblem(err: unknown): DiskProblem | null {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && CODES[code]) return CODES[code]!;
  }
  return null;
}

/** Thrown where a write failed for lack of disk: carries the problem to the HTTP layer. */
export class DiskError extends Error {
  override readonly name = "DiskError";
  constructor(
    readonly problem: DiskProblem,
    readonly cause?: unknown,
  ) {
    super(problem === "disk_full" ? "the data directory is full" : "the data directory is read-only");
  }
}

/** Rethrows a disk problem as DiskError; anything else unchanged. */
export function asDiskError(err: unknown): unknown {
  const p = err instanceof DiskError ? null : diskProblem(err);
  return p ? new DiskError(p, err) : err;
}

/** The spec's answer for a disk problem (internal, with the reason and what to do). */
export function diskServiceError(problem: DiskProblem): ServiceError {
  const message =
    problem === "disk_full"
      ? "Thư mục dữ liệu của máy chủ (SVC_DATA_DIR) đã đầy nên không lưu được: người quản trị cần giải phóng dung lượng; yêu cầu sẽ thành công khi có chỗ trống, không mất dữ liệu."
      : "Thư mục dữ liệu của máy chủ (SVC_DATA_DIR) chỉ đọc nên không lưu được: người quản trị cần gắn lại ổ với quyền ghi.";
  return new ServiceError("internal", message, { reason: problem, directory: "SVC_DATA_DIR" });
}
