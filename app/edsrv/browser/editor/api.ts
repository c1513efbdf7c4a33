// window.edApi: the hooks the interface (ui.js) is built on, one place where every command leaves.

import { commandValuesCommand, downloadAsCommand, mouseCommand, slideImageCommand, unoCommand, type UnoArguments } from "../../protocol/frames";
import { parseRects } from "../../protocol/server-frames";
import { insertGraphic, pasteData } from "./clipboard";
import { doSave, uno } from "./commands";
import { on } from "./events";
import { inTwips, scrollIntoView, visible } from "./geometry";
import { officeText, officeTip } from "./office-text";
import { showMarks } from "./marks";
import { viewColor } from "./other-views";
import { CHARS, KEYS } from "./keyboard";
import { focusDocument, viewport } from "./page";
import { switchPart } from "./parts";
import { send } from "./outbox";
import { post, uiAction } from "./host";
import { edState as S, type Rect } from "./state";
import { setZoom } from "./zoom";
import { screenReaderOn, setScreenReader } from "./screen-reader";

export interface EditorApi {
  send(text: string): void;
  uno(cmd: string, args?: UnoArguments): void;
  /** Twips per CSS pixel (15 = 100 %): tiles are asked for again at the new scale. */
  setZoom(twipsPerPx: number): void;
  zoom(): number;
  switchPart(part: number): void;
  focus(): void;
  reveal(r: Rect): void;
  paste(mime: string, bytes: Uint8Array): void;
  insertGraphic(mime: string, bytes: Uint8Array): void;
  marks(name: string, rects: Rect[]): void;
  viewColor(viewId: unknown): string;
  viewportPx(): { w: number; h: number };
  /** The part of the document the viewport shows (twips). */
  shown(): Rect;
  on: typeof on;
  save(): void;
  /** Screen reader support: the paragraph at the caret mirrored where a screen reader reads it. */
  setScreenReader(on: boolean): void;
  screenReader(): boolean;
  /** Collabora's postMessage API: a message to the host page. */
  post(id: string, values?: unknown): void;
  /** A person's UI_* action posted to the host; true when the editor then acts itself (Disable_Default_UIAction). */
  uiAction(id: string, values?: unknown): boolean;
  /** LibreOffice's texts in the page's language (office-text.ts): ed.js has them, ui.js uses them without a second copy. */
  officeText: typeof officeText;
  officeTip: typeof officeTip;
  /** VCL's key codes and the characters some keys carry (protocol/keys.ts), for the tunnelled windows' keys. */
  vclKeys: typeof KEYS;
  vclChars: typeof CHARS;
  /** The wire's commands and rectangles as ed.js writes and reads them (protocol/), for ui.js: bundled in both, they travelled twice. */
  frames: {
    mouse: typeof mouseCommand;
    uno: typeof unoCommand;
    commandValues: typeof commandValuesCommand;
    downloadAs: typeof downloadAsCommand;
    slideImage: typeof slideImageCommand;
    rects: typeof parseRects;
  };
}

export function installApi(): void {
  window.edApi = {
    send,
    uno,
    setZoom,
    zoom: () => S.twipsPerPx,
    switchPart,
    focus: () => { focusDocument(); },
    reveal: (r) => { scrollIntoView(r); },
    paste: pasteData,
    insertGraphic,
    marks: showMarks,
    viewColor,
    viewportPx: () => ({ w: viewport.clientWidth, h: viewport.clientHeight }),
    shown: () => inTwips(visible()),
    on,
    save: () => { doSave(true, false, false, ""); },
    setScreenReader,
    screenReader: screenReaderOn,
    post,
    uiAction,
    officeText,
    officeTip,
    vclKeys: KEYS,
    vclChars: CHARS,
    frames: {
      mouse: mouseCommand,
      uno: unoCommand,
      commandValues: commandValuesCommand,
      downloadAs: downloadAsCommand,
      slideImage: slideImageCommand,
      rects: parseRects,
    },
  };
}
