// The editor client (docs/editing-protocol.md). It takes over the document WebSocket connect.js
// opened, keeps a cache of 256 px tiles per part and asks only for the tiles that are visible
// (again when the server invalidates them), draws them on a canvas the size of the viewport (a
// sizer element gives the scroll range of the whole document), draws the cursor, the selection,
// the cell cursor and the cursors of other views, forwards keys, text input (IME composition
// included) and mouse events, switches sheets and slides from a tab bar, saves, shows the
// modified state, and speaks Collabora's postMessage API with its host page.
//
// Hooks for the interface (ui.js): window.edState (the editor's one state record: loaded, modified,
// views, cursor, timings; editor/state.ts) and window.edApi (editor/api.ts). Each part lives in
// editor/ and registers its frame handlers (frames-in.ts) and state watchers (state.ts) when
// installed here: they run in this order. The connection comes last: it replays the frames that
// arrived before this script, so every handler must be there.

import { installAnnouncements } from "./editor/announce";
import { installApi } from "./editor/api";
import { installClipboard } from "./editor/clipboard";
import { installCommands } from "./editor/commands";
import { installConnection } from "./editor/connection";
import { installCursors } from "./editor/cursors";
import { installDocumentStatus } from "./editor/document-status";
import { onServerMessage } from "./editor/frames-in";
import { installHostMessages } from "./editor/host-messages";
import { installKeyboard } from "./editor/keyboard";
import { installMarks } from "./editor/marks";
import { installMouse } from "./editor/mouse";
import { installNotices } from "./editor/notices";
import { installOtherViews } from "./editor/other-views";
import { installParts } from "./editor/parts";
import { installPlace } from "./editor/place";
import { installRegions } from "./editor/regions";
import { installScreenReader } from "./editor/screen-reader";
import { installTiles } from "./editor/tiles";
import { installTouch } from "./editor/touch";
import { installViewport } from "./editor/viewport";
import { installZoom } from "./editor/zoom";

// What the host learns first, then the document's state (its status sizes the document before
// anything is drawn at a new zoom), then what is drawn over it.
installHostMessages();
installNotices();
installDocumentStatus();
installParts();
installTiles();
installCursors();
installOtherViews();
installMarks();
installScreenReader();
installViewport();
installZoom();
installKeyboard();
installClipboard();
installMouse();
installTouch();
installCommands();
installApi();
installRegions();
installPlace();
installAnnouncements();
installConnection(onServerMessage);
