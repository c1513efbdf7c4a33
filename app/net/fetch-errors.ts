// Turns the fetcher's errors into the spec's errors with Vietnamese messages that name the cause:
// integrators of similar products most often cannot tell why a download failed.

import { ServiceError } from "../errors";
import { FetchError, checkUrl, portOf } from "./safe-fetch";
import { forbiddenRange, isOwnListener, mayConnect, normalizeHostName, parseIp, type AllowList } from "./ssrf";

const NOT_ALLOWED: Record<string, string> = {
  scheme: "URL phải dùng http hoặc https.",
  credentials: "URL không được chứa tên người dùng hay mật khẩu: hãy bỏ phần user:pass@.",
  bad_url: "URL không hợp lệ: hãy kiểm tra lại địa chỉ.",
  forbidden_address:
    "URL trỏ tới địa chỉ nội bộ hoặc bị chặn (loopback, mạng riêng, link-local, metadata): hãy dùng địa chỉ công khai, hoặc thêm máy chủ vào SVC_FETCH_ALLOW_HOSTS.",
  own_listener:
    "URL trỏ tới chính dịch vụ này (cổng của gate, máy chủ soạn thảo hoặc proxy trên máy này): dịch vụ không bao giờ tải tài liệu từ chính nó, hãy dùng địa chỉ của máy chủ lưu tệp.",
};

const DURING: Record<string, string> = {
  dns: "khi phân giải tên máy chủ",
  connect: "khi đang kết nối (máy chủ không trả lời bắt tay TCP/TLS)",
  answer: "khi chờ máy chủ trả lời (đã kết nối nhưng chưa có mã trạng thái)",
  body: "khi đang nhận nội dung tệp",
};

/** The Vietnamese sentence for a download_failed detail: names the step and what to change. */
export function downloadFailedMessage(d: Record<string, unknown>): string {
  switch (d.reason) {
    case "dns":
      return `Không phân giải được tên máy chủ ${d.host ?? ""} trong URL (bước DNS): hãy kiểm tra tên miền, hoặc DNS mà máy chủ svc dùng.`;
    case "connect":
      return d.during === "body"
        ? `Máy chủ trong URL ngắt kết nối giữa chừng sau ${d.received_bytes ?? 0} byte (bước nhận nội dung): hãy kiểm tra máy chủ lưu tệp.`
        : `Không kết nối được tới ${d.host ?? "máy chủ"} cổng ${d.port ?? "?"} (bước kết nối, ${d.code ?? "lỗi"}): máy chủ tắt, tường lửa chặn, hoặc sai cổng.`;
    case "tls":
      return `Bắt tay TLS với ${d.host ?? "máy chủ"} thất bại (bước TLS, ${d.code ?? "lỗi"}): chứng chỉ hết hạn, tự ký hoặc không khớp tên miền; hãy dùng chứng chỉ hợp lệ cho đúng tên.`;
    case "timeout":
      return `Tải tệp từ URL quá ${Math.round(Number(d.timeoutMs ?? 0) / 1000)} giây, bị cắt ${DURING[String(d.during)] ?? ""}: hãy để máy chủ lưu tệp trả lời nhanh hơn.`;
    case "too_many_redirects":
      return `URL chuyển hướng quá ${d.limit ?? ""} lần (bước chuyển hướng): hãy đưa địa chỉ cuối cùng của tệp.`;
    case "redirect":
      return `Máy chủ trong URL trả về chuyển hướng ${d.status}${d.location_host ? ` tới ${d.location_host}` : ""}, nhưng ở đây không đi theo chuyển hướng: hãy dùng địa chỉ đích trực tiếp.`;
    case "status":
      return `Máy chủ trong URL trả về mã ${d.status} thay vì 200 (nội dung: ${d.content_type || "không có Content-Type"}, dạng ${d.body_kind ?? "?"})${
        d.body_kind === "html" ? ": có lẽ là trang đăng nhập — URL phải tải được tệp mà không cần phiên trình duyệt (URL có chữ ký hoặc token)" : ": hãy kiểm tra đường dẫn và quyền truy cập"
      }.`;
    default:
      return "Không tải được tệp từ URL.";
  }
}

/** The Vietnamese sentence for a url_not_allowed detail: the rule, and the refused block. */
export function notAllowedMessage(d: Record<string, unknown>): string {
  const base = NOT_ALLOWED[String(d.rule)] ?? NOT_ALLOWED.bad_url!;
  const hop = d.redirect_hop ? ` (ở bước chuyển hướng thứ ${d.redirect_hop})` : "";
  if (d.rule === "forbidden_address" && d.address_range) return `${base.replace(/\.$/, "")}${hop}. Khối địa chỉ bị chặn: ${d.address_range}.`;
  return hop ? `${base.replace(/\.$/, "")}${hop}.` : base;
}

/** Maps a FetchError to the spec's error; anything else is passed through unchanged. */
export function fetchErrorToService(e: unknown, maxBytes: number): unknown {
  if (!(e instanceof FetchError)) return e;
  if (e.kind === "too_large") {
    const mb = Math.round(maxBytes / 1024 / 1024);
    const declared = typeof e.detail.declared_bytes === "number" ? e.detail.declared_bytes : undefined;
    return new ServiceError(
      "file_too_large",
      declared !== undefined
        ? `Tệp tại URL có ${Math.ceil(declared / 1048576)} MB (theo Content-Length), vượt quá ${mb} MB cho phép.`
        : `Tệp tại URL vượt quá ${mb} MB cho phép (dừng khi đang nhận nội dung).`,
      { limit_mb: mb, reason: "too_large", ...(declared !== undefined ? { declared_bytes: declared } : {}) },
    );
  }
  if (e.kind === "url_not_allowed") return new ServiceError("url_not_allowed", notAllowedMessage(e.detail), e.detail);
  return new ServiceError("download_failed", downloadFailedMessage(e.detail), e.detail);
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
    const range = forbiddenRange(host) ?? "listed for another port";
    const detail = { rule: "forbidden_address", host, port, address_range: range, literal: true };
    throw new ServiceError("url_not_allowed", notAllowedMessage(detail), detail);
  }
}
