// The demo's "backend": the embed config for a sample, as an integrator's backend would make it,
// signed with SVC_EMBED_JWT_SECRET when the service has one (the production way), else plain
// (unsigned mode, the development default).

import { sign } from "hono/jwt";
import { randomBytes } from "node:crypto";
import { ServiceError } from "../errors";
import { DEMO_SAMPLES, sampleById } from "./samples";

export interface DemoConfigRequest {
  sample: string;
  key?: string;
  user?: string;
  name?: string;
  mode?: string;
  lang?: string;
}

export interface DemoSettings {
  publicUrl: string;
  jwtSecret: string;
  now: () => number;
}

const KEY = /^[A-Za-z0-9._-]{1,128}$/;

export async function demoConfig(q: DemoConfigRequest, s: DemoSettings): Promise<Record<string, unknown>> {
  const sample = sampleById(q.sample);
  if (!sample) {
    throw new ServiceError("bad_request", `Mẫu "${q.sample}" không có: hãy chọn ${DEMO_SAMPLES.map((x) => x.id).join(", ")}.`, { sample: q.sample });
  }
  const key = q.key && KEY.test(q.key) ? q.key : `demo-${sample.id}-${randomBytes(4).toString("hex")}`;
  const config = {
    document: { url: `${s.publicUrl}/svc/demo/${sample.file}`, fileType: sample.fileType, key, title: sample.title },
    editor: {
      mode: q.mode === "view" ? "view" : "edit",
      lang: q.lang || "vi",
      user: { id: (q.user || "demo-user-1").slice(0, 64), name: (q.name || "Người dùng 1").slice(0, 64) },
      callbackUrl: `${s.publicUrl}/svc/demo/callback`,
    },
    ui: { closeButton: true },
  };
  if (!s.jwtSecret) return config;
  return { token: await sign({ ...config, exp: Math.floor(s.now() / 1000) + 600 }, s.jwtSecret, "HS256") };
}
