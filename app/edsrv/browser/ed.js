// The editor client (docs/editing-protocol.md). It connects the document WebSocket, keeps a cache of
// 256 px tiles per part and asks only for the tiles that are visible (again when the server
// invalidates them), draws them on a canvas the size of the viewport (a sizer element gives the
// scroll range of the whole document), draws the cursor, the selection, the cell cursor and the
// cursors of other views, forwards keys, text input (IME composition included) and mouse
// events, switches sheets and slides from a tab bar, saves, shows the modified state, and speaks
// Collabora's postMessage API with its host page.
//
// Hooks for the richer interface of a later issue: setZoom(twipsPerPx) (tiles are re-requested at
// the new scale), window.edState (what the page shows: loaded, modified, views, cursor, timings)
// and edApi.send / edApi.uno (one place where every command leaves).
(function () {
  "use strict";
  var TILE_PX = 256;
  var twipsPerPx = 15; // 100 % at 96 dpi
  var body = document.body, ds = body.dataset;
  var q = new URLSearchParams(location.search);
  var inFrame = window.parent !== window;
  var targetOrigin = ds.postmessageOrigin || "*";
  var docLoaded = false, everModified = false, modified = false, readOnly = true;
  var status = null, ws = null, tileSeq = 0;
  var cache = {};     // "part:tx:ty" → { bmp, stale }
  var pending = {};   // "part:tx:ty" → request time (performance.now())
  // Tiles invalidated while their request was in flight, with the pixel version they must have
  // reached (Infinity from a server that numbers nothing): the reply may have been painted before.
  var dirty = {};
  var sentArea = "";
  var lastInputAt = -1e9;
  var listeners = {}; // server frame name → functions of the interface (ui.js)
  var arriving = {};  // "part:tx:ty" → the application of the frames received for it so far
  var cacheKeys = []; // insertion order, for eviction
  var CACHE_MAX = 400;
  var docPx = { w: 1, h: 1 };
  var firstPaintKeys = null;
  var $ = function (id) { return document.getElementById(id); };
  var canvas = $("canvas"), ctx = canvas.getContext("2d");
  var viewport = $("viewport"), sizer = $("sizer"), ime = $("ime");
  var cursorEl = $("cursor"), cellEl = $("cellcursor"), selEl = $("selection"), overlays = $("overlays");
  var stateEl = $("state"), modEl = $("modified"), partsEl = $("parts"), msgEl = $("message");
  var loadingEl = $("loading"), loadingText = $("loading-text");
  var S = window.edState = {
    loaded: false, modified: false, readOnly: true, status: null, views: [], errors: [],
    tilesDrawn: 0, tilesPushed: 0, tilesRequested: 0, tileDeltas: 0, invalidations: 0, cursor: null, selection: [], cellCursor: null,
    firstPaintAt: 0, inputLatencies: [], inputAt: 0, lastSave: null, compositions: 0, marks: {},
    received: {}, // messages from the server by command, so a test that waits can say what did arrive
  };

  function post(id, values) {
    if (!inFrame) return;
    window.parent.postMessage(JSON.stringify({ MessageId: id, SendTime: Date.now(), Values: values || {} }), targetOrigin);
  }
  /** The page's one message line; `kind` lets the message go by itself when its cause clears (a save that works again). */
  function showMessage(t, kind) { msgEl.textContent = t; msgEl.hidden = !t; msgEl.dataset.kind = t ? kind || "" : ""; }
  function clearMessage(kind) { if (msgEl.dataset.kind === kind) showMessage(""); }
  /**
   * The indicator shown from the page's first paint (page.ts) goes once the first screen is drawn.
   * What the first screen does not need waits for it: the PNG decoder for typing (tiles decode
   * with createImageBitmap until it is there) and the interface's requests (the font list).
   */
  function loaded() {
    if (loadingEl.hidden) return;
    loadingEl.hidden = true;
    var s = document.createElement("script");
    s.src = "fflate.js"; s.async = true;
    document.body.appendChild(s);
    emit("firstpaint", "");
  }
  /** Opening failed: the indicator becomes a message that says why, in the page's language. */
  function loadFailed(text) {
    if (docLoaded || loadingEl.classList.contains("failed")) return;
    loadingEl.classList.add("failed");
    loadingEl.setAttribute("role", "alert");
    loadingText.textContent = text + " " + ds.textRetry;
  }
  function send(t) { if (ws && ws.readyState === 1) ws.send(t); }
  /** An edit the user made: remembered for the keystroke → updated tile timing. */
  function sendInput(t) {
    if (readOnly) return;
    // Never dropped without a word: while the editor reconnects, input is refused and the person told.
    if (!connected) { showMessage(ds.textOffline, "offline"); return; }
    lastInputAt = performance.now();
    if (!S.inputAt) S.inputAt = lastInputAt;
    send(t);
  }
  function rect(s) {
    var n = String(s).split(",").map(function (x) { return Number(x.trim()); });
    return n.length >= 4 && isFinite(n[0]) && isFinite(n[3]) ? { x: n[0], y: n[1], w: n[2], h: n[3] } : null;
  }
  function place(el, r) {
    el.style.left = r.x / twipsPerPx + "px"; el.style.top = r.y / twipsPerPx + "px";
    el.style.width = Math.max(r.w / twipsPerPx, 1) + "px"; el.style.height = Math.max(r.h / twipsPerPx, 1) + "px";
  }
  function part() { return status && status.type !== "text" ? status.selectedPart || 0 : 0; }
  /** The `name=value` words of a server frame (a tile header, tilestale, firstscreen). */
  function frameArgs(text) {
    var a = {};
    text.split(" ").forEach(function (kv) { var i = kv.indexOf("="); if (i > 0) a[kv.slice(0, i)] = kv.slice(i + 1); });
    return a;
  }
  var headerText = new TextDecoder(); // one for every tile frame's header line
  /** The cache key of the tile at twips x, y of a part, on a grid of tw twips. */
  function tileKeyAt(p, x, y, tw) { return (Number(p) || 0) + ":" + Math.round(Number(x) / tw) + ":" + Math.round(Number(y) / tw); }

  // ---- WebSocket: opened by connect.js in the page's <head>, taken over here
  var early = window.edSocket;
  ws = early.ws;
  function mark(n) { if (!S.marks[n]) S.marks[n] = performance.now(); }
  S.marks.socketCreated = early.createdAt;
  if (early.openAt) S.marks.socket = early.openAt;
  else ws.addEventListener("open", function () { mark("socket"); });
  // Leaving the page ends the view at once: a page kept in the back/forward cache would otherwise hold
  // its socket (and the document, the kit and a counted connection) until the browser evicts it.
  window.addEventListener("pagehide", function () { S.leaving = true; try { ws.close(1000); } catch (e) { /* closing */ } });
  window.addEventListener("pageshow", function (ev) { if (ev.persisted) location.reload(); });
  // ---- reconnecting: the editing server restarted, or the document's engine is being recovered
  // (its server replays what was typed into a new one); the page comes back to its own view.
  var connected = true, reconnectTries = 0, reconnectTimer = 0, stayClosed = false, framePosted = false;
  var RECONNECT_DELAYS = [250, 500, 1000, 2000, 4000, 8000, 15000, 30000, 30000, 30000]; // about two minutes
  S.connected = true; S.reconnects = 0;
  function onClose() {
    S.closed = true;
    if (S.leaving) return;
    if (!docLoaded) return loadFailed(ds.textLost);
    if (stayClosed) { stateEl.textContent = "disconnected"; return; }
    connected = S.connected = false;
    body.classList.add("offline");
    if (msgEl.dataset.kind !== "offline") showMessage(ds.textReconnecting, "reconnecting");
    if (reconnectTries >= RECONNECT_DELAYS.length) {
      showMessage(ds.textGaveUp, "gaveup");
      stateEl.textContent = "disconnected";
      post("Session_Closed", { Reason: "Disconnected" });
      return;
    }
    clearTimeout(reconnectTimer);
    reconnectTimer = setTimeout(reconnect, RECONNECT_DELAYS[reconnectTries++]);
  }
  function reconnect() {
    // What the page holds was drawn by the old view: kept on screen, asked again once the view is back.
    for (var k in cache) { cache[k].stale = true; cache[k].need = -1; }
    pending = {}; dirty = {}; arriving = {}; sentArea = "";
    var v = visible();
    ws = early.connect(false, [v.x, v.y, v.w, v.h].map(function (n) { return Math.round(n * twipsPerPx); }).join(";"));
    ws.onmessage = onMessage;
    ws.onclose = onClose;
    S.closed = false;
  }
  /** The view is back (its status arrived). */
  function backOnline() {
    if (connected) return;
    connected = S.connected = true;
    S.reconnects++;
    reconnectTries = 0;
    body.classList.remove("offline");
    clearMessage("reconnecting"); clearMessage("offline");
    stateEl.textContent = "";
    showState();
  }
  function onMessage(ev) {
    if (typeof ev.data !== "string") return onTile(new Uint8Array(ev.data));
    var t = ev.data, sp = t.indexOf(": "), cmd = sp < 0 ? t : t.slice(0, sp), arg = sp < 0 ? "" : t.slice(sp + 2);
    S.received[cmd] = (S.received[cmd] || 0) + 1;
    switch (cmd) {
      case "wopi": {
        mark("wopi");
        var w = JSON.parse(arg);
        if (w.PostMessageOrigin) targetOrigin = w.PostMessageOrigin;
        $("docname").textContent = w.BaseFileName || "";
        document.title = w.BaseFileName || document.title;
        $("save").hidden = !!w.HideSaveOption;
        if (!framePosted) post("App_LoadingStatus", { Status: "Frame_Ready", Features: { VersionStates: true } });
        framePosted = true;
        break;
      }
      case "perm":
        readOnly = S.readOnly = arg.trim() === "readonly";
        body.classList.toggle("readonly", readOnly);
        showState();
        break;
      case "status": mark("status"); backOnline(); onStatus(JSON.parse(arg)); break;
      case "invalidatetiles": onInvalidate(arg); break;
      case "invalidatecursor": onCursor(arg); break;
      case "cursorvisible": cursorEl.hidden = arg.trim() !== "true" || !S.cursor; break;
      case "textselection": onSelection(arg); break;
      case "cellcursor": onCellCursor(arg); break;
      case "invalidateviewcursor": onViewCursor(arg); break;
      case "textviewselection": onViewSelection(arg); break;
      case "cellviewcursor": onCellViewCursor(arg); break;
      case "setpart": if (status && Number(arg) !== status.selectedPart) send("status"); break;
      case "firstscreen": {
        // Tiles the server paints ahead for the first screen (our server only): counted as asked.
        var fs = frameArgs(arg), ftw = Number(fs.tilewidth);
        if (ftw !== TILE_PX * twipsPerPx || Number(fs.width) !== TILE_PX) break;
        var fx = String(fs.tileposx).split(","), fy = String(fs.tileposy).split(","), at = performance.now();
        for (var fi = 0; fi < fx.length; fi++) {
          var fk = tileKeyAt(fs.part, fx[fi], fy[fi], ftw);
          if (!cache[fk] && !pending[fk]) { pending[fk] = at; S.tilesRequested++; }
        }
        break;
      }
      case "tilestale": {
        // A tile of a part the view had left when the request arrived: forget it (asked again if that part comes back).
        var t = frameArgs(arg);
        delete pending[tileKeyAt(t.part, t.x, t.y, Number(t.w))];
        break;
      }
      case "viewinfo": onViews(JSON.parse(arg)); break;
      case "textselectioncontent": onSelectionContent(arg); break;
      case "statechanged":
        if (arg.indexOf(".uno:ModifiedStatus=") === 0) {
          var m = arg.slice(20).trim() === "true";
          if (m !== modified) { modified = S.modified = m; everModified = everModified || m; post("Doc_ModifiedStatus", { Modified: m }); }
          showState();
        }
        break;
      case "saveresult": {
        var r = JSON.parse(arg);
        S.lastSave = r;
        if (!r.success && r.result !== "unmodified") showMessage("Not saved: " + (r.errorMsg || r.result), "save");
        else if (r.success) clearMessage("save");
        if (r.notify) post("Action_Save_Resp", { success: r.success, result: r.result, errorMsg: r.errorMsg || "" });
        break;
      }
      case "error":
        S.errors.push(arg);
        if (arg.indexOf("cmd=recovery kind=actiondropped") >= 0) showMessage(ds.textActionDropped, "recovery");
        else if (/kind=(unauthorized|faileddocloading|crashed|documentconflict|savetoolarge|savefailed|saveunauthorized|docunloading|kitunavailable)/.test(arg)) showMessage("Error: " + arg, /cmd=storage/.test(arg) ? "save" : "");
        if (!docLoaded && /cmd=(load|internal)/.test(arg)) {
          post("App_LoadingStatus", { Status: "Failed" });
          loadFailed(/kind=unauthorized/.test(arg) ? ds.textUnauthorized : /kind=(kitunavailable|docunloading)/.test(arg) ? ds.textUnavailable : ds.textFailed);
        }
        break;
      case "close": {
        var why = arg.trim();
        // The server is restarting or recovering the document's engine: the page reconnects (onClose).
        if (why === "recovering" || why === "shuttingdown") { showMessage(ds.textReconnecting, "reconnecting"); break; }
        stayClosed = true;
        var reasons = { ownertermination: "OwnerTermination", idle: "DocumentIdle", oom: "OOM", docdisconnected: "DocumentDisconnected", replaced: "SessionReplaced" };
        post("Session_Closed", { Reason: reasons[why] || why });
        showMessage(why === "replaced" ? ds.textReplaced : "The document was closed (" + why + "). Reload to continue.", "closed");
        break;
      }
    }
    emit(cmd, arg);
  }
  // The frames that came before this script ran are read once the interface script (ui.js) is
  // there to hear them too: parser-blocking scripts have all run at DOMContentLoaded.
  function takeOver() {
    ws.onmessage = onMessage;
    ws.onclose = onClose;
    var frames = early.frames;
    early.frames = [];
    for (var i = 0; i < frames.length; i++) onMessage({ data: frames[i] });
    if (early.closed || ws.readyState === 3) onClose();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", takeOver);
  else takeOver();
  function emit(cmd, arg) {
    var fns = listeners[cmd];
    if (fns) for (var i = 0; i < fns.length; i++) { try { fns[i](arg); } catch (err) { S.errors.push("listener " + cmd + ": " + err); } }
  }

  function showState() {
    modEl.hidden = !modified;
    stateEl.textContent = (readOnly ? "Read-only" : "") + (modified ? (readOnly ? " · " : "") + "Modified" : "");
  }

  // ---- document geometry and tiles
  function onStatus(st) {
    var first = !status, partChanged = status && status.selectedPart !== st.selectedPart;
    status = S.status = st;
    var w = Math.ceil(st.width / twipsPerPx), h = Math.ceil(st.height / twipsPerPx);
    if (st.type === "spreadsheet") {
      // The used area, at least a few screens of empty cells to click into.
      w = Math.max(w, viewport.clientWidth * 2); h = Math.max(h, viewport.clientHeight * 3);
    }
    docPx = { w: Math.max(w, 1), h: Math.max(h, 1) };
    sizer.style.width = docPx.w + "px"; sizer.style.height = docPx.h + "px";
    buildParts(st);
    if (partChanged) { selEl.innerHTML = ""; cellEl.hidden = true; cursorEl.hidden = true; }
    // The interface (toolbars, panels) is built before the first layout: the first tiles asked for
    // are those of the view's final size, not of the larger area before the toolbars took their place.
    if (first) emit("firststatus", st);
    geom = null; // the interface may have just been built around the viewport, or the page resized
    layout();
    requestVisible();
    if (first) {
      docLoaded = S.loaded = true;
      // The screen is painted when every visible tile is: those just asked and those the server
      // paints ahead (firstscreen).
      firstPaintKeys = [];
      var fp = part();
      eachTile(visible(), function (tx, ty) { var k = fp + ":" + tx + ":" + ty; if (pending[k]) firstPaintKeys.push(k); });
      if (!firstPaintKeys.length) loaded();
      post("App_LoadingStatus", { Status: "Document_Loaded", DocumentLoadedTime: Date.now() });
      ime.focus({ preventScroll: true });
    }
  }

  function buildParts(st) {
    // Slides are labelled by their number: a slide's name is its title as imported, and LibreOffice
    // does not rename the slide when the title is edited (the tab showed the old title).
    var slides = st.type === "presentation";
    var names = (st.partNames || []).map(function (n, i) { return slides ? String(i + 1) : n; });
    partsEl.hidden = names.length < 2 && st.type === "text";
    if (partsEl.childElementCount !== names.length || names.some(function (n, i) { return partsEl.children[i].textContent !== n; })) {
      partsEl.innerHTML = "";
      names.forEach(function (n, i) {
        var b = document.createElement("button");
        b.type = "button"; b.textContent = n; b.setAttribute("role", "tab"); b.dataset.part = i;
        if (slides) b.setAttribute("aria-label", ds.textSlide + " " + n);
        b.addEventListener("click", function () { switchPart(i); });
        partsEl.appendChild(b);
      });
    }
    for (var i = 0; i < partsEl.children.length; i++) {
      var on = i === (st.selectedPart || 0);
      partsEl.children[i].classList.toggle("active", on);
      partsEl.children[i].setAttribute("aria-selected", on ? "true" : "false");
    }
  }
  function switchPart(i) { if (status && i !== status.selectedPart) send("setclientpart part=" + i); ime.focus({ preventScroll: true }); }

  /**
   * The sizer's offset in the viewport and the viewport's inner size, read once and kept until
   * either is resized: read after a change to the page (a caret moved, a toolbar state), each read
   * made the browser lay the page out again at once, several times for every keystroke.
   */
  var geom = null;
  function geometry() {
    if (!geom) geom = { ox: sizer.offsetLeft, oy: sizer.offsetTop, cw: viewport.clientWidth, ch: viewport.clientHeight };
    return geom;
  }
  if (window.ResizeObserver) {
    var resized = new ResizeObserver(function () {
      var before = geom; geom = null;
      var now = geometry();
      if (before && (before.ox !== now.ox || before.oy !== now.oy || before.cw !== now.cw || before.ch !== now.ch)) { layout(); requestVisible(); }
    });
    resized.observe(viewport); resized.observe(sizer);
  }

  /** The visible document rectangle in px (document coordinates). */
  function visible() {
    var g = geometry(), sl = viewport.scrollLeft, st = viewport.scrollTop;
    var x0 = Math.max(0, sl - g.ox), y0 = Math.max(0, st - g.oy);
    var x1 = Math.min(docPx.w, sl + g.cw - g.ox), y1 = Math.min(docPx.h, st + g.ch - g.oy);
    return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
  }

  /** Moves the canvas over the visible rectangle and paints it from the cache. */
  function layout() {
    var v = visible();
    canvas.style.left = v.x + "px"; canvas.style.top = v.y + "px";
    if (canvas.width !== v.w || canvas.height !== v.h) { canvas.width = Math.max(v.w, 1); canvas.height = Math.max(v.h, 1); }
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, canvas.width, canvas.height);
    var p = part();
    eachTile(v, function (tx, ty) {
      var e = cache[p + ":" + tx + ":" + ty];
      if (e) ctx.drawImage(e.bmp, tx * TILE_PX - v.x, ty * TILE_PX - v.y);
    });
    canvas._v = v;
    // The server pushes the tiles of this area that an edit invalidates (twips, Collabora's frame).
    var area = "clientvisiblearea x=" + Math.round(v.x * twipsPerPx) + " y=" + Math.round(v.y * twipsPerPx) + " width=" + Math.round(v.w * twipsPerPx) + " height=" + Math.round(v.h * twipsPerPx);
    if (area !== sentArea && v.w > 0 && v.h > 0) { sentArea = area; send(area); }
  }
  function eachTile(v, fn) {
    var x0 = Math.floor(v.x / TILE_PX), y0 = Math.floor(v.y / TILE_PX);
    var x1 = Math.ceil((v.x + v.w) / TILE_PX), y1 = Math.ceil((v.y + v.h) / TILE_PX);
    for (var ty = y0; ty < y1; ty++) for (var tx = x0; tx < x1; tx++) fn(tx, ty);
  }

  /** Asks for every visible tile that is missing or stale, in one request. */
  function requestVisible() {
    if (!status) return;
    var p = part(), tw = TILE_PX * twipsPerPx, xs = [], ys = [], needs = [], haves = [], now = performance.now();
    eachTile(visible(), function (tx, ty) {
      var key = p + ":" + tx + ":" + ty, e = cache[key];
      if (e && !e.stale) return;
      if (pending[key]) return;
      pending[key] = now;
      xs.push(tx * tw); ys.push(ty * tw);
      // The version an invalidation asks for (-1: any): a tile the server pushed for it answers.
      needs.push(e && e.need >= 0 ? e.need : -1);
      // The copy held: if its pixels did not change, the server says so instead of sending them.
      haves.push(e && e.wid ? e.wid : 0);
    });
    // The server paints the tiles of one request as one rectangle (Collabora's tilecombine).
    for (var i = 0; i < xs.length; i += 64) {
      S.tilesRequested += Math.min(64, xs.length - i);
      send("tilecombine part=" + p + " width=" + TILE_PX + " height=" + TILE_PX + " tileposx=" + xs.slice(i, i + 64).join(",") + " tileposy=" + ys.slice(i, i + 64).join(",") +
        " tilewidth=" + tw + " tileheight=" + tw + " need=" + needs.slice(i, i + 64).join(",") + " have=" + haves.slice(i, i + 64).join(",") + " id=" + (++tileSeq));
    }
  }

  function onTile(bytes) {
    mark("tile");
    var nl = bytes.indexOf(10);
    var a = frameArgs(headerText.decode(bytes.subarray(0, nl < 0 ? bytes.length : nl)).replace(/^tile: /, ""));
    var tw = Number(a.w), p = Number(a.part) || 0, ver = a.ver === undefined ? -1 : Number(a.ver), wid = Number(a.wid) || 0;
    var base = a.delta === undefined ? 0 : Number(a.delta) || -1, dy = Number(a.dy) || 0;
    var key = tileKeyAt(p, a.x, a.y, tw);
    var askedAt = pending[key];
    // Asked (or painted ahead) before a zoom change, which forgot every request: a request at this
    // zoom for the same place may be pending, and stays.
    if (tw !== TILE_PX * twipsPerPx) return;
    var png = nl < 0 ? null : bytes.subarray(nl + 1);
    // Decoded in parallel, applied in the order the frames came: a newer tile decoded sooner than
    // an older one of the same place must not be covered by it afterwards.
    var now = png && png.length && (base || performance.now() - lastInputAt < 1000) ? decodeNow(png) : null;
    var decoded = now ? Promise.resolve(now) : png && png.length ? createImageBitmap(new Blob([png], { type: "image/png" })) : null;
    // The request is answered once the tile is in the cache: forgotten while it decodes, the tile
    // was neither pending nor held, and a screen update meanwhile asked for it again.
    var answered = function () { if (pending[key] === askedAt) delete pending[key]; };
    var done = (arriving[key] || Promise.resolve()).then(function () {
      var held = cache[key];
      if (!decoded) {
        answered();
        // "Same": the pixels of the copy held, at a newer version. Without that copy (dropped from
        // the cache meanwhile) the tile is asked for again, whole.
        if (!held || held.wid !== wid) { if (held) staleFor(held, Infinity); requestVisible(); return; }
        held.stale = false; held.ver = ver; held.need = undefined;
        tileReady(key, p, held, askedAt, false);
        return;
      }
      return decoded.then(function (bmp) {
        answered();
        // The zoom changed meanwhile, or a newer copy is already here.
        if (tw !== TILE_PX * twipsPerPx || (cache[key] && cache[key].ver > ver)) { if (bmp.close) bmp.close(); return; }
        if (base) {
          // The rows from `dy` that changed in the copy `base`: without that copy (dropped, or
          // replaced meanwhile) the tile is asked for again, whole.
          held = cache[key];
          if (!held || held.wid !== base) { if (held) staleFor(held, Infinity); requestVisible(); return; }
          var c = held.bmp;
          if (!c.getContext) {
            c = document.createElement("canvas"); c.width = TILE_PX; c.height = TILE_PX;
            c.getContext("2d").drawImage(held.bmp, 0, 0);
            if (held.bmp.close) held.bmp.close();
          }
          c.getContext("2d").drawImage(bmp, 0, dy);
          S.tileDeltas++;
          held.bmp = c; held.stale = false; held.ver = ver; held.wid = wid; held.need = undefined;
          tileReady(key, p, held, askedAt, true);
          return;
        }
        var old = cache[key];
        if (old) { if (old.bmp.close) old.bmp.close(); } else cacheKeys.push(key);
        tileReady(key, p, (cache[key] = { bmp: bmp, stale: false, ver: ver, wid: wid }), askedAt, true);
        evict();
      }, answered); // not drawn: asked again at the next invalidation or scroll
    });
    arriving[key] = done;
    done.then(function () { if (arriving[key] === done) delete arriving[key]; });
  }

  /**
   * One of our tiles (workers/png.ts: 8-bit RGB, rows filtered None or Up) decoded on this thread
   * into a canvas, for tiles that arrive while the user types: Chromium runs image decoding
   * (createImageBitmap) behind input, and at automation speed nothing typed reached the screen until
   * typing stopped. Null for anything else (the browser's decoder then does it).
   */
  function decodeNow(png) {
    if (!window.fflate) return null;
    try {
      var dv = new DataView(png.buffer, png.byteOffset, png.byteLength), off = 8, w = 0, h = 0, idat = [], size = 0;
      while (off + 12 <= png.length) {
        var len = dv.getUint32(off), type = String.fromCharCode(png[off + 4], png[off + 5], png[off + 6], png[off + 7]);
        if (type === "IHDR") {
          w = dv.getUint32(off + 8); h = dv.getUint32(off + 12);
          if (png[off + 16] !== 8 || png[off + 17] !== 2 || png[off + 20] !== 0) return null; // not 8-bit RGB, or interlaced
        } else if (type === "IDAT") { idat.push(png.subarray(off + 8, off + 8 + len)); size += len; }
        off += 12 + len;
      }
      if (!w || !h || !idat.length) return null;
      var z = idat[0];
      if (idat.length > 1) { z = new Uint8Array(size); for (var i = 0, at = 0; i < idat.length; at += idat[i].length, i++) z.set(idat[i], at); }
      var stride = w * 3, raw = fflate.unzlibSync(z, { out: new Uint8Array((stride + 1) * h) });
      var c = document.createElement("canvas"); c.width = w; c.height = h;
      var cx = c.getContext("2d"), img = cx.createImageData(w, h), d = img.data;
      for (var y = 0, o = 0; y < h; y++) {
        var row = y * (stride + 1), f = raw[row];
        if (f === 2 && y > 0) { for (var x = 1; x <= stride; x++) raw[row + x] = (raw[row + x] + raw[row - stride - 1 + x]) & 255; }
        else if (f !== 0 && !(f === 2 && y === 0)) return null; // a filter our encoder does not use
        for (var p = row + 1, end = row + 1 + stride; p < end; p += 3) { d[o++] = raw[p]; d[o++] = raw[p + 1]; d[o++] = raw[p + 2]; d[o++] = 255; }
      }
      cx.putImageData(img, 0, 0);
      return c;
    } catch (e) {
      return null;
    }
  }

  /** A tile is current in the cache (new pixels, or the same ones confirmed): draw it and account for it. */
  function tileReady(key, p, e, askedAt, draw) {
    if (dirty[key] !== undefined) { if (dirty[key] > e.ver) staleFor(e, dirty[key]); delete dirty[key]; }
    if (p === part()) {
      var v = canvas._v, parts = key.split(":");
      if (v && draw) ctx.drawImage(e.bmp, Number(parts[1]) * TILE_PX - v.x, Number(parts[2]) * TILE_PX - v.y);
      if (askedAt === undefined) S.tilesPushed++; // sent by the server before the page asked
      else S.tilesDrawn++;
      // Input → the first new pixels after it: a tile pushed (askedAt undefined) or asked for since.
      if (S.inputAt && draw && (askedAt === undefined || askedAt >= S.inputAt)) {
        S.inputLatencies.push(performance.now() - S.inputAt);
        S.inputAt = 0;
      }
      if (firstPaintKeys) {
        var i = firstPaintKeys.indexOf(key);
        if (i >= 0) firstPaintKeys.splice(i, 1);
        if (!firstPaintKeys.length) {
          firstPaintKeys = null;
          loaded();
          S.firstPaintAt = performance.timeOrigin + performance.now();
          if (performance.mark) performance.mark("ed-first-paint");
        }
      }
    }
    if (e.stale) requestVisible();
    else if (cursorTimer && !tilesAwaited()) showCursor();
  }

  function evict() {
    if (cacheKeys.length <= CACHE_MAX) return;
    var v = visible(), p = part();
    var keep = function (k) {
      var s = k.split(":"), x = Number(s[1]) * TILE_PX, y = Number(s[2]) * TILE_PX;
      return Number(s[0]) === p && x + TILE_PX > v.x - 1024 && x < v.x + v.w + 1024 && y + TILE_PX > v.y - 2048 && y < v.y + v.h + 2048;
    };
    cacheKeys = cacheKeys.filter(function (k) {
      if (cacheKeys.length <= CACHE_MAX / 2 || keep(k)) return true;
      var e = cache[k]; if (e && e.bmp.close) e.bmp.close();
      delete cache[k];
      return false;
    });
  }

  /** Marks a cached tile to be asked for again, for pixel version `ver` (Infinity: unnumbered). */
  function staleFor(e, ver) {
    e.stale = true;
    e.need = isFinite(ver) && !(e.need === -1) ? Math.max(e.need === undefined ? -1 : e.need, ver) : -1;
  }

  function onInvalidate(arg) {
    S.invalidations++;
    // "x, y, w, h, part ver=n": a tile painted at version n or later already shows this change.
    var vm = / ver=(\d+)$/.exec(arg), ver = vm ? Number(vm[1]) : Infinity;
    if (vm) arg = arg.slice(0, vm.index);
    var n = arg.split(",").map(function (s) { return s.trim(); });
    var p = n.length >= 5 ? Number(n[4]) : n[0] === "EMPTY" && n.length >= 2 ? Number(n[1]) : null;
    if (p === null || !isFinite(p)) p = part();
    var tw = TILE_PX * twipsPerPx, all = n[0] === "EMPTY";
    var r = all ? null : rect(arg);
    if (!all && !r) return;
    Object.keys(cache).concat(Object.keys(pending)).forEach(function (key) {
      var s = key.split(":");
      if (Number(s[0]) !== p) return;
      var tx = Number(s[1]) * tw, ty = Number(s[2]) * tw;
      if (!all && (tx + tw <= r.x || tx > r.x + r.w || ty + tw <= r.y || ty > r.y + r.h)) return;
      if (cache[key] && !(cache[key].ver >= ver)) staleFor(cache[key], ver);
      if (pending[key]) dirty[key] = Math.max(dirty[key] === undefined ? -1 : dirty[key], ver);
    });
    requestVisible();
  }

  // ---- cursor, selections, other views
  function payloadRect(arg) {
    if (arg.charAt(0) === "{") { try { var j = JSON.parse(arg); return rect(j.rectangle || ""); } catch (e) { return null; } }
    return rect(arg);
  }
  var cursorTimer = 0;
  /** Whether a visible tile waits for the new pixels of an edit (invalidated, not here yet). */
  function tilesAwaited() {
    var v = canvas._v, p = part(), waiting = false;
    if (v) eachTile(v, function (tx, ty) { var e = cache[p + ":" + tx + ":" + ty]; if (e && e.stale) waiting = true; });
    return waiting;
  }
  function onCursor(arg) {
    S.cursor = payloadRect(arg);
    // The caret moves with the text it follows: while the tiles an edit invalidated are on their
    // way, it waits for them (at most 50 ms). It ran ahead of the painted text when typing fast,
    // and moved in a frame of its own, a second frame of work for every keystroke.
    if (S.cursor && tilesAwaited()) { if (!cursorTimer) cursorTimer = setTimeout(showCursor, 50); return; }
    showCursor();
  }
  function showCursor() {
    clearTimeout(cursorTimer); cursorTimer = 0;
    var r = S.cursor;
    if (!r) { cursorEl.hidden = true; return; }
    // Reads (scroll position) before writes: a read after a write lays the page out at once.
    if (!mouseDown) scrollIntoView(r);
    var g = geometry();
    cursorEl.hidden = false;
    place(cursorEl, { x: r.x, y: r.y, w: twipsPerPx * 2, h: r.h });
    ime.style.left = g.ox + r.x / twipsPerPx + "px"; ime.style.top = g.oy + r.y / twipsPerPx + "px";
  }
  function scrollIntoView(r) {
    var v = visible(), x = r.x / twipsPerPx, y = r.y / twipsPerPx, h = r.h / twipsPerPx;
    if (y < v.y) viewport.scrollTop += y - v.y - 20;
    else if (y + h > v.y + v.h) viewport.scrollTop += y + h - (v.y + v.h) + 20;
    if (x < v.x) viewport.scrollLeft += x - v.x - 20;
    else if (x > v.x + v.w) viewport.scrollLeft += x - (v.x + v.w) + 20;
  }
  function onSelection(arg) {
    selEl.innerHTML = "";
    S.selection = arg.trim() ? arg.split(";").map(rect).filter(Boolean) : [];
    selectionChanged();
    S.selection.forEach(function (r) { var d = document.createElement("div"); d.className = "sel"; place(d, r); selEl.appendChild(d); });
  }
  function onCellCursor(arg) {
    var r = arg.trim() === "EMPTY" ? null : rect(arg);
    S.cellCursor = r;
    selectionChanged();
    cellEl.hidden = !r;
    if (r) place(cellEl, r);
  }
  // Other people's cursor (with their name), text selection and cell cursor, in their view's colour.
  var others = {};
  function other(id) {
    var o = others[id];
    if (o) return o;
    var color = viewColor(id);
    o = others[id] = { cursor: document.createElement("div"), tag: document.createElement("span"), sel: document.createElement("div"), cell: document.createElement("div") };
    o.cursor.className = "viewcursor"; o.cursor.dataset.view = id; o.cursor.style.background = color; o.cursor.hidden = true;
    o.tag.className = "viewname"; o.tag.style.background = color; o.cursor.appendChild(o.tag);
    o.sel.className = "viewselection"; o.sel.dataset.view = id; o.sel.style.setProperty("--view-color", color);
    o.cell.className = "viewcellcursor"; o.cell.dataset.view = id; o.cell.style.borderColor = color; o.cell.hidden = true;
    overlays.appendChild(o.sel); overlays.appendChild(o.cell); overlays.appendChild(o.cursor);
    nameOther(id);
    return o;
  }
  function nameOther(id) {
    var v = S.views.filter(function (x) { return String(x.viewid) === id; })[0];
    if (others[id]) { others[id].tag.textContent = v ? v.username : ""; others[id].cursor.title = v ? v.username : ""; }
  }
  function onPart(j) { return j.part === undefined || Number(j.part) === part(); }
  function onViewCursor(arg) {
    var j; try { j = JSON.parse(arg); } catch (e) { return; }
    var o = other(String(j.viewId)), r = rect(j.rectangle || "");
    o.cursor.hidden = !r || !onPart(j);
    if (r) place(o.cursor, { x: r.x, y: r.y, w: twipsPerPx * 2, h: r.h });
  }
  function onViewSelection(arg) {
    var j; try { j = JSON.parse(arg); } catch (e) { return; }
    var o = other(String(j.viewId));
    o.sel.innerHTML = "";
    if (!onPart(j)) return;
    String(j.selection || "").split(";").map(rect).filter(Boolean).forEach(function (r) {
      var d = document.createElement("div"); place(d, r); o.sel.appendChild(d);
    });
  }
  function onCellViewCursor(arg) {
    var j; try { j = JSON.parse(arg); } catch (e) { return; }
    var o = other(String(j.viewId)), r = rect(j.rectangle || "");
    o.cell.hidden = !r || !onPart(j);
    if (r) place(o.cell, r);
  }
  function onViews(list) {
    S.views = list;
    Object.keys(others).forEach(function (id) {
      if (list.some(function (v) { return String(v.viewid) === id; })) { nameOther(id); return; }
      var o = others[id]; o.cursor.remove(); o.sel.remove(); o.cell.remove(); delete others[id];
    });
    post("Views_List", list.map(viewJson));
  }
  /** One colour per view, the same on every screen (the view id is shared by all of them). */
  var VIEW_COLORS = ["#c01c28", "#1a5fb4", "#26a269", "#a347ba", "#e66100", "#008b8b", "#865e3c", "#d4418e"];
  function viewColor(id) { return VIEW_COLORS[Math.abs(Number(id) || 0) % VIEW_COLORS.length]; }
  function viewJson(v) { return { ViewId: v.viewid, UserId: v.userid, UserName: v.username, ReadOnly: v.readonly, IsCurrentView: v.current }; }

  var scrollQueued = false;
  viewport.addEventListener("scroll", function () {
    if (scrollQueued) return;
    scrollQueued = true;
    requestAnimationFrame(function () { scrollQueued = false; layout(); requestVisible(); });
  });
  window.addEventListener("resize", function () { geom = null; layout(); requestVisible(); });

  /** Zoom hook: twips per CSS pixel (15 = 100 %). Drops the cache and asks again. */
  function setZoom(tpp) {
    // A tile's side in twips must be whole: the server takes tile positions as integers.
    twipsPerPx = Math.max(1, Math.round(TILE_PX * tpp)) / TILE_PX;
    cache = {}; cacheKeys = []; pending = {}; dirty = {};
    if (status) onStatus(status);
    if (S.cursor) onCursor(S.cursor.x + ", " + S.cursor.y + ", " + S.cursor.w + ", " + S.cursor.h);
    Object.keys(markSets).forEach(function (name) { showMarks(name, markSets[name]); });
  }

  /** Named sets of highlighted rectangles (twips) over the document, such as the find results. */
  var markSets = {};
  function showMarks(name, rects) {
    var box = overlays.querySelector('.marks[data-name="' + name + '"]');
    if (!box) { box = document.createElement("div"); box.className = "marks"; box.dataset.name = name; overlays.appendChild(box); }
    box.innerHTML = "";
    markSets[name] = rects;
    rects.forEach(function (r) { var d = document.createElement("div"); d.className = "mark"; place(d, r); box.appendChild(d); });
    if (!rects.length) delete markSets[name];
  }

  // ---- keyboard and text input
  var KEYS = { Backspace: 1283, Delete: 1286, Enter: 1280, Tab: 1282, Escape: 1281, ArrowDown: 1024, ArrowUp: 1025, ArrowLeft: 1026, ArrowRight: 1027, Home: 1028, End: 1029, PageUp: 1030, PageDown: 1031, Insert: 1285, F2: 769 };
  var CHARS = { Enter: 13, Tab: 9, Backspace: 8, Delete: 127, Escape: 27 };
  var SHIFT = 4096, MOD1 = 8192, MOD2 = 16384, composing = false;
  function key(code, ch) {
    sendInput("key type=input char=" + (ch || 0) + " key=" + code);
    send("key type=up char=" + (ch || 0) + " key=" + code);
  }
  ime.addEventListener("keydown", function (e) {
    if (composing || e.isComposing || e.keyCode === 229) return;
    var mod = e.ctrlKey || e.metaKey, k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (mod && !e.altKey) {
      if (k === "z" && !e.shiftKey) { e.preventDefault(); uno(".uno:Undo"); return; }
      if (k === "y" || (k === "z" && e.shiftKey)) { e.preventDefault(); uno(".uno:Redo"); return; }
      if (k === "s") { e.preventDefault(); doSave(true, false, false, ""); return; }
      if (k === "a") { e.preventDefault(); send("uno .uno:SelectAll"); return; }
      if (k === "c" || k === "x" || k === "v") return; // the browser's copy, cut and paste events (below)
      if (/^[a-z]$/.test(k)) { e.preventDefault(); key(512 + k.charCodeAt(0) - 97 + MOD1 + (e.shiftKey ? SHIFT : 0), 0); return; }
    }
    var code = KEYS[e.key];
    if (code) {
      e.preventDefault();
      if (readOnly && !(code >= 1024 && code <= 1031)) return;
      key(code + (e.shiftKey ? SHIFT : 0) + (mod ? MOD1 : 0) + (e.altKey ? MOD2 : 0), CHARS[e.key] || 0);
      return;
    }
    // A character typed (AltGr's included: Ctrl+Alt on Windows) goes to the engine from here, not
    // through the hidden textarea: letting the browser insert it there first (its editing, layout,
    // selection events, a frame) took 5-10 ms of every keystroke on 2 cores before it was sent.
    // Dead keys, Alt+letter and composition (IME) still take the textarea's way (input events).
    if (Array.from(e.key).length === 1 && !e.metaKey && e.ctrlKey === e.altKey) {
      e.preventDefault();
      sendInput("textinput text=" + encodeURIComponent(e.key));
    }
  });
  ime.addEventListener("compositionstart", function () { composing = true; });
  ime.addEventListener("compositionupdate", function (e) { sendInput("textinput text=" + encodeURIComponent(e.data || "") + " end=0"); });
  ime.addEventListener("compositionend", function (e) {
    composing = false;
    S.compositions++;
    if (e.data) sendInput("textinput text=" + encodeURIComponent(e.data));
    ime.value = "";
  });
  ime.addEventListener("input", function (e) {
    if (composing || e.isComposing) return;
    if ((e.inputType === "insertText" || e.inputType === "insertReplacementText") && e.data) sendInput("textinput text=" + encodeURIComponent(e.data));
    ime.value = "";
  });

  // ---- clipboard: the system clipboard through the browser's copy, cut and paste events.
  // A copy event must fill the clipboard at once, so the selection's content (HTML and plain text,
  // made by the engine) is fetched ahead, shortly after the selection settles; a copy that comes
  // before it has arrived writes it with the asynchronous clipboard API when it does (which needs
  // the frame's clipboard-write permission: api.js grants it).
  var clip = null, clipSeq = 0, clipTimer = 0, pendingCopy = null, clipAsked = [];
  function hasSelection() { return S.selection.length > 0 || !!(status && status.type === "spreadsheet" && S.cellCursor); }
  function selectionChanged() {
    clipSeq++; clip = null;
    clearTimeout(clipTimer);
    if (hasSelection()) clipTimer = setTimeout(fetchSelection, 150);
  }
  function fetchSelection() {
    clipAsked.push(clipSeq); // answers come in the order asked
    send("gettextselection mimetype=text/html,text/plain;charset=utf-8");
  }
  function onSelectionContent(arg) {
    var j, seq = clipAsked.shift();
    try { j = JSON.parse(arg); } catch (e) { return; }
    clip = { html: j["text/html"] || "", text: j["text/plain;charset=utf-8"] || "", seq: seq };
    S.clip = clip;
    if (pendingCopy && clip.seq === clipSeq) { var p = pendingCopy; pendingCopy = null; writeClipboard(p.cut); }
  }
  function writeClipboard(cut) {
    if (!navigator.clipboard || !window.ClipboardItem) return;
    var item = new ClipboardItem({ "text/html": new Blob([clip.html], { type: "text/html" }), "text/plain": new Blob([clip.text], { type: "text/plain" }) });
    navigator.clipboard.write([item]).then(function () { if (cut) removeSelection(); }, function () { showMessage(ds.textClipboard); });
  }
  function removeSelection() { key(KEYS.Delete, CHARS.Delete); }
  function copyOut(e, cut) {
    if (!hasSelection()) return; // nothing selected: the clipboard keeps what it has
    e.preventDefault();
    if (clip && clip.seq === clipSeq) {
      e.clipboardData.setData("text/html", clip.html);
      e.clipboardData.setData("text/plain", clip.text);
      if (cut && !readOnly) removeSelection();
      return;
    }
    pendingCopy = { cut: cut && !readOnly };
    fetchSelection();
  }
  ime.addEventListener("copy", function (e) { copyOut(e, false); });
  ime.addEventListener("cut", function (e) { copyOut(e, true); });
  ime.addEventListener("paste", function (e) {
    e.preventDefault();
    if (readOnly) return;
    var dt = e.clipboardData, html = dt.getData("text/html"), text = dt.getData("text/plain");
    var image = Array.prototype.filter.call(dt.files || [], function (f) { return f.type === "image/png"; })[0];
    if (html) return pasteData("text/html;charset=utf-8", new TextEncoder().encode(html));
    if (text) return pasteData("text/plain;charset=utf-8", new TextEncoder().encode(text));
    if (image) image.arrayBuffer().then(function (b) { pasteData("image/png", new Uint8Array(b)); });
  });
  function base64(bytes) {
    var bin = "";
    for (var i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(bin);
  }
  function pasteData(mime, bytes) { sendInput("paste mimetype=" + mime + " data=" + base64(bytes)); }
  function insertGraphic(mime, bytes) { sendInput("insertgraphic mimetype=" + mime + " data=" + base64(bytes)); }

  // ---- mouse: click places the cursor, drag selects, double click selects a word
  var mouseDown = false, moveQueued = null;
  function mouse(type, e, buttons) {
    if (readOnly) return;
    var r = sizer.getBoundingClientRect();
    var x = Math.round((e.clientX - r.left) * twipsPerPx), y = Math.round((e.clientY - r.top) * twipsPerPx);
    send("mouse type=" + type + " x=" + x + " y=" + y + " count=" + (type === "move" ? 1 : e.detail || 1) + " buttons=" + (buttons || (type === "move" && !mouseDown ? 0 : 1)) +
      " modifier=" + ((e.shiftKey ? SHIFT : 0) + (e.ctrlKey ? MOD1 : 0)));
  }
  // A right click goes to the engine as its right button: it answers with its context menu (`contextmenu:`).
  overlays.parentNode.addEventListener("contextmenu", function (e) {
    e.preventDefault();
    if (readOnly) return;
    mouse("buttondown", e, 4); mouse("buttonup", e, 4);
    ime.focus({ preventScroll: true });
  });
  overlays.parentNode.addEventListener("mousedown", function (e) {
    if (e.button !== 0) return;
    e.preventDefault();
    mouseDown = true;
    mouse("buttondown", e);
    ime.focus({ preventScroll: true });
  });
  window.addEventListener("mousemove", function (e) {
    if (!mouseDown) return;
    if (!moveQueued) requestAnimationFrame(function () { var m = moveQueued; moveQueued = null; if (m && mouseDown) mouse("move", m); });
    moveQueued = e;
  });
  window.addEventListener("mouseup", function (e) {
    if (!mouseDown || e.button !== 0) return;
    mouseDown = false; moveQueued = null;
    mouse("buttonup", e);
    ime.focus({ preventScroll: true });
  });
  viewport.addEventListener("focus", function () { ime.focus({ preventScroll: true }); });

  // ---- commands, saving and closing
  /** A UNO command with Collabora's argument object ({"Name": {"type": "string", "value": …}}). */
  function uno(cmd, args) { if (readOnly) return; sendInput("uno " + cmd + (args ? " " + JSON.stringify(args) : "")); }
  function doSave(dontTerminateEdit, dontSaveIfUnmodified, notify, extendedData) {
    // Not sent while reconnecting: the host hears at once instead of waiting for its time-out.
    if (!connected) {
      showMessage(ds.textOffline, "offline");
      if (notify) post("Action_Save_Resp", { success: false, result: "disconnected", errorMsg: "the editor is reconnecting" });
      return;
    }
    emit("savesent", "");
    send("save dontTerminateEdit=" + (dontTerminateEdit ? 1 : 0) + " dontSaveIfUnmodified=" + (dontSaveIfUnmodified ? 1 : 0) + " notify=" + (notify ? 1 : 0) + (extendedData ? " extendedData=" + encodeURIComponent(extendedData) : ""));
  }
  $("save").addEventListener("click", function () { post("UI_Save", { source: "toolbar" }); doSave(true, false, false, ""); ime.focus({ preventScroll: true }); });
  $("undo").addEventListener("click", function () { uno(".uno:Undo"); ime.focus({ preventScroll: true }); });
  $("redo").addEventListener("click", function () { uno(".uno:Redo"); ime.focus({ preventScroll: true }); });
  var closeBtn = $("close");
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
      case "Host_PostmessageReady": S.hostReady = true; break;
      case "Close_Session": stayClosed = true; send("closedocument"); break;
      case "Grab_Focus": ime.focus({ preventScroll: true }); break;
      case "Action_Save":
        if (!docLoaded) return;
        doSave(!!v.DontTerminateEdit, !!v.DontSaveIfUnmodified, !!v.Notify, v.ExtendedData || "");
        break;
      case "Action_Close":
        stayClosed = true;
        if (ws) ws.close();
        break;
      case "Send_UNO_Command":
        if (docLoaded && typeof v.Command === "string") uno(v.Command);
        break;
      case "Get_Views": post("Get_Views_Resp", S.views.map(viewJson)); break;
    }
  });

  window.edApi = {
    send: send,
    uno: uno,
    setZoom: setZoom,
    zoom: function () { return twipsPerPx; },
    switchPart: switchPart,
    focus: function () { ime.focus({ preventScroll: true }); },
    reveal: function (r) { scrollIntoView(r); },
    paste: pasteData,
    insertGraphic: insertGraphic,
    marks: showMarks,
    viewColor: viewColor,
    viewportPx: function () { return { w: viewport.clientWidth, h: viewport.clientHeight }; },
    /** Every server frame named `cmd` ("statechanged", "status", …), after the editor handled it. */
    on: function (cmd, fn) { (listeners[cmd] = listeners[cmd] || []).push(fn); },
    save: function () { doSave(true, false, false, ""); },
  };
})();
