// The one error catalogue: every error code of the spec with its HTTP status and a Vietnamese
// message for the user. Domain code throws ServiceError; the HTTP layer turns it into the spec's
// body. Nothing else decides statuses of errors.

export const ERROR_CATALOGUE = {
  // Shared by DocBuilder and the gate
  bad_request: { status: 400, message: "Yêu cầu không hợp lệ: hãy kiểm tra các tham số đã gửi." },
  unauthorized: { status: 401, message: "Thiếu hoặc sai thông tin xác thực: hãy gửi Authorization: Bearer với khóa API hoặc JWT hợp lệ." },
  token_expired: { status: 401, message: "Mã JWT đã hết hạn: hãy tạo mã mới với exp trong tương lai." },
  forbidden_feature: { status: 403, message: "Tính năng này không có trong phiên bản đang chạy." },
  not_found: { status: 404, message: "Không tìm thấy tài nguyên được yêu cầu." },
  gone: { status: 410, message: "Công việc hoặc tệp kết quả đã quá thời hạn lưu giữ và đã bị xóa." },
  file_too_large: { status: 413, message: "Tệp vượt quá dung lượng tối đa cho phép." },
  unsupported_format: { status: 415, message: "Định dạng nguồn không được hỗ trợ hoặc không thể chuyển sang định dạng đích này." },
  script_invalid: { status: 422, message: "Kịch bản svcscript không hợp lệ theo lược đồ JSON." },
  script_too_large: { status: 422, message: "Kịch bản vượt quá số đơn vị tối đa cho phép." },
  script_error: { status: 422, message: "Kịch bản hợp lệ nhưng gặp lỗi khi chạy." },
  template_error: { status: 422, message: "Mẫu tài liệu có lỗi: thẻ vòng lặp không cân bằng hoặc thiếu trường dữ liệu." },
  macro_not_allowed: { status: 422, message: "Mẫu tài liệu chứa macro, không được phép." },
  corrupt_source: { status: 422, message: "Không thể mở tệp nguồn: tệp bị hỏng hoặc không phải tài liệu văn phòng." },
  password_required: { status: 422, message: "Tệp được bảo vệ bằng mật khẩu: hãy gửi mật khẩu đúng." },
  url_not_allowed: { status: 422, message: "Địa chỉ URL không được phép theo quy tắc bảo mật (SSRF)." },
  download_failed: { status: 422, message: "Không tải được tệp từ địa chỉ URL đã cho." },
  rate_limited: { status: 429, message: "Đã vượt giới hạn số yêu cầu: hãy thử lại sau thời gian trong Retry-After." },
  internal: { status: 500, message: "Lỗi nội bộ không mong đợi: hãy thử lại một lần." },
  not_implemented: { status: 501, message: "Thao tác này chưa được hỗ trợ trong phiên bản v1." },
  queue_full: { status: 503, message: "Hàng đợi đã đầy: hãy thử lại sau thời gian trong Retry-After." },
  pool_unavailable: { status: 503, message: "Không có tiến trình xử lý nào đang hoạt động: hãy thử lại sau." },
  timeout: { status: 504, message: "Xử lý vượt quá thời gian cho phép: hãy dùng async=true cho tệp lớn." },

  // Gate and embedding
  invalid_config: { status: 400, message: "Cấu hình nhúng thiếu hoặc sai trường." },
  token_required: { status: 401, message: "Máy chủ yêu cầu JWT nhưng cấu hình không có token." },
  invalid_token: { status: 401, message: "Token không hợp lệ: sai chữ ký, không phải HS256, thiếu exp hoặc exp quá 24 giờ." },
  embed_auth_not_configured: { status: 401, message: "Máy chủ chưa cấu hình khóa ký JWT và chế độ không ký đang tắt." },
  invalid_session_token: { status: 401, message: "Authorization không khớp với phiên nhúng này." },
  origin_not_allowed: { status: 403, message: "Origin không nằm trong danh sách SVC_EMBED_ALLOWED_ORIGINS." },
  invalid_signature: { status: 403, message: "Chữ ký của liên kết tải xuống không đúng." },
  connection_limit_reached: { status: 403, message: "Đã đạt giới hạn số kết nối chỉnh sửa đồng thời." },
  link_expired: { status: 410, message: "Liên kết tải xuống đã hết hạn." },
  // Beyond the spec's tables (codes may be added): a WOPI PutFile whose X-COOL-WOPI-Timestamp is
  // not the current version's; only the editing server sees it (Collabora: document conflict).
  conflict: { status: 409, message: "Tài liệu đã thay đổi kể từ lần đọc trước: hãy tải lại trước khi lưu." },
  version_gone: { status: 410, message: "Phiên bản này đã bị dọn dẹp (chỉ giữ 5 phiên bản mới nhất và bản gốc)." },
  unsupported_file_type: { status: 415, message: "Loại tệp không được hỗ trợ: fileType phải là một trong docx, doc, odt, rtf, txt, xlsx, xls, ods, csv, pptx, ppt, odp." },
  editor_unavailable: { status: 503, message: "Không đọc được discovery của máy chủ soạn thảo: hãy thử lại sau." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export class ServiceError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    /** A more precise Vietnamese sentence naming what to fix; defaults to the catalogue's. */
    message?: string,
    readonly detail: Record<string, unknown> = {},
    /** Extra response headers, such as Retry-After. */
    readonly headers: Record<string, string> = {},
    /** Overrides the catalogue status where the spec allows it (405 for a wrong method). */
    status?: number,
  ) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.status = status ?? ERROR_CATALOGUE[code].status;
  }
}

export interface ErrorBody {
  error: { code: string; message: string; detail: Record<string, unknown>; request_id: string };
}

export function errorBody(err: ServiceError, requestId: string): ErrorBody {
  return { error: { code: err.code, message: err.message, detail: detailOf(err), request_id: requestId } };
}

/**
 * The spec: a `bad_request`'s `detail.errors` is `[{path, message}]`, whatever refused it (a
 * schema, a Content-Type, a cut-off body, a too-large form). Where the refusal named no field, the
 * body as a whole (path "") is named with the refusal's own message.
 */
function detailOf(err: ServiceError): Record<string, unknown> {
  if (err.code !== "bad_request" || Array.isArray(err.detail.errors) && err.detail.errors.length > 0) return err.detail;
  return { ...err.detail, errors: [{ path: "", message: err.message }] };
}

export const isServiceError = (e: unknown): e is ServiceError => e instanceof ServiceError;
