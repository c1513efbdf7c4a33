// One name for the interface's hundred listeners: `listen(b, "click", f)` says what
// `b.addEventListener("click", f)` says, without the method's name at every use (the minifier
// keeps property names: 16 bytes of ui.js each time).

type Events = WindowEventMap & DocumentEventMap & HTMLElementEventMap;

export function listen<K extends keyof Events>(target: EventTarget, type: K, listener: (e: Events[K]) => void, options?: boolean | AddEventListenerOptions): void {
  target.addEventListener(type, listener as EventListener, options);
}
