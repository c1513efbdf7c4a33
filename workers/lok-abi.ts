// LibreOfficeKit's numbers and names that are plain data: the enums of LibreOfficeKitEnums.h,
// the slot order of its two function tables, and the small helpers for C strings and file URLs.
// No bun:ffi here: the editing server (another process, no engine) imports the callback names.

/** Debian's LibreOffice (libreoffice-core), the engine unless SVC_ENGINE_PROGRAM_DIR names another. */
export const DEFAULT_PROGRAM_DIR = "/usr/lib/libreoffice/program";

/**
 * The program folder this engine process loads: its parent names it in SVC_ENGINE_PROGRAM_DIR
 * (from the service's configuration, app/config.ts), read once when the engine starts.
 */
export function engineProgramDir(env: Record<string, string | undefined> = process.env): string {
  return env.SVC_ENGINE_PROGRAM_DIR || DEFAULT_PROGRAM_DIR;
}

/** Slot order of struct _LibreOfficeKitClass (after nSize). */
export const OFFICE_SLOTS = [
  "destroy",
  "documentLoad",
  "getError",
  "documentLoadWithOptions",
  "freeError",
  "registerCallback",
  "getFilterTypes",
  "setOptionalFeatures",
  "setDocumentPassword",
  "getVersionInfo",
  "runMacro",
  "signDocument",
  "runLoop",
  "sendDialogEvent",
  "setOption",
  // 7.5 and later (25.2's header)
  "dumpState",
  "extractRequest",
  "trimMemory",
  "startURP",
  "stopURP",
  "joinThreads",
  "startThreads",
  "setForkedChild",
  "extractDocumentStructureRequest",
  "registerAnyInputCallback",
] as const;

/** Slot order of struct _LibreOfficeKitDocumentClass (after nSize; the IOS-only slot is absent on Linux). */
export const DOCUMENT_SLOTS = [
  "destroy",
  "saveAs",
  "getDocumentType",
  "getParts",
  "getPartPageRectangles",
  "getPart",
  "setPart",
  "getPartName",
  "setPartMode",
  "paintTile",
  "getTileMode",
  "getDocumentSize",
  "initializeForRendering",
  "registerCallback",
  "postKeyEvent",
  "postMouseEvent",
  "postUnoCommand",
  "setTextSelection",
  "getTextSelection",
  "paste",
  "setGraphicSelection",
  "resetSelection",
  "getCommandValues",
  "setClientZoom",
  "setClientVisibleArea",
  "createView",
  "destroyView",
  "setView",
  "getView",
  "getViewsCount",
  "renderFont",
  "getPartHash",
  "paintPartTile",
  "getViewIds",
  "setOutlineState",
  "paintWindow",
  "postWindow",
  "postWindowKeyEvent",
  "postWindowMouseEvent",
  "setViewLanguage",
  "postWindowExtTextInputEvent",
  "getPartInfo",
  "paintWindowDPI",
  "insertCertificate",
  "addCertificate",
  "getSignatureState",
  "renderShapeSelection",
  "postWindowGestureEvent",
  "createViewWithOptions",
  "selectPart",
  "moveSelectedParts",
  "resizeWindow",
  "getClipboard",
  "setClipboard",
  "getSelectionType",
  "removeTextContext",
  "sendDialogEvent",
  "renderFontOrientation",
  "paintWindowForView",
  "completeFunction",
  "setWindowTextSelection",
  "sendFormFieldEvent",
  "setBlockedCommandList",
  "renderSearchResult",
  "sendContentControlEvent",
  "getSelectionTypeAndText",
  // 7.5 and later (25.2's header)
  "getDataArea",
  "getEditMode",
  "setViewTimezone",
  "setAccessibilityState",
  "getA11yFocusedParagraph",
  "getA11yCaretPosition",
  "setViewReadOnly",
  "setAllowChangeComments",
  "getPresentationInfo",
  "createSlideRenderer",
  "postSlideshowCleanup",
  "renderNextSlideLayer",
  "setViewOption",
] as const;

/**
 * The slots svc calls and cannot do without (setOption and getFilterTypes are optional): an engine
 * whose tables end before one of them is refused at start (workers/engine-identity.ts).
 */
export const REQUIRED_OFFICE_SLOTS = [
  "destroy", "getError", "documentLoadWithOptions", "freeError", "registerCallback", "setOptionalFeatures",
  "setDocumentPassword", "getVersionInfo", "runLoop",
] as const satisfies readonly (typeof OFFICE_SLOTS)[number][];
export const REQUIRED_DOCUMENT_SLOTS = [
  "destroy", "saveAs", "getDocumentType", "getParts", "getPartPageRectangles", "getPart", "setPart", "getPartName",
  "setPartMode", "paintTile", "getTileMode", "getDocumentSize", "initializeForRendering", "registerCallback",
  "postKeyEvent", "postMouseEvent", "postUnoCommand", "setTextSelection", "getTextSelection", "paste",
  "resetSelection", "getCommandValues", "setClientZoom", "setClientVisibleArea", "createView", "destroyView",
  "setView", "getView", "getViewsCount", "paintPartTile", "setViewLanguage", "postWindowExtTextInputEvent",
  "getPartInfo", "getSignatureState", "selectPart", "moveSelectedParts",
] as const satisfies readonly (typeof DOCUMENT_SLOTS)[number][];

export type OfficeSlot = (typeof OFFICE_SLOTS)[number];
export type DocumentSlot = (typeof DOCUMENT_SLOTS)[number];

