// Reading a request body that the client may stop sending at any moment. A body that ends early
// (the socket closed mid-upload, a slow client dropped) is the client's doing and ends its own
// request: the readers here turn it into a `ClientGoneError`, which the HTTP layer answers without
// an error-level line, and never leave a stream error without a listener (which Bun, like Node,
// turns into an uncaught exception that ends the whole process).

/** The client closed the connection before its request body was complete. */
export class ClientGoneError extends Error {
  override readonly name = "ClientGoneError";
  constructor(readonly cause?: unknown) {
    super("the client closed the connection before the request body was complete");
  }
}

/** True for the errors a body stream raises when its client goes away. */
export function isClientGone(err: unknown): boolean {
  if (err instanceof ClientGoneError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: string }).code;
  return err.name === "AbortError" || code === "ECONNRESET" || code === "ERR_STREAM_PREMATURE_CLOSE" || code === "ABORT_ERR";
}

/** Rethrows a client's early end as ClientGoneError; anything else unchanged. */
export function asClientGone(err: unknown): unknown {
  return isClientGone(err) && !(err instanceof ClientGoneError) ? new ClientGoneError(err) : err;
}

/**
 * Reads a whole body as text, refusing (with the error `tooLarge` makes) as soon as it passes
 * maxBytes, so an oversized body is never held in memory whole.
 */
export async function readTextBounded(body: ReadableStream<Uint8Array> | null, maxBytes: number, tooLarge: () => Error): Promise<string> {
  if (!body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (e) {
    throw asClientGone(e);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}
