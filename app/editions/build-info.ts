// The build date of this image: the day the release was cut, as a literal constant. License
// tokens carry `upd` (end of update rights); an image built after `upd` rejects the token, so
// this date must not depend on when or where the image is started. It is a source constant, not
// an environment variable: an operator must not be able to move it.
//
// The release step rewrites the line below (`bun run tools/license.ts stamp-build-date`, which
// writes today's date in UTC+7, or a given YYYY-MM-DD) before the image is built and tagged.
// docs/licensing.md describes the step. Tests never read this constant for their vectors; the
// verifier takes the build date as a parameter.

export const BUILD_DATE = "2026-11-22";