/** LibreOfficeKitEnums.h LibreOfficeKitCallbackType: the callbacks' numbers, by their names there (LOK_CALLBACK_…). */
export const LOK_CALLBACK = {
  INVALIDATE_TILES: 0,
  INVALIDATE_VISIBLE_CURSOR: 1,
  TEXT_SELECTION: 2,
  TEXT_SELECTION_START: 3,
  TEXT_SELECTION_END: 4,
  CURSOR_VISIBLE: 5,
  GRAPHIC_SELECTION: 6,
  HYPERLINK_CLICKED: 7,
  STATE_CHANGED: 8,
  STATUS_INDICATOR_START: 9,
  STATUS_INDICATOR_SET_VALUE: 10,
  STATUS_INDICATOR_FINISH: 11,
  SEARCH_NOT_FOUND: 12,
  DOCUMENT_SIZE_CHANGED: 13,
  SET_PART: 14,
  SEARCH_RESULT_SELECTION: 15,
  UNO_COMMAND_RESULT: 16,
  CELL_CURSOR: 17,
  MOUSE_POINTER: 18,
  CELL_FORMULA: 19,
  DOCUMENT_PASSWORD: 20,
  DOCUMENT_PASSWORD_TO_MODIFY: 21,
  ERROR: 22,
  CONTEXT_MENU: 23,
  INVALIDATE_VIEW_CURSOR: 24,
  TEXT_VIEW_SELECTION: 25,
  CELL_VIEW_CURSOR: 26,
  GRAPHIC_VIEW_SELECTION: 27,
  VIEW_CURSOR_VISIBLE: 28,
  VIEW_LOCK: 29,
  REDLINE_TABLE_SIZE_CHANGED: 30,
  REDLINE_TABLE_ENTRY_MODIFIED: 31,
  COMMENT: 32,
  INVALIDATE_HEADER: 33,
  CELL_ADDRESS: 34,
  RULER_UPDATE: 35,
  WINDOW: 36,
  VALIDITY_LIST_BUTTON: 37,
  CLIPBOARD_CHANGED: 38,
  CONTEXT_CHANGED: 39,
  SIGNATURE_STATUS: 40,
  PROFILE_FRAME: 41,
  CELL_SELECTION_AREA: 42,
  CELL_AUTO_FILL_AREA: 43,
  TABLE_SELECTED: 44,
  REFERENCE_MARKS: 45,
  JSDIALOG: 46,
  CALC_FUNCTION_LIST: 47,
  TAB_STOP_LIST: 48,
  FORM_FIELD_BUTTON: 49,
  INVALIDATE_SHEET_GEOMETRY: 50,
  VALIDITY_INPUT_HELP: 51,
  DOCUMENT_BACKGROUND_COLOR: 52,
  SC_FOLLOW_JUMP: 54,
  CONTENT_CONTROL: 55,
  PRINT_RANGES: 56,
  FONTS_MISSING: 57,
  MEDIA_SHAPE: 58,
  EXPORT_FILE: 59,
  VIEW_RENDER_STATE: 60,
  APPLICATION_BACKGROUND_COLOR: 61,
  A11Y_FOCUS_CHANGED: 62,
  A11Y_CARET_CHANGED: 63,
  A11Y_TEXT_SELECTION_CHANGED: 64,
  COLOR_PALETTES: 65,
  DOCUMENT_PASSWORD_RESET: 66,
  A11Y_FOCUSED_CELL_CHANGED: 67,
  A11Y_EDITING_IN_SELECTION_STATE: 68,
  A11Y_SELECTION_CHANGED: 69,
  CORE_LOG: 70,
  TOOLTIP: 71,
  SHAPE_INNER_TEXT: 72,
  VERTICAL_RULER_UPDATE: 73,
} as const;

/** LibreOfficeKitEnums.h */
export const LOK_DOCTYPE = { TEXT: 0, SPREADSHEET: 1, PRESENTATION: 2, DRAWING: 3, OTHER: 4 } as const;
export const LOK_FEATURE_DOCUMENT_PASSWORD = 1n << 0n;
export const LOK_FEATURE_DOCUMENT_PASSWORD_TO_MODIFY = 1n << 1n;
/** The client shows comments itself: LibreOffice reports each change (LOK_CALLBACK_COMMENT) instead of painting them. */
export const LOK_FEATURE_NO_TILED_ANNOTATIONS = 1n << 3n;
/** LibreOfficeKitEnums.h LibreOfficeKitTileMode */
export const LOK_TILEMODE_RGBA = 0;
export const LOK_TILEMODE_BGRA = 1;

/** LibreOfficeKitEnums.h: key, mouse and text-input event types. */
export const LOK_KEYEVENT_KEYINPUT = 0;
export const LOK_KEYEVENT_KEYUP = 1;
export const LOK_MOUSEEVENT_MOUSEBUTTONDOWN = 0;
export const LOK_MOUSEEVENT_MOUSEBUTTONUP = 1;
export const LOK_MOUSEEVENT_MOUSEMOVE = 2;
export const LOK_EXT_TEXTINPUT = 0;
export const LOK_EXT_TEXTINPUT_END = 2;
/** LibreOfficeKit's postWindow action that closes a tunnelled window (LOK_WINDOW_CLOSE). */
export const LOK_WINDOW_CLOSE = 1;

/** A NUL-terminated UTF-8 buffer for C. Keep the returned Buffer referenced until the call returns. */
export function cstr(s: string): Buffer {
  return Buffer.from(s + "\0", "utf8");
}

/** file:// URL of an absolute path, each segment percent-encoded (spaces, '#', '%', non-ASCII). */
export function fileUrl(absPath: string): string {
  if (!absPath.startsWith("/")) throw new Error(`not an absolute path: ${absPath}`);
  return "file://" + absPath.split("/").map((seg) => encodeURIComponent(seg)).join("/");
}
