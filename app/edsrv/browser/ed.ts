// The editor client (docs/editing-protocol.md). It takes over the document WebSocket connect.js
// opened, keeps a cache of 256 px tiles per part and asks only for the tiles that are visible
// (again when the server invalidates them), draws them on a canvas the size of the viewport (a
// sizer element gives the scroll range of the whole document), draws the cursor, the selection,
// the cell cursor and the cursors of other views, forwards keys, text input (IME composition
// included) and mouse events, switches sheets and slides from a tab bar, saves, shows the
// modified state, and speaks Collabora's postMessage API with its host page.
//
// Hooks for the interface (ui.js): window.edState (what the page shows: loaded, modified, views,
// cursor, timings) and window.edApi (editor/api.ts). Each part lives in editor/; they are
// installed here in the order their listeners must run.

import { installAnnouncements } from "./editor/announce";
import { installApi } from "./editor/api";
import { installCanvas } from "./editor/canvas";
import { installClipboard } from "./editor/clipboard";
import { installCommandButtons } from "./editor/commands";
import { installHostMessages } from "./editor/host-messages";
import { installKeyboard } from "./editor/keyboard";
import { installMouse } from "./editor/mouse";
import { installPlace } from "./editor/place";
import { installRegions } from "./editor/regions";
import { installSocket } from "./editor/socket";
import { installTouch } from "./editor/touch";

installSocket();
installCanvas();
installKeyboard();
installClipboard();
installMouse();
installTouch();
installCommandButtons();
installHostMessages();
installApi();
installRegions();
installPlace();
installAnnouncements();
