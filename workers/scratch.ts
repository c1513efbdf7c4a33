// One reusable buffer for what a kit paints or encodes and drops at once (a tile's paint before it
// is copied into the shared tiles, a band painted again, a PNG's filtered rows). A new typed array
// for each of them was garbage the collector reclaimed late: at 50 people in ten documents the
// kits' resident memory grew by megabytes a person, and every fresh buffer's pages were faulted
// in again. The kit is single-threaded and each use ends before the next begins.

/** Kept up to this size (a first screen painted as one rectangle: 5×4 tiles of 256 px, 5.3 MB); larger requests get a buffer of their own. */
const KEEP_BYTES = 8 * 1024 * 1024;

export class Scratch {
  private buf = new Uint8Array(0);

  /** `bytes` bytes, zeroed as a new typed array is (LibreOffice may leave pixels it does not paint). */
  zeroed(bytes: number): Uint8Array {
    const view = this.take(bytes);
    view.fill(0);
    return view;
  }

  /** `bytes` bytes holding anything: for a caller that writes every one of them. */
  take(bytes: number): Uint8Array {
    if (bytes > KEEP_BYTES) return new Uint8Array(bytes);
    if (this.buf.length < bytes) this.buf = new Uint8Array(Math.min(KEEP_BYTES, Math.max(bytes, this.buf.length * 2)));
    return this.buf.subarray(0, bytes);
  }
}
