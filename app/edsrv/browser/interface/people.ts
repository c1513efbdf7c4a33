// The people in the document: one chip per view, in its colour.

import { el, named } from "./controls";
import { api } from "./state";
import { T } from "./texts";
import { listen } from "./dom";

export const people = el("div", { id: "people", role: "list", "aria-label": T.people });

export function installPeople(): void {
  api.on("viewinfo", (f) => {
    const list = f.views;
    people.innerHTML = "";
    list.forEach((v) => {
      const name = v.username || v.userid || "?";
      const initials = name.split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0]!.toUpperCase()).join("");
      const title = name + (v.current ? " (" + T.you + ")" : "") + (v.readonly ? " — " + T.readonly : "");
      const chip = el("span", { "class": "person", role: "listitem", ...named(title), "data-view": String(v.viewid), text: initials });
      chip.style.background = api.viewColor(v.viewid);
      // Their picture (CheckFileInfo's UserExtraInfo.avatar, checked by the server), over the
      // initials, as Collabora's list shows it; initials again if it does not load.
      const avatar = (v.userextrainfo as { avatar?: unknown } | undefined)?.avatar;
      if (typeof avatar === "string" && /^(https?:|data:image\/)/.test(avatar)) {
        const img = el("img", { "class": "avatar", alt: "", referrerpolicy: "no-referrer", src: avatar });
        listen(img, "error", () => { img.remove(); });
        chip.append(img);
      }
      people.append(chip);
    });
  });
}
