// Turns the fetcher's errors into the spec's errors with Vietnamese messages that name the cause:
// integrators of similar products most often cannot tell why a download failed.

import { ServiceError } from "../errors";
import { FetchError, checkUrl, portOf } from "./safe-fetch";
import { isOwnListener, mayConnect, normalizeHostName, parseIp, type AllowList } from "./ssrf";

const NOT_ALLOWED: Record<string, string> = {
  scheme: "URL phải dùng http hoặc https.",
  credentials: "URL không được chứa tên người dùng hay mật khẩu: hãy bỏ phần user:pass@.",
  bad_url: "URL không hợp lệ: hãy kiểm tra lại địa chỉ.",
  forbidden_address:
    "URL trỏ tới địa chỉ nội bộ hoặc bị chặn (loopback, mạng riêng, link-local, metadata): hãy dùng địa chỉ công khai, hoặc thêm máy chủ vào SVC_FETCH_ALLOW_HOSTS.",
  own_listener:
    "URL trỏ tới chính dịch vụ này (cổng của gate, máy chủ soạn thảo hoặc proxy trên máy này): dịch vụ không bao giờ tải tài liệu từ chính nó, hãy dùng địa chỉ của máy chủ lưu tệp.",
};

const FAILED: Record<string, string> = {
  dns: "Không phân giải được tên máy chủ trong URL: hãy kiểm tra tên miền.",
  connect: "Không kết nối được tới máy chủ trong URL: máy chủ tắt hoặc từ chối kết nối.",
  tls: "Kết nối TLS tới máy chủ trong URL thất bại: chứng chỉ không hợp lệ hoặc không khớp tên.",
  timeout: "Tải tệp từ URL quá thời gian cho phép.",
  too_many_redirects: "URL chuyển hướng quá nhiều lần.",
};

/** Maps a FetchError to the spec's error; anything else is passed through unchanged. */
export function fetchErrorToService(e: unknown, maxBytes: number): unknown {
  if (!(e instanceof FetchError)) return e;
  if (e.kind === "too_large") {
    const mb = Math.round(maxBytes / 1024 / 1024);
    return new ServiceError("file_too_large", `Tệp tại URL vượt quá ${mb} MB cho phép.`, { limit_mb: mb });
  }
  if (e.kind === "url_not_allowed") {
    return new ServiceError("url_not_allowed", NOT_ALLOWED[String(e.detail.rule)] ?? NOT_ALLOWED.bad_url, e.detail);
  }
  const reason = String(e.detail.reason);
  const message =
    reason === "status"
      ? `Máy chủ trong URL trả về mã ${e.detail.status} thay vì 200: hãy kiểm tra đường dẫn và quyền truy cập.`
      : (FAILED[reason] ?? "Không tải được tệp từ URL.");
  return new ServiceError("download_failed", message, e.detail);
}

/**
 * The checks that need no DNS, made when a request arrives so that a bad callback or source URL
 * is refused at once rather than after the work: shape, scheme, credentials, and the address
 * rule for hosts written as IP addresses. Names are checked again when connecting.
 */
export function precheckUrl(url: string, allow: AllowList): void {
  let parsed: URL;
  try {
    parsed = checkUrl(url);
  } catch (e) {
    throw fetchErrorToService(e, 0);
  }
  const host = normalizeHostName(parsed.hostname);
  const port = portOf(parsed);
  if (parseIp(host) !== null && isOwnListener(allow, host, port)) {
    throw new ServiceError("url_not_allowed", NOT_ALLOWED.own_listener, { rule: "own_listener", host, port });
  }
  if (parseIp(host) !== null && !mayConnect(allow, host, host, port)) {
    throw new ServiceError("url_not_allowed", NOT_ALLOWED.forbidden_address, { rule: "forbidden_address", host });
  }
}
