// What a screen reader says about the document: LibreOfficeKit 7.4 has no accessibility tree to
// give, so the page says what the engine does tell in a live region, once the caret rests: in a
// sheet the cell and its content, in a deck the slide, in text the paragraph's style and the page.

import { on } from "./events";
import { officeText } from "./office-text";
import { pageData } from "./page";
import { edState as S } from "./state";

/** How long the caret rests before the region speaks (each arrow key would interrupt it otherwise). */
const REST_MS = 350;

export function installAnnouncements(): void {
  const region = document.createElement("div");
  region.id = "announce";
  region.className = "sr-only";
  region.setAttribute("role", "status");
  region.setAttribute("aria-live", "polite");
  document.body.appendChild(region);

  let timer: ReturnType<typeof setTimeout> | null = null;
  const say = (text: string) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => { timer = null; if (text && region.textContent !== text) region.textContent = text; }, REST_MS);
  };

  // A sheet: "B2: 500" (the engine sends the content and the address in either order).
  let address = "", content = "";
  const cell = () => { if (address) say(`${address}: ${content}`); };
  on("celladdress", (f) => { address = f.address; cell(); });
  on("cellformula", (f) => { content = f.formula; cell(); });

  // A deck: "Slide 2 / 5".
  let part = -1;
  on("status", () => {
    const st = S.status;
    if (!st || st.type !== "presentation" || st.selectedPart === part) return;
    part = st.selectedPart ?? 0;
    say(`${pageData.textSlide ?? "Slide"} ${part + 1} / ${st.parts ?? 1}`);
  });

  // Text: the paragraph's style and the page, as the engine names them ("Heading 1 · Page 2 of 3"),
  // in the page's language (a style's name is English in every engine language until svc's overlay).
  let style = "", page = "";
  on("statechanged", (f) => {
    if (!f.command || S.status?.type !== "text") return;
    const name = f.command, value = officeText(f.value.trim());
    if (name === ".uno:StyleApply" && value !== style) style = value;
    else if (name === ".uno:StatePageNumber" && value !== page) page = value;
    else return;
    say([style, page].filter(Boolean).join(" · "));
  });
}
