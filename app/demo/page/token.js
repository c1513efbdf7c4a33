// The token checker page: sends the pasted config to /svc/demo/token-check (the server checks it
// with the service's own secrets and rules) and shows the answer in words.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; }); }

  function render(r) {
    var sig = r.signature.verified_by
      ? "Chữ ký khớp khóa <b id=\"verified-by\">" + esc(r.signature.verified_by) + "</b>" +
        (r.signature.verified_by === r.signature.expected ? " (khóa mà phiên nhúng dùng)." : ", nhưng phiên nhúng dùng " + esc(r.signature.expected) + ".")
      : "<span id=\"verified-by\" class=\"bad\">Không khóa nào đã cấu hình khớp chữ ký</span> (đã thử: " + esc(r.signature.tried.join(", ") || "không có khóa") + ").";
    var exp = r.expires.exp ? "exp " + esc(r.expires.exp) + " (" + (r.expires.seconds_left > 0 ? "còn " + r.expires.seconds_left + " giây" : "đã qua " + -r.expires.seconds_left + " giây") + ")" : "không có exp";
    var verdict = r.verdict === "accepted"
      ? '<p id="verdict" class="ok">POST /svc/embed/session sẽ nhận cấu hình này.</p>'
      : '<p id="verdict" class="bad">POST /svc/embed/session sẽ từ chối' + (r.error ? ": " + esc(r.error.code) + " — " + esc(r.error.message) : ".") + "</p>";
    var problems = r.problems.length
      ? '<h2>Mọi trường bị từ chối</h2><ul id="problems">' + r.problems.map(function (p) {
          return '<li data-path="' + esc(p.path) + '" data-code="' + esc(p.code) + '"><code>' + esc(p.path) + "</code> " + esc(p.code) + ": " + esc(p.message) + "</li>";
        }).join("") + "</ul>"
      : '<p id="problems">Không có trường nào bị từ chối.</p>';
    $("report").innerHTML = verdict + "<p>" + sig + " " + exp + "</p>" + problems +
      "<h2>Header</h2><pre id=\"header\">" + esc(JSON.stringify(r.header, null, 2)) + "</pre>" +
      "<h2>Payload (đọc không xác minh)</h2><pre id=\"payload\">" + esc(JSON.stringify(r.payload, null, 2)) + "</pre>";
    window.tokenReport = r;
  }

  async function check() {
    var res = await fetch("/svc/demo/token-check", { method: "POST", headers: { "Content-Type": "text/plain" }, body: $("token").value });
    var body = await res.json();
    if (!res.ok) {
      $("report").innerHTML = '<p id="verdict" class="bad">' + esc(body.error.message) + " (" + esc(body.error.code) + ", " + esc(body.error.request_id) + ")</p>";
      return;
    }
    render(body);
  }

  $("check").addEventListener("click", check);
  $("sample").addEventListener("click", async function () {
    var c = await (await fetch("/svc/demo/config?sample=docx")).json();
    $("token").value = c.token || JSON.stringify(c);
  });
})();
