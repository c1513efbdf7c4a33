/** The URL when `text` is an absolute http: or https: URL; null for anything else (never throws). */
export function parseHttpUrl(text: string): URL | null {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return null;
  }
  return u.protocol === "http:" || u.protocol === "https:" ? u : null;
}
