// A stand-in for the editing server's admin channel (Collabora's protocol, protocol notes §5), for
// tests of the gate's sampler and admission: the admin page that sets the session cookie, and a
// WebSocket on the admin path whose answers the test scripts.
import type { ServerWebSocket } from "bun";

export function startStandInAdmin(onMessage: (ws: ServerWebSocket<unknown>, msg: string) => void, adminWsPath = "/ed/adminws", port = 0) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    fetch(req, srv) {
      const url = new URL(req.url);
      if (url.pathname === "/browser/dist/admin/admin.html") return new Response("ok", { headers: { "Set-Cookie": "jwt=t0k; Path=/browser/dist/" } });
      if (url.pathname === adminWsPath && srv.upgrade(req)) return undefined;
      return new Response("nf", { status: 404 });
    },
    websocket: {
      message(ws, msg) {
        onMessage(ws, String(msg));
      },
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}
