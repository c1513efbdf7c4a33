// How long a finger is held for a long press: its own module (no page behind it) so that the tests
// that press hold for as long as the editor asks.

/** A finger held still this long is a long press (the word selected, the context menu asked for). */
export const LONG_PRESS_MS = 550;
