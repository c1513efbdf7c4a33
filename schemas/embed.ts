// The embed configuration (spec "Embed configuration") and the other request bodies of the embed
// API, described once. The gate validates with these schemas and the API reference is generated
// from them. Where the spec leaves a choice open, the choice is written here:
//   - required: document (with url, key, fileType) and editor (the spec marks both objects
//     required; every field of editor has a default, so `editor: {}` is enough);
//   - document.fileType is taken exactly as sent: one of the 12 lowercase values, else 415;
//   - document.title defaults to the file name of the URL, else "<key>.<fileType>";
//   - editor.mode defaults to "edit", editor.lang to "vi";
//   - editor.user is optional (a guest id is made); user.name defaults to user.id;
//   - ui fields are listed below (the spec only names the topics: size, toolbar style, close
//     button, print, export, copy, user list);
//   - unknown fields are refused, so a misspelt field is reported instead of silently ignored.

import { z } from "zod";

/** The 12 file types the embed layer accepts (spec: otherwise 415 unsupported_file_type). */
export const EMBED_FILE_TYPES = ["docx", "doc", "odt", "rtf", "txt", "xlsx", "xls", "ods", "csv", "pptx", "ppt", "odp"] as const;
export type EmbedFileType = (typeof EMBED_FILE_TYPES)[number];
export const isEmbedFileType = (v: string): v is EmbedFileType => (EMBED_FILE_TYPES as readonly string[]).includes(v);

export const DOCUMENT_KEY_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
export const EDITOR_MODES = ["edit", "view"] as const;
export type EditorMode = (typeof EDITOR_MODES)[number];

const httpUrl = z
  .string()
  .trim()
  .max(4096, { message: "must be at most 4096 characters" })
  .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), { message: "must be an absolute http:// or https:// URL" });

