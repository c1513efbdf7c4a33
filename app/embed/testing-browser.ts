// An integrator's world for the embedding browser tests, set up once: the real gate and editing
// server (startEmbedStack), Debian's Caddy in front of them, Debian's Chromium, and the
// integrator's application on loopback (its page and backend routes, given by the test).

import type { Browser } from "playwright-core";
import { freePort, startCaddy, type RunningCaddy } from "../../caddy/testing";
import { startChromium } from "../edsrv/testing/chromium";
import { startEmbedStack, type EmbedStack, type EmbedStackOptions } from "./testing";

export interface EmbedBrowserWorld {
  stack: EmbedStack;
  caddy: RunningCaddy;
  browser: Browser;
  /** The integrator's application, e.g. http://127.0.0.1:PORT (allowed by SVC_EMBED_ALLOWED_ORIGINS). */
  appOrigin: string;
  close(): Promise<void>;
}

/**
 * Starts the world. `app(caddyUrl)` answers the integrator's requests (its page, its backend);
 * `options` are the stack's, to which the public URL (the proxy) and the app's origin are added.
 */
export async function startEmbedBrowserWorld(app: (caddyUrl: string) => (req: Request) => Response | Promise<Response>, options: EmbedStackOptions = {}): Promise<EmbedBrowserWorld> {
  const caddyPort = await freePort();
  const caddyUrl = `http://127.0.0.1:${caddyPort}`;
  const appPort = await freePort();
  const appOrigin = `http://127.0.0.1:${appPort}`;
  const stack = await startEmbedStack({ ...options, env: { SVC_PUBLIC_URL: caddyUrl, SVC_EMBED_ALLOWED_ORIGINS: appOrigin, ...options.env } });
  const [caddy, chrome] = await Promise.all([
    startCaddy({ app: new URL(stack.gateUrl).host, edsrv: new URL(stack.ed.url).host, port: caddyPort }),
    startChromium(),
  ]);
  const server = Bun.serve({ hostname: "127.0.0.1", port: appPort, fetch: app(caddyUrl) });
  return {
    stack,
    caddy,
    browser: chrome.browser,
    appOrigin,
    close: async () => {
      await chrome.close();
      await caddy.stop();
      server.stop(true);
      await stack.close();
    },
  };
}
