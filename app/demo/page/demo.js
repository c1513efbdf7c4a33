// The demo page: opens a sample through api.js with a config made by the demo's "backend"
// (/svc/demo/config, signed when the service has an embed secret), logs every event with its
// payload, calls each method, and shows what the demo's callback receiver got.
(function () {
  "use strict";
  var q = new URLSearchParams(location.search);
  var $ = function (id) { return document.getElementById(id); };
  var state = { editor: null, log: [] };
  window.demo = state;

  // The page's language: ?lang=, else the browser's (Vietnamese or English), switched with #lang.
  // Its texts come from the one language table (app/i18n), served as /svc/demo/i18n.js.
  function pageLang() {
    var l = q.get("lang") || (navigator.languages && navigator.languages[0]) || navigator.language || "en";
    return /^vi\b/i.test(l) ? "vi" : "en";
  }
  var T = window.SVC_DEMO_TEXTS[pageLang()];
  function translate() {
    T = window.SVC_DEMO_TEXTS[pageLang()];
    document.documentElement.lang = pageLang();
    document.querySelectorAll("[data-t]").forEach(function (e) { e.textContent = T[e.getAttribute("data-t")]; });
    document.querySelectorAll("[data-t-aria]").forEach(function (e) { e.setAttribute("aria-label", T[e.getAttribute("data-t-aria")]); });
    document.querySelectorAll("[data-t-title]").forEach(function (e) { e.setAttribute("title", T[e.getAttribute("data-t-title")]); });
    $("lang").value = pageLang();
    showSamples();
  }
  function showSamples() {
    if (!state.samples) return;
    var chosen = $("sample").value;
    $("sample").innerHTML = state.samples.map(function (s) { return '<option value="' + esc(s.id) + '">' + esc(T.samples[s.id] || s.label) + "</option>"; }).join("");
    if (chosen) $("sample").value = chosen;
  }
  translate();

  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; }); }

  function log(name, payload, isError) {
    var entry = { name: name, payload: payload, at: new Date().toISOString() };
    state.log.push(entry);
    var li = document.createElement("li");
    if (isError) li.className = "error";
    li.innerHTML = '<span class="name">' + esc(name) + "</span> " + esc(entry.at.slice(11, 23)) + "<br>" + esc(JSON.stringify(payload));
    $("events").prepend(li);
  }

  var events = {};
  ["onReady", "onDocumentLoaded", "onModified", "onSaved", "onClose", "onLimitReached", "onError"].forEach(function (n) {
    events[n] = function (e) { log(n, e, n === "onError"); if (n === "onClose") showClosed(); };
  });

  // Where the editor was, once its session ended: what happened, and a way back in (the same
  // document key: the saved document opens again).
  function showClosed() {
    var box = $("editor");
    box.innerHTML = '<div class="closed" role="status"><p>' + esc(T.sessionClosed) + '</p><button type="button" id="reopen">' + esc(T.openAgain) + "</button></div>";
    $("reopen").addEventListener("click", function () { open(); });
  }

  function params() {
    return {
      sample: q.get("sample") || "docx",
      key: q.get("key") || "",
      user: q.get("user") || "demo-user-1",
      name: q.get("name") || T.defaultUser,
      mode: q.get("mode") || "edit",
      lang: pageLang(),
    };
  }

  function newKey(sample) { return "demo-" + sample + "-" + Date.now().toString(36); }

  function syncUrl(p) {
    q = new URLSearchParams({ sample: p.sample, key: p.key, user: p.user, name: p.name, mode: p.mode, lang: p.lang });
    history.replaceState(null, "", "?" + q.toString());
    var second = new URLSearchParams({ sample: p.sample, key: p.key, user: "demo-user-2", name: T.secondUserName, mode: "edit", lang: p.lang });
    $("second").href = "?" + second.toString();
  }

  async function open() {
    if (state.editor) state.editor.destroy();
    var p = params();
    if (!p.key) p.key = newKey(p.sample);
    syncUrl(p);
    $("sample").value = p.sample;
    $("name").value = p.name;
    $("mode").value = p.mode;
    var res = await fetch("/svc/demo/config?" + new URLSearchParams(p).toString());
    var config = await res.json();
    if (!res.ok) { log("demo: config", config, true); return; }
    config.events = events;
    state.editor = new SVC.Editor("editor", config);
  }

  async function call(name) {
    var e = state.editor;
    if (!e) return;
    try {
      var r;
      if (name === "save") r = await e.save();
      else if (name === "getInfo") r = await e.getInfo();
      else if (name === "readOnly") r = await e.setReadOnly(true);
      else if (name === "edit") r = await e.setReadOnly(false);
      else if (name === "close") r = await e.close();
      else if (name === "destroy") r = e.destroy();
      log(name + "() →", r === undefined ? null : r);
    } catch (err) {
      log(name + "() ✗", err, true);
    }
  }

  async function pollCallbacks() {
    try {
      var list = await (await fetch("/svc/demo/callbacks")).json();
      $("callbacks").innerHTML = list.map(function (c) {
        var b = c.body || {};
        var sig = c.signature.ok ? '<span class="ok">' + esc(T.signatureOk) + "</span>" : '<span class="bad">' + esc(T.signatureBad) + esc(c.signature.reason) + "</span>";
        var link = b.url ? ' <a href="' + esc(b.url) + '">' + esc(T.downloadVersion) + esc(b.version) + "</a>" : "";
        return "<li>" + esc(c.received_at.slice(11, 19)) + " <b>" + esc(c.event) + "</b> " + esc(b.key || "") + " v" + esc(b.version) + " " + sig + link +
          (b.savedBy ? "<br>" + esc(T.by) + esc(b.savedBy.name) + (b.final ? esc(T.finalSave) : "") + (b.autosave ? esc(T.autosave) : "") : "") + "</li>";
      }).join("");
      state.callbacks = list;
    } catch (err) { /* the next poll tries again */ }
  }

  // Why a callback did or did not arrive, in words: the session state's delivery history.
  // An attempt in the page's language. The service's own explanation is Vietnamese (the spec's
  // messages are): a Vietnamese page shows it, richer (what to change); others are told from
  // the attempt's fields.
  function attemptInWords(a) {
    if (pageLang() === "vi") return a.explanation;
    var fill = function (t) {
      return t.replace("{n}", a.attempt).replace("{status}", a.status).replace("{ms}", a.latency_ms).replace("{error}", a.error + (a.status ? " (HTTP " + a.status + ")" : ""))
        .replace("{at}", a.next_attempt_at ? new Date(a.next_attempt_at).toLocaleTimeString() : "");
    };
    return a.error ? fill(T.attemptFailed) + (a.next_attempt_at ? fill(T.nextAttemptAt) : "") : fill(T.attemptAnswered);
  }

  async function pollDeliveries() {
    var e = state.editor;
    if (!e) return;
    try {
      var info = await e.getInfo();
      state.deliveries = info.callbackHistory;
      $("deliveries").innerHTML = info.callbackHistory.map(function (d) {
        var head = "<b>" + esc(d.event) + "</b> v" + esc(d.version) + " → " + esc(d.url_host) + ": " +
          (d.state === "delivered" ? '<span class="ok">' + esc(T.delivered) + "</span>" : d.state === "failed" ? '<span class="bad">' + esc(T.failed) + "</span>" : esc(T.delivering));
        var attempts = d.attempts.map(function (a) { return "<br>" + esc(attemptInWords(a)); }).join("");
        return '<li class="' + esc(d.state) + '">' + head + attempts + "</li>";
      }).join("");
    } catch (err) { /* the next poll tries again */ }
  }

  // Phones and tablets: the editor takes the screen's height under the header (demo.css), however
  // many lines the header wraps onto (85 % of the height under it put the editor's status bar off
  // the screen).
  var header = document.querySelector("header");
  function headerHeight() { document.documentElement.style.setProperty("--header-h", header.offsetHeight + "px"); }
  headerHeight();
  if (window.ResizeObserver) new ResizeObserver(headerHeight).observe(header);

  (async function init() {
    var samples = await (await fetch("/svc/demo/samples")).json();
    state.samples = samples;
    showSamples();
    $("open").addEventListener("click", function () {
      var p = params();
      var sample = $("sample").value;
      q.set("sample", sample);
      q.set("name", $("name").value || p.name);
      q.set("mode", $("mode").value);
      if (sample !== p.sample) q.set("key", newKey(sample));
      open();
    });
    $("new").addEventListener("click", function () { q.set("key", newKey($("sample").value)); open(); });
    // Another language: the page's texts, and the editor opened again in it (same document key).
    $("lang").addEventListener("change", function () { q.set("lang", $("lang").value); translate(); open(); });
    document.querySelectorAll("[data-call]").forEach(function (b) { b.addEventListener("click", function () { call(b.getAttribute("data-call")); }); });
    setInterval(pollCallbacks, 1500);
    setInterval(pollDeliveries, 2000);
    pollCallbacks();
    open();
  })();

  // Development: the page reloads itself when it, api.js (a restarted gate) or the editor's page
  // (a new /browser/<hash>/) changes, as `bun run dev` restarts what changed.
  var builds = null;
  function checkBuild() {
    Promise.all([
      fetch("/svc/demo/build", { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; }),
      fetch("/hosting/capabilities", { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; }),
    ]).then(function (r) {
      if (!r[0] || !r[1]) return; // a process restarting: ask again later
      var now = r[0].build + "/" + r[1].productVersionHash;
      if (builds && builds !== now) location.reload();
      builds = now;
    }, function () {}).then(function () { setTimeout(checkBuild, 1500); });
  }
  checkBuild();
})();
