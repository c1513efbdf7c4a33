// A save callback's attempt in words (Vietnamese, as the spec's messages are): what happened and
// what the integrator changes. Shown in the session state's callback history and on the demo page.

import type { AttemptRow } from "./store";

const WHAT: Record<string, string> = {
  redirect: "trả về chuyển hướng, mà callback không bao giờ đi theo chuyển hướng: hãy đặt callbackUrl là địa chỉ cuối cùng",
  timeout: "không trả lời trong 10 giây: hãy trả 2xx ngay rồi xử lý sau (tải tệp ở nền)",
  connect: "không kết nối được (máy nhận tắt, sai cổng hoặc tường lửa chặn)",
  tls: "bắt tay TLS thất bại: chứng chỉ của máy nhận không hợp lệ hoặc không khớp tên",
  dns: "không phân giải được tên máy nhận: hãy kiểm tra tên miền của callbackUrl",
  too_large: "trả lời quá dài (nội dung trả lời bị bỏ qua, chỉ cần mã 2xx)",
  url_not_allowed: "callbackUrl trỏ tới địa chỉ nội bộ bị quy tắc SSRF chặn: hãy dùng địa chỉ công khai hoặc nhờ quản trị viên thêm máy vào SVC_FETCH_ALLOW_HOSTS",
  bad_body: "không tạo được nội dung callback (lỗi máy chủ)",
  error: "gặp lỗi không mong đợi",
};

export function attemptInWords(a: Pick<AttemptRow, "attempt" | "status" | "error" | "latency_ms" | "next_attempt_at">): string {
  const ms = a.latency_ms === null ? "" : ` sau ${a.latency_ms} ms`;
  let what: string;
  if (a.error === null && a.status !== null && a.status >= 200 && a.status < 300) what = `máy nhận trả ${a.status}${ms}: đã giao`;
  else if (a.error === "status")
    what = `máy nhận trả ${a.status}${ms} thay vì 2xx: ${
      a.status === 401 || a.status === 403
        ? "có lẽ máy nhận từ chối chữ ký — hãy so SVC_EMBED_CALLBACK_SECRET với khóa máy nhận dùng, và đồng hồ hai bên (lệch tối đa 300 giây)"
        : a.status === 404
          ? "đường dẫn callbackUrl không tồn tại trên máy nhận"
          : "hãy xem nhật ký của máy nhận"
    }`;
  else what = `${a.status !== null ? `máy nhận trả ${a.status}${ms}, ` : ""}${WHAT[a.error ?? "error"] ?? WHAT.error!}${a.status === null ? ms : ""}`;
  const next = a.next_attempt_at !== null ? `; thử lại lúc ${new Date(a.next_attempt_at).toISOString()}` : a.error !== null ? "; không thử lại nữa" : "";
  return `Lần ${a.attempt}: ${what}${next}.`;
}
