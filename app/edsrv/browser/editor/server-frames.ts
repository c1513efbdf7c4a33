// The server's frames, each to the part of the editor that handles it, then to the interface's
// listeners (events.ts).

import { splitServerFrame, type DocStatus, type SaveResult, type ServerFrameName, type ViewInfo, type WopiInfo } from "../../protocol/frames";
import { onSelectionContent } from "./clipboard";
import { onCellCursor, onCursor, onCursorVisible, onSelection } from "./cursors";
import { onStatus } from "./document-status";
import { onA11yCaret, onA11yCell, onA11yFocus, onA11ySelection } from "./screen-reader";
import { emit } from "./events";
import { post, setHostOrigin } from "./host";
import { clearMessage, loadFailed, showMessage, showState } from "./notices";
import { onCellViewCursor, onViewCursor, onViews, onViewSelection } from "./other-views";
import { body, docNameEl, pageData, saveButton } from "./page";
import { backOnline, send } from "./socket";
import { edState as S, editor, mark } from "./state";
import { onFirstScreen, onInvalidate, onTile, onTileStale } from "./tiles";

let framePosted = false;

/** `close:` reasons → the host's Session_Closed reasons. */
const CLOSE_REASONS: Record<string, string> = { ownertermination: "OwnerTermination", idle: "DocumentIdle", oom: "OOM", docdisconnected: "DocumentDisconnected", replaced: "SessionReplaced" };

export function onMessage(ev: { data: string | ArrayBuffer }): void {
  if (typeof ev.data !== "string") return onTile(new Uint8Array(ev.data));
  const { name: cmd, argument: arg } = splitServerFrame(ev.data);
  S.received[cmd] = (S.received[cmd] || 0) + 1;
  // Any name may come; the cases are checked against the protocol's frames.
  switch (cmd as ServerFrameName) {
    case "wopi": {
      mark("wopi");
      const w = JSON.parse(arg) as WopiInfo;
      if (w.PostMessageOrigin) setHostOrigin(w.PostMessageOrigin);
      docNameEl.textContent = w.BaseFileName || "";
      document.title = w.BaseFileName || document.title;
      saveButton.hidden = !!w.HideSaveOption;
      if (!framePosted) post("App_LoadingStatus", { Status: "Frame_Ready", Features: { VersionStates: true } });
      framePosted = true;
      break;
    }
    case "perm":
      editor.readOnly = S.readOnly = arg.trim() === "readonly";
      body.classList.toggle("readonly", editor.readOnly);
      showState();
      break;
    // The new view's status first: what listens for the reconnection (place.ts) compares it
    // with where the person was, and read the old view's part (a sheet's second tab was not
    // gone back to).
    case "status": mark("status"); onStatus(JSON.parse(arg) as DocStatus); backOnline(); break;
    case "invalidatetiles": onInvalidate(arg); break;
    case "invalidatecursor": onCursor(arg); break;
    case "cursorvisible": onCursorVisible(arg); break;
    case "textselection": onSelection(arg); break;
    case "cellcursor": onCellCursor(arg); break;
    case "invalidateviewcursor": onViewCursor(arg); break;
    case "textviewselection": onViewSelection(arg); break;
    case "cellviewcursor": onCellViewCursor(arg); break;
    case "setpart": if (editor.status && Number(arg) !== editor.status.selectedPart) send("status"); break;
    case "firstscreen": onFirstScreen(arg); break;
    case "tilestale": onTileStale(arg); break;
    case "viewinfo": onViews(JSON.parse(arg) as ViewInfo[]); break;
    case "textselectioncontent": onSelectionContent(arg); break;
    case "a11yfocuschanged": onA11yFocus(arg); break;
    case "a11ycaretchanged": onA11yCaret(arg); break;
    case "a11ytextselectionchanged": onA11ySelection(arg); break;
    case "a11yfocusedcellchanged": onA11yCell(arg); break;
    case "statechanged":
      if (arg.indexOf(".uno:ModifiedStatus=") === 0) {
        const m = arg.slice(20).trim() === "true";
        if (m !== editor.modified) {
          editor.modified = S.modified = m;
          editor.everModified = editor.everModified || m;
          post("Doc_ModifiedStatus", { Modified: m });
        }
        showState();
      }
      break;
    case "saveresult": {
      const r = JSON.parse(arg) as SaveResult;
      S.lastSave = r;
      if (!r.success && r.result !== "unmodified") showMessage((pageData.textNotSaved || "") + " " + (r.errorMsg || r.result), "save");
      else if (r.success) clearMessage("save");
      if (r.notify) post("Action_Save_Resp", { success: r.success, result: r.result, errorMsg: r.errorMsg || "" });
      break;
    }
    case "error":
      S.errors.push(arg);
      if (arg.indexOf("cmd=recovery kind=actiondropped") >= 0) showMessage(pageData.textActionDropped, "recovery");
      else if (/cmd=(paste|insertgraphic) kind=toolarge/.test(arg)) showMessage(pageData.textInputTooLarge, "input");
      else if (/cmd=uno kind=(notallowed|badargs|toolarge)/.test(arg)) showMessage(pageData.textCommandRefused, "input");
      else if (/kind=(unauthorized|faileddocloading|crashed|documentconflict|savetoolarge|savefailed|saveunauthorized|docunloading|kitunavailable)/.test(arg)) showMessage("Error: " + arg, /cmd=storage/.test(arg) ? "save" : "");
      if (!editor.docLoaded && /cmd=(load|internal)/.test(arg)) {
        post("App_LoadingStatus", { Status: "Failed" });
        loadFailed(/kind=unauthorized/.test(arg) ? pageData.textUnauthorized : /kind=(kitunavailable|docunloading)/.test(arg) ? pageData.textUnavailable : pageData.textFailed);
      }
      break;
    case "close": {
      const why = arg.trim();
      // The server is restarting or recovering the document's engine: the page reconnects (socket.ts).
      if (why === "recovering" || why === "shuttingdown") { showMessage(pageData.textReconnecting, "reconnecting"); break; }
      editor.stayClosed = true;
      post("Session_Closed", { Reason: CLOSE_REASONS[why] || why });
      showMessage(why === "replaced" ? pageData.textReplaced : (pageData.textClosed || "") + " (" + why + ")", "closed");
      break;
    }
  }
  emit(cmd, arg);
}
