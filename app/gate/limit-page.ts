// The connection-limit page (HTTP 429) a user sees instead of the editor when the cap is reached at
// the page stage: in Vietnamese, with "Open read-only" (the same editor URL with permission=readonly,
// which Collabora-compatible editors open without edit rights) and "Try again" (reload).

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The editor URL with permission=readonly set; only a path-absolute URI is accepted. */
export function readOnlyUrl(rawUri: string): string | null {
  if (!rawUri.startsWith("/") || rawUri.startsWith("//")) return null;
  try {
    const u = new URL(rawUri, "http://x");
    u.searchParams.set("permission", "readonly");
    // Dot segments can leave "//host/…" after normalisation: a scheme-relative link to another site.
    if (u.host !== "x" || u.pathname.startsWith("//")) return null;
    return u.pathname + u.search;
  } catch {
    return null;
  }
}

export function limitPage(d: { limit: number; current: number; edition: string; rawUri: string }): string {
  const ro = readOnlyUrl(d.rawUri);
  // JSON in a script, with < escaped: the URI is the user's own request, never HTML-interpreted.
  const roJson = JSON.stringify(ro).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="vi"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Đã đạt giới hạn kết nối</title>
<style>body{font-family:system-ui,sans-serif;background:#f5f6f8;color:#222;display:flex;min-height:100vh;align-items:center;justify-content:center;margin:0}
main{background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002;padding:2rem;max-width:32rem}
h1{font-size:1.3rem;margin-top:0}.buttons{display:flex;gap:.75rem;margin-top:1.5rem}
button{font:inherit;padding:.55rem 1.1rem;border-radius:5px;border:1px solid #2563eb;cursor:pointer}
#readonly{background:#2563eb;color:#fff}#retry{background:#fff;color:#2563eb}small{color:#666}</style></head>
<body><main>
<h1>Đã đạt giới hạn số người chỉnh sửa đồng thời</h1>
<p>Máy chủ đang có ${esc(String(d.current))} trên ${esc(String(d.limit))} phiên chỉnh sửa được phép (phiên bản ${esc(d.edition)}). Bạn vẫn có thể mở tài liệu ở chế độ chỉ đọc, hoặc thử lại sau khi có người đóng tài liệu.</p>
<div class="buttons"><button id="readonly" type="button">Mở chế độ chỉ đọc</button><button id="retry" type="button">Thử lại</button></div>
<p><small>Các phiên đang mở không bị ảnh hưởng và việc lưu tài liệu không bị chặn.</small></p>
</main>
<script>
(function(){var ro=${roJson};
var b=document.getElementById("readonly");if(!ro){b.disabled=true;}else{b.onclick=function(){location.href=ro;};}
document.getElementById("retry").onclick=function(){location.reload();};})();
</script></body></html>
`;
}
