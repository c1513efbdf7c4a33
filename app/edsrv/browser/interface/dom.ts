// What the interface asks of the page's DOM again and again, said once: a listener, an element by
// id, the focused element, an ARIA attribute, work once a frame, a place. The minifier keeps
// property names, so each `addEventListener`, `document.getElementById` or `setAttribute("aria-…")`
// cost ui.js its full length at every use.

type Events = WindowEventMap & DocumentEventMap & HTMLElementEventMap;

export function listen<K extends keyof Events>(target: EventTarget, type: K, listener: (e: Events[K]) => void, options?: boolean | AddEventListenerOptions): void {
  target.addEventListener(type, listener as EventListener, options);
}

export const byId = (id: string): HTMLElement | null => document.getElementById(id);

export const focused = (): Element | null => document.activeElement;

/** Sets an element's ARIA state or property: `aria(b, "pressed", on)` for `aria-pressed="true"`. */
export const aria = (e: Element, name: string, value: string | number | boolean): void => { e.setAttribute("aria-" + name, String(value)); };

/** `f` at most once a frame, however often the function returned is called before it. */
export function perFrame(f: () => void): () => void {
  let pending = 0;
  return () => { if (!pending) pending = requestAnimationFrame(() => { pending = 0; f(); }); };
}

/** Places a positioned element at (x, y), in CSS pixels. */
export const moveTo = (e: HTMLElement, x: number, y: number): void => { e.style.left = x + "px"; e.style.top = y + "px"; };
