// Minimal editor client: connects the document WebSocket (docs/editing-protocol.md), draws the
// tiles it asks for on a canvas, forwards keys, text input (IME composition included) and mouse
// clicks, and speaks the postMessage API with the host page. The rich UI comes later.
(function () {
  "use strict";
  var TWIPS_PER_PX = 15, TILE_PX = 256, TILE_TW = TILE_PX * TWIPS_PER_PX;
  var body = document.body, ds = body.dataset;
  var q = new URLSearchParams(location.search);
  var wopiSrc = q.get("WOPISrc") || "";
  var lang = q.get("lang") || "en-US";
  var inFrame = window.parent !== window;
  var targetOrigin = ds.postmessageOrigin || "*";
  var hostReady = false, docLoaded = false, everModified = false, modified = false;
  var status = null, ws = null, tileSeq = 0, pendingTiles = {}, haveTiles = {}, redrawTimer = 0;
  var canvas = document.getElementById("canvas"), ctx = canvas.getContext("2d");
  var viewport = document.getElementById("viewport"), ime = document.getElementById("ime");
  var cursorEl = document.getElementById("cursor"), stateEl = document.getElementById("state");
  var partsEl = document.getElementById("parts"), msgEl = document.getElementById("message");
  window.edState = { loaded: false, modified: false, tilesDrawn: 0, errors: [], readOnly: true, status: null };

  function post(id, values) {
    if (!inFrame) return;
    window.parent.postMessage(JSON.stringify({ MessageId: id, SendTime: Date.now(), Values: values || {} }), targetOrigin);
  }
  function showMessage(t) { msgEl.textContent = t; msgEl.hidden = !t; }
  function send(t) { if (ws && ws.readyState === 1) ws.send(t); }

  // ---- WebSocket (Collabora's URL form: /ed/<enc docURL?params>/ws?WOPISrc=<enc>&compat=/ws)
  var docUrl = (function () { try { return decodeURIComponent(wopiSrc); } catch (e) { return wopiSrc; } })();
  var params = "access_token=" + encodeURIComponent(ds.accessToken || "") + "&access_token_ttl=" + encodeURIComponent(ds.accessTokenTtl || "0");
  if (ds.noAuthHeader === "1") params += "&no_auth_header=1";
  if (q.get("permission") === "readonly") params += "&permission=readonly";
  var wsUrl = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ed/" +
    encodeURIComponent(docUrl + "?" + params) + "/ws?WOPISrc=" + encodeURIComponent(wopiSrc) + "&compat=/ws";
  ws = new WebSocket(wsUrl);
  ws.binaryType = "arraybuffer";
  ws.onopen = function () {
    send("coolclient 0.1 " + Date.now() + " " + performance.now());
    send("load url=" + encodeURIComponent(docUrl) + " lang=" + lang + " clientvisiblearea=0;0;" + viewport.clientWidth * TWIPS_PER_PX + ";" + viewport.clientHeight * TWIPS_PER_PX);
  };
  ws.onclose = function () { if (docLoaded) stateEl.textContent = "disconnected"; };
  ws.onmessage = function (ev) {
    if (typeof ev.data !== "string") return onTile(new Uint8Array(ev.data));
    var t = ev.data, sp = t.indexOf(": "), cmd = sp < 0 ? t : t.slice(0, sp), arg = sp < 0 ? "" : t.slice(sp + 2);
    switch (cmd) {
      case "wopi": {
        var w = JSON.parse(arg);
        if (w.PostMessageOrigin) targetOrigin = w.PostMessageOrigin;
        document.getElementById("docname").textContent = w.BaseFileName || "";
        document.getElementById("save").hidden = !!w.HideSaveOption;
        post("App_LoadingStatus", { Status: "Frame_Ready", Features: { VersionStates: true } });
        break;
      }
      case "perm":
        window.edState.readOnly = arg.trim() === "readonly";
        stateEl.textContent = window.edState.readOnly ? "read-only" : "";
        break;
      case "status": onStatus(JSON.parse(arg)); break;
      case "invalidatetiles": onInvalidate(arg); break;
      case "invalidatecursor": onCursor(arg); break;
      case "statechanged":
        if (arg.indexOf(".uno:ModifiedStatus=") === 0) {
          var m = arg.slice(20) === "true";
          if (m !== modified) { modified = m; everModified = everModified || m; window.edState.modified = m; post("Doc_ModifiedStatus", { Modified: m }); }
          stateEl.textContent = (window.edState.readOnly ? "read-only" : "") + (m ? " modified" : "");
        }
        break;
      case "saveresult": {
        var r = JSON.parse(arg);
        window.edState.lastSave = r;
        if (r.notify) post("Action_Save_Resp", { success: r.success, result: r.result, errorMsg: r.errorMsg || "" });
        break;
      }
      case "error":
        window.edState.errors.push(arg);
        if (/kind=(unauthorized|faileddocloading|crashed|documentconflict|savetoolarge|savefailed|saveunauthorized)/.test(arg)) showMessage("Error: " + arg);
        if (!docLoaded && /cmd=(load|internal)/.test(arg)) post("App_LoadingStatus", { Status: "Failed" });
        break;
      case "close": {
        var reasons = { ownertermination: "OwnerTermination", idle: "DocumentIdle", oom: "OOM", shuttingdown: "ShuttingDown", docdisconnected: "DocumentDisconnected" };
        post("Session_Closed", { Reason: reasons[arg.trim()] || arg.trim() });
        showMessage("The document was closed (" + arg.trim() + "). Reload to continue.");
        break;
      }
    }
  };

  function onStatus(st) {
    var first = !status;
    status = st; window.edState.status = st;
    var w = Math.min(Math.ceil(st.width / TWIPS_PER_PX), 20000), h = Math.min(Math.ceil(st.height / TWIPS_PER_PX), 30000);
    if (st.type === "spreadsheet") { w = Math.min(w, 4000); h = Math.min(h, 6000); }
    canvas.width = Math.max(w, 1); canvas.height = Math.max(h, 1);
    document.getElementById("canvas-wrap").style.width = canvas.width + "px";
    haveTiles = {};
    if (st.partNames && st.partNames.length > 1) {
      partsEl.hidden = false;
      partsEl.innerHTML = "";
      st.partNames.forEach(function (n, i) { var o = document.createElement("option"); o.value = i; o.textContent = n; partsEl.appendChild(o); });
      partsEl.value = String(st.selectedPart || 0);
    }
    requestVisible();
    if (first) {
      docLoaded = true; window.edState.loaded = true;
      post("App_LoadingStatus", { Status: "Document_Loaded", DocumentLoadedTime: Date.now() });
      ime.focus();
    }
  }

  function requestVisible() {
    if (!status) return;
    var x0 = Math.floor(viewport.scrollLeft / TILE_PX), y0 = Math.floor(viewport.scrollTop / TILE_PX);
    var x1 = Math.min(Math.ceil((viewport.scrollLeft + viewport.clientWidth) / TILE_PX), Math.ceil(canvas.width / TILE_PX));
    var y1 = Math.min(Math.ceil((viewport.scrollTop + viewport.clientHeight) / TILE_PX), Math.ceil(canvas.height / TILE_PX));
    for (var ty = y0; ty < y1; ty++) for (var tx = x0; tx < x1; tx++) {
      var key = tx + ":" + ty;
      if (haveTiles[key] || pendingTiles[key]) continue;
      pendingTiles[key] = true;
      send("tile part=" + (status.selectedPart || 0) + " width=" + TILE_PX + " height=" + TILE_PX + " x=" + tx * TILE_TW + " y=" + ty * TILE_TW + " w=" + TILE_TW + " h=" + TILE_TW + " id=" + (++tileSeq));
    }
  }

  function onTile(bytes) {
    var nl = bytes.indexOf(10);
    var head = new TextDecoder().decode(bytes.subarray(0, nl)), a = {};
    head.replace(/^tile: /, "").split(" ").forEach(function (kv) { var i = kv.indexOf("="); if (i > 0) a[kv.slice(0, i)] = kv.slice(i + 1); });
    var px = Math.round(Number(a.x) / TWIPS_PER_PX), py = Math.round(Number(a.y) / TWIPS_PER_PX);
    var key = Math.round(px / TILE_PX) + ":" + Math.round(py / TILE_PX);
    delete pendingTiles[key];
    if (status && Number(a.part) !== (status.selectedPart || 0)) return;
    createImageBitmap(new Blob([bytes.subarray(nl + 1)], { type: "image/png" })).then(function (img) {
      ctx.drawImage(img, px, py);
      haveTiles[key] = true;
      window.edState.tilesDrawn++;
    });
  }

  function onInvalidate(arg) {
    if (/^EMPTY/.test(arg)) { haveTiles = {}; }
    else {
      var n = arg.split(",").map(function (s) { return Number(s.trim()); });
      var x0 = Math.floor(n[0] / TILE_TW), y0 = Math.floor(n[1] / TILE_TW), x1 = Math.floor((n[0] + n[2]) / TILE_TW), y1 = Math.floor((n[1] + n[3]) / TILE_TW);
      for (var ty = y0; ty <= y1; ty++) for (var tx = x0; tx <= x1; tx++) delete haveTiles[tx + ":" + ty];
    }
    clearTimeout(redrawTimer);
    redrawTimer = setTimeout(requestVisible, 30);
  }

  function onCursor(arg) {
    var n = arg.split(",").map(function (s) { return Number(s.trim()); });
    if (n.length < 4 || !isFinite(n[0])) { cursorEl.hidden = true; return; }
    cursorEl.hidden = false;
    cursorEl.style.left = n[0] / TWIPS_PER_PX + "px"; cursorEl.style.top = n[1] / TWIPS_PER_PX + "px";
    cursorEl.style.height = Math.max(n[3] / TWIPS_PER_PX, 10) + "px";
    ime.style.left = cursorEl.style.left; ime.style.top = cursorEl.style.top;
  }

  viewport.addEventListener("scroll", function () { requestVisible(); });
  partsEl.addEventListener("change", function () { send("setclientpart part=" + partsEl.value); });

  // ---- input
  var KEYS = { Backspace: 1283, Delete: 1286, Enter: 1280, Tab: 1282, Escape: 1281, ArrowDown: 1024, ArrowUp: 1025, ArrowLeft: 1026, ArrowRight: 1027, Home: 1028, End: 1029, PageUp: 1030, PageDown: 1031 };
  var composing = false;
  function key(code, ch) { send("key type=input char=" + (ch || 0) + " key=" + code); send("key type=up char=" + (ch || 0) + " key=" + code); }
  ime.addEventListener("keydown", function (e) {
    if (composing || e.isComposing) return;
    var mod = e.ctrlKey || e.metaKey;
    if (mod && (e.key === "z" || e.key === "Z")) { e.preventDefault(); send("uno .uno:Undo"); return; }
    if (mod && (e.key === "y" || e.key === "Y")) { e.preventDefault(); send("uno .uno:Redo"); return; }
    if (mod && (e.key === "s" || e.key === "S")) { e.preventDefault(); doSave(false, false, false, ""); return; }
    var code = KEYS[e.key];
    if (code) { e.preventDefault(); key(code + (e.shiftKey ? 4096 : 0) + (mod ? 8192 : 0), e.key === "Enter" ? 13 : e.key === "Tab" ? 9 : 0); }
  });
  ime.addEventListener("compositionstart", function () { composing = true; });
  ime.addEventListener("compositionupdate", function (e) { send("textinput text=" + encodeURIComponent(e.data || "") + " end=0"); });
  ime.addEventListener("compositionend", function (e) {
    composing = false;
    if (e.data) send("textinput text=" + encodeURIComponent(e.data));
    ime.value = "";
  });
  ime.addEventListener("input", function (e) {
    if (composing || e.isComposing) return;
    if (e.inputType === "insertText" && e.data) send("textinput text=" + encodeURIComponent(e.data));
    ime.value = "";
  });
  function mouse(type, e) {
    var r = canvas.getBoundingClientRect();
    send("mouse type=" + type + " x=" + Math.round((e.clientX - r.left) * TWIPS_PER_PX) + " y=" + Math.round((e.clientY - r.top) * TWIPS_PER_PX) + " count=" + (e.detail || 1) + " buttons=1 modifier=" + (e.shiftKey ? 4096 : 0));
  }
  canvas.addEventListener("mousedown", function (e) { mouse("buttondown", e); });
  canvas.addEventListener("mouseup", function (e) { mouse("buttonup", e); ime.focus(); });
  viewport.addEventListener("click", function () { ime.focus(); });

  // ---- saving and closing
  function doSave(dontTerminateEdit, dontSaveIfUnmodified, notify, extendedData) {
    send("save dontTerminateEdit=" + (dontTerminateEdit ? 1 : 0) + " dontSaveIfUnmodified=" + (dontSaveIfUnmodified ? 1 : 0) + " notify=" + (notify ? 1 : 0) + (extendedData ? " extendedData=" + encodeURIComponent(extendedData) : ""));
  }
  document.getElementById("save").addEventListener("click", function () { post("UI_Save", { source: "toolbar" }); doSave(true, false, false, ""); });
  document.getElementById("undo").addEventListener("click", function () { send("uno .uno:Undo"); });
  document.getElementById("redo").addEventListener("click", function () { send("uno .uno:Redo"); });
  var closeBtn = document.getElementById("close");
  closeBtn.hidden = !/^(1|true|yes|on)$/i.test(q.get("closebutton") || "");
  closeBtn.addEventListener("click", function () { post("UI_Close", { EverModified: everModified }); post("close", { EverModified: everModified }); });

  // ---- postMessage from the host
  window.addEventListener("message", function (e) {
    if (e.source !== window.parent) return;
    var msg = e.data;
    try { if (typeof msg === "string") msg = JSON.parse(msg); } catch (err) { return; }
    if (!msg || !msg.MessageId) return;
    var v = msg.Values || {};
    switch (msg.MessageId) {
      case "Host_PostmessageReady": hostReady = true; break;
      case "Close_Session": send("closedocument"); break;
      case "Grab_Focus": ime.focus(); break;
      case "Action_Save":
        if (!docLoaded) return;
        doSave(!!v.DontTerminateEdit, !!v.DontSaveIfUnmodified, !!v.Notify, v.ExtendedData || "");
        break;
      case "Action_Close":
        if (ws) ws.close();
        break;
      case "Get_Views": post("Get_Views_Resp", []); break;
    }
  });
})();
