// The request parameters of the DocBuilder API (/v1), described once: the service validates with
// them (multipart fields or a JSON body) and the API reference (OpenAPI) is generated from them.
import { z } from "zod";

const boolParam = z.union([z.boolean(), z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1")]).describe("true or false (also 1 or 0 in a multipart field)");
const formatParam = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9]{1,8}$/, { message: "must be a file extension such as pdf or docx" })
  .describe("a file extension such as pdf, docx, xlsx (see GET /v1/formats)");

export const ConvertParams = z.strictObject({
  url: z.string().optional().describe("where to fetch the source instead of a `file` part (SSRF rules apply)"),
  to: formatParam,
  from: formatParam.optional(),
  async: boolParam.optional().default(false),
  callback_url: z.string().optional().describe("with async=true: where the signed job.done / job.failed callback goes"),
  options: z.strictObject({ password: z.string().max(1024).optional() }).optional().default({}),
});

export const BuildParams = z.strictObject({
  script: z.unknown().refine((v) => v !== undefined, { message: "required: the svcscript document" }),
  async: boolParam.optional().default(false),
  callback_url: z.string().optional(),
});

export const TemplateParams = z.strictObject({
  url: z.string().optional(),
  data: z.record(z.string(), z.unknown(), { message: "must be a JSON object" }),
  to: formatParam.optional().default("docx"),
  async: boolParam.optional().default(false),
  callback_url: z.string().optional(),
  options: z.strictObject({ missing: z.enum(["empty", "error"]).optional().default("empty") }).optional().default({ missing: "empty" }),
});

export const ExtractParams = z.strictObject({
  url: z.string().optional(),
  from: formatParam.optional(),
  password: z.string().max(1024).optional(),
  width: z.coerce.number().int().min(16).max(2048).optional(),
});
