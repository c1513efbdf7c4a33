// The environment of a process we start that must hold no secret: the office engines (editing
// kits, DocBuilder workers) and Caddy. Anyone who can open a document runs LibreOffice's code on
// it, and /proc/<pid>/environ of that process is readable by the process itself and by everything
// it starts: an inherited environment handed the service's secrets (SVC_EMBED_JWT_SECRET, the API
// keys, the admin password…) to whoever found a way to read a file in the engine. So a child's
// environment is built from an allow list, never extended from the parent's; spawn it with
// `extendEnv: false`.

/** Names passed through from the parent when set: the program search path, locale and time zone. */
const PASSED_THROUGH = ["PATH", "LANG", "LANGUAGE", "TZ"];
const LOCALE = /^LC_[A-Z_]+$/;

/** A name that looks like a secret is refused even when a caller names it as the child's own. */
const SECRET_NAME = /SECRET|KEY|PASSWORD|PASSWD|TOKEN|CREDENTIAL/i;

export interface ChildEnvironmentOptions {
  /** HOME of the child: an engine's own profile (what it writes under ~ stays there). */
  home: string;
  /** The child's own settings, named one by one (profile folder, slot, upstreams…). */
  own?: Record<string, string | undefined>;
  /** Further names the child reads from the parent's environment when set (e.g. SVC_KIT_WARMUP). */
  passThrough?: string[];
}

/**
 * The whole environment of a child: PATH, locale (LANG, LANGUAGE, LC_*), TZ and TMPDIR from the
 * parent when set, HOME as given, and the child's own settings. Nothing else of the parent's,
 * whatever it holds.
 */
export function childEnvironment(parent: Record<string, string | undefined>, options: ChildEnvironmentOptions): Record<string, string> {
  const env: Record<string, string> = {};
  const names = [...PASSED_THROUGH, "TMPDIR", ...(options.passThrough ?? []), ...Object.keys(parent).filter((n) => LOCALE.test(n))];
  for (const name of names) {
    const value = parent[name];
    if (value !== undefined && !SECRET_NAME.test(name)) env[name] = value;
  }
  env.HOME = options.home;
  for (const [name, value] of Object.entries(options.own ?? {})) {
    if (SECRET_NAME.test(name)) throw new Error(`${name} looks like a secret: a child process is never given one`);
    if (value !== undefined) env[name] = value;
  }
  return env;
}
