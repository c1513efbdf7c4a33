// The tab bar of sheets and slides, drawn from the view's status.

import { setClientPartCommand, type DocStatus } from "../../protocol/frames";
import { handle } from "./frames-in";
import { send } from "./outbox";
import { focusDocument, pageData, partsEl } from "./page";
import { edState as S, watch } from "./state";

function buildParts(st: DocStatus): void {
  // Slides are labelled by their number: a slide's name is its title as imported, and LibreOffice
  // does not rename the slide when the title is edited (the tab showed the old title).
  const slides = st.type === "presentation";
  const names = (st.partNames || []).map((n, i) => (slides ? String(i + 1) : n));
  partsEl.hidden = names.length < 2 && st.type === "text";
  if (partsEl.childElementCount !== names.length || names.some((n, i) => partsEl.children[i]!.textContent !== n)) {
    partsEl.innerHTML = "";
    names.forEach((n, i) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = n; b.setAttribute("role", "tab"); b.dataset.part = String(i);
      if (slides) b.setAttribute("aria-label", pageData.textSlide + " " + n);
      b.addEventListener("click", () => { switchPart(i); });
      partsEl.appendChild(b);
    });
  }
  for (let i = 0; i < partsEl.children.length; i++) {
    const on = i === (st.selectedPart || 0);
    partsEl.children[i]!.classList.toggle("active", on);
    partsEl.children[i]!.setAttribute("aria-selected", on ? "true" : "false");
  }
}

export function switchPart(i: number): void {
  if (S.status && i !== S.status.selectedPart) send(setClientPartCommand(i));
  focusDocument();
}

export function installParts(): void {
  watch(["status"], () => { if (S.status) buildParts(S.status); });
  // Another part chosen (by the engine, or another of this person's actions): its status is asked.
  handle("setpart", (f) => { if (S.status && f.part !== S.status.selectedPart) send("status"); });
}
