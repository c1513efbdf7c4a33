// LibreOffice's (VCL's) key codes as the wire carries them, for the document and for tunnelled
// windows alike. This module runs in the browser too: no Node or Bun API here.

/** VCL key codes of the keys the engine takes as keys. */
export const KEYS: Record<string, number> = { Backspace: 1283, Delete: 1286, Enter: 1280, Tab: 1282, Escape: 1281, ArrowDown: 1024, ArrowUp: 1025, ArrowLeft: 1026, ArrowRight: 1027, Home: 1028, End: 1029, PageUp: 1030, PageDown: 1031, Insert: 1285, F2: 769 };
/** The characters some of them carry. */
export const CHARS: Record<string, number> = { Enter: 13, Tab: 9, Backspace: 8, Delete: 127, Escape: 27 };
/** VCL modifier bits. */
export const SHIFT = 4096, MOD1 = 8192, MOD2 = 16384;