// Collabora's admin channel writes user ids unescaped inside JSON: a quote, a backslash or a
// control character would break every reading of it, so they are refused here.
const userId = z
  .union([z.string(), z.number().int().nonnegative()])
  .transform((v) => String(v).trim())
  .pipe(
    z
      .string()
      .min(1, { message: "must not be empty" })
      .max(128, { message: "must be at most 128 characters" })
      .regex(/^[^"\\\u0000-\u001f\u007f]*$/, { message: "must not contain quotes, backslashes or control characters" }),
  );

const displayName = z
  .string()
  .trim()
  .min(1, { message: "must not be empty" })
  .max(128, { message: "must be at most 128 characters" })
  .regex(/^[^\u0000-\u001f\u007f]*$/, { message: "must not contain control characters" });

/** A CSS length for the iframe (api.js): 100%, 800px, 90vh … */
const cssLength = z.string().trim().regex(/^\d+(\.\d+)?(px|%|vh|vw|em|rem)?$/, { message: "must be a CSS length such as 100%, 800px or 90vh" });

export const EmbedDocument = z
  .object({
    url: httpUrl.describe("Where the service downloads the source file (the service downloads it, not the browser); SSRF rules apply."),
    title: z
      .string()
      .trim()
      .min(1, { message: "must not be empty" })
      .max(255, { message: "must be at most 255 characters" })
      .regex(/^[^\u0000-\u001f\u007f]*$/, { message: "must not contain control characters" })
      .optional()
      .describe("Display name; default: the file name of the URL."),
    // Taken exactly as sent (no trimming, lowercasing or dot stripping): a string outside the 12
    // is 415 unsupported_file_type (embed-config.ts), a missing one or a non-string 400.
    fileType: z.string().describe(`File extension, exactly one of ${EMBED_FILE_TYPES.join(", ")} (lowercase, no dot); anything else is 415.`),
    key: z
      .string()
      .regex(DOCUMENT_KEY_PATTERN, { message: "must be 1 to 128 characters of A-Z a-z 0-9 . _ -" })
      .describe("Groups the co-editors of one document; a new key for every content version and after a closed callback."),
  })
  .strict();

export const EmbedUser = z
  .object({
    id: userId.describe("The user's id in the host application."),
    name: displayName.optional().describe("Shown to other editors and in callbacks; default: the id."),
  })
  .strict();

export const EmbedEditor = z
  .object({
    mode: z.enum(EDITOR_MODES).default("edit").describe("edit or view; view holds no connection slot."),
    lang: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, { message: "must be a language code such as vi, en or en-US" })
      .default("vi")
      .describe("Interface language code."),
    user: EmbedUser.optional().describe("The current user; default: a guest."),
    callbackUrl: httpUrl.optional().describe("Receives document.saved and document.closed; SSRF rules apply; redirects are not followed."),
  })
  .strict();

export const EmbedUi = z
  .object({
    width: cssLength.default("100%").describe("Width of the editor frame (api.js)."),
    height: cssLength.default("100%").describe("Height of the editor frame (api.js)."),
    toolbar: z.enum(["compact", "tabbed"]).default("tabbed").describe("Toolbar style: tabbed (Home, Insert, …) or compact (one row, the rest in a \"more\" menu)."),
    closeButton: z.boolean().default(false).describe("Show a close button (the editor posts UI_Close)."),
    print: z.boolean().default(true).describe("Allow printing."),
    export: z.boolean().default(true).describe("Allow downloading and exporting."),
    copy: z.boolean().default(true).describe("Allow copying out of the document."),
    userList: z.boolean().default(true).describe("Show who else is in the document."),
    ruler: z.boolean().optional().describe("Show the ruler in text documents."),
    statusbar: z.boolean().optional().describe("Show the status bar."),
  })
  .strict();

/** The configuration once a token, if any, has been applied: what session creation validates. */
export const EmbedConfig = z
  .object({
    document: EmbedDocument,
    // Required by the spec ("editor | object | yes"); its fields have defaults, so {} is enough.
    editor: EmbedEditor,
    ui: EmbedUi.prefault({}),
  })
  .strict();

export type EmbedConfigInput = z.input<typeof EmbedConfig>;
export type EmbedConfigValue = z.output<typeof EmbedConfig>;
export type EmbedUiValue = z.output<typeof EmbedUi>;

/** Claims a token may carry beside the config (its payload is the config itself). */
export const JWT_CLAIMS = ["exp", "iat", "nbf", "iss", "sub", "aud", "jti"] as const;

/**
 * The body of POST /svc/embed/session as it arrives: a JSON object whose config may sit inside
 * `token`. Only the envelope is checked here; the config is checked with EmbedConfig once the
 * token has been verified (the spec checks the token before the config). `events` is browser-side
 * only: tolerated and ignored when a library sends it along.
 */
export const EmbedSessionRequest = z
  .object({
    token: z.string().min(1, { message: "must not be empty" }).optional().describe("HS256 JWT whose payload is the config; replaces document, editor and ui."),
    document: z.unknown().optional(),
    editor: z.unknown().optional(),
    ui: z.unknown().optional(),
    events: z.unknown().optional(),
  })
  .strict();

export const EmbedModeRequest = z.object({ mode: z.enum(EDITOR_MODES).describe("view or edit; edit applies the connection cap.") }).strict();

/** Query of GET /svc/embed/files/{doc_id}. */
export const EmbedDownloadQuery = z.object({
  v: z.string().regex(/^\d{1,9}$/, { message: "must be a version number (0 is the original)" }).transform(Number),
  exp: z.string().regex(/^\d{1,12}$/, { message: "must be Unix seconds" }).transform(Number),
  // Any value: a sig that is not the gate's (wrong length, not hex, upper case…) is a wrong
  // signature, 403 invalid_signature (downloads.ts); only a missing sig is a bad request.
  sig: z.string().describe("The gate's signature: 64 lowercase hexadecimal characters; anything else is 403 invalid_signature."),
});
