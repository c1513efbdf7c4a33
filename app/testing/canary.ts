// Canary servers for "the engines make no network request" tests: raw TCP listeners on several
// loopback addresses (127.0.0.1, 127.0.0.2, [::1]) that record every connection, whatever protocol
// it speaks, and answer an HTTP request with something worth fetching (a PNG for an image, a
// stylesheet for CSS), so a fetch that happens also shows in what the engine made of it. A test
// asserts that `hits` stayed empty. Only loopback addresses are ever listened on.

import type { Socket, TCPSocketListener } from "bun";

/** A 1×1 red PNG. */
export const CANARY_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC",
  "base64",
);
export const CANARY_CSS = "p { color: #ff0000; font-size: 40pt; }\n";

export interface CanaryHit {
  /** The address:port that was connected to. */
  on: string;
  /** The request line, when the client sent one (empty for a connection that sent nothing). */
  line: string;
  at: number;
}

export interface Canary {
  /** Every connection that arrived, in order. */
  hits: CanaryHit[];
  /** One base URL per listener: http://127.0.0.1:P, http://127.0.0.2:P, http://[::1]:P, http://0x7f000002:P. */
  bases: string[];
  /** The ports, by address. */
  ports: Record<string, number>;
  /** A readable summary of the hits, for an assertion message. */
  describe(): string;
  stop(): void;
}

type Conn = { on: string; buf: string; hit: CanaryHit };

/** Starts listeners on every given loopback address (port 0 each). */
export function startCanary(hosts: string[] = ["127.0.0.1", "127.0.0.2", "::1"]): Canary {
  for (const h of hosts) if (!/^127\.\d+\.\d+\.\d+$/.test(h) && h !== "::1") throw new Error(`canary on a non-loopback address: ${h}`);
  const hits: CanaryHit[] = [];
  const listeners: TCPSocketListener<Conn>[] = [];
  const ports: Record<string, number> = {};
  for (const hostname of hosts) {
    const listener: TCPSocketListener<Conn> = Bun.listen<Conn>({
      hostname,
      port: 0,
      socket: {
        open(socket: Socket<Conn>) {
          const hit = { on: `${hostname}:${listener.port}`, line: "", at: Date.now() };
          hits.push(hit);
          socket.data = { on: hit.on, buf: "", hit };
        },
        data(socket: Socket<Conn>, chunk: Buffer) {
          const c = socket.data;
          c.buf += chunk.toString("latin1");
          const eol = c.buf.indexOf("\r\n");
          if (!c.hit.line && eol >= 0) c.hit.line = c.buf.slice(0, eol);
          if (!c.buf.includes("\r\n\r\n")) return;
          const path = c.hit.line.split(" ")[1] ?? "/";
          const css = /\.css(\?|$)/.test(path);
          const body = css ? Buffer.from(CANARY_CSS) : CANARY_PNG;
          const head = `HTTP/1.1 200 OK\r\nContent-Type: ${css ? "text/css" : "image/png"}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
          socket.write(Buffer.concat([Buffer.from(head, "latin1"), body]));
          socket.end();
        },
        error() {},
      },
    });
    listeners.push(listener);
    ports[hostname] = listener.port;
  }
  const bases = hosts.map((h) => (h.includes(":") ? `http://[${h}]:${ports[h]}` : `http://${h}:${ports[h]}`));
  // The same 127.0.0.2 listener, spelt as one integer in hex (a form URL parsers disagree on).
  if (ports["127.0.0.2"]) bases.push(`http://0x7f000002:${ports["127.0.0.2"]}`);
  return {
    hits,
    bases,
    ports,
    describe: () => hits.map((h) => `${h.on} ${JSON.stringify(h.line)}`).join("\n") || "(none)",
    stop() {
      for (const l of listeners) l.stop(true);
    },
  };
}
