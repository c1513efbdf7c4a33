// The demo as the browser tests use it: the real gate and editing server (one idle kit) behind the
// repository's Caddyfile on a free loopback port, in development mode, and Debian's Chromium.
import { afterAll, beforeAll } from "bun:test";
import type { Browser } from "playwright-core";
import { freePort, startCaddy, type RunningCaddy } from "../../caddy/testing";
import { startChromium } from "../edsrv/testing/chromium";
import { startEmbedStack, type EmbedStack } from "../embed/testing";

export interface DemoStack {
  stack: EmbedStack;
  caddy: RunningCaddy;
  browser: Browser;
  close(): Promise<void>;
}

export async function startDemoStack(env: Record<string, string> = {}): Promise<DemoStack> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const [stack, chrome] = await Promise.all([
    startEmbedStack({ idleKits: 1, env: { SVC_DEV_MODE: "1", SVC_PUBLIC_URL: url, SVC_EMBED_ALLOWED_ORIGINS: url, ...env } }),
    startChromium(),
  ]);
  const caddy = await startCaddy({ app: new URL(stack.gateUrl).host, edsrv: new URL(stack.ed.url).host, port });
  return {
    stack,
    caddy,
    browser: chrome.browser,
    async close() {
      await chrome.close();
      await caddy.stop();
      await stack.close();
    },
  };
}

/** Starts the demo stack before the file's tests and stops it after them; `demo()` is it once started. */
export function useDemoStack(env: Record<string, string> = {}): () => DemoStack {
  let stack: DemoStack | undefined;
  beforeAll(async () => {
    stack = await startDemoStack(env);
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
  });
  return () => stack!;
}
