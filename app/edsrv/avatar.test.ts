// CheckFileInfo's UserExtraInfo.avatar as the people list may show it: http(s) and data:image URLs only.
import { expect, test } from "bun:test";
import { avatarOf } from "./document-state";

test("an avatar is an http(s) URL without credentials or a data:image URL; nothing else is passed on", () => {
  expect(avatarOf({ UserExtraInfo: { avatar: "https://cloud.example.test/avatar/alice/64" } })).toBe("https://cloud.example.test/avatar/alice/64");
  expect(avatarOf({ UserExtraInfo: { avatar: "data:image/png;base64,iVBORw0KGgo=" } })).toBe("data:image/png;base64,iVBORw0KGgo=");
  for (const avatar of ["javascript:alert(1)", "data:text/html;base64,PGI+", "https://u:p@cloud.example.test/a.png", "file:///etc/passwd", "/avatar.png", 42, "https://x.test/" + "a".repeat(3000)])
    expect(avatarOf({ UserExtraInfo: { avatar } })).toBeNull();
  expect(avatarOf({ UserExtraInfo: "{\"avatar\":\"https://x.test/a.png\"}" })).toBeNull();
  expect(avatarOf({})).toBeNull();
  expect(avatarOf(undefined)).toBeNull();
});
