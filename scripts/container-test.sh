#!/usr/bin/env bash
# The container test (npm run test:container; not part of npm run test: an image build takes
# minutes). Builds the image, runs it on a data volume, converts a document and opens an embedded
# session through the proxy, stops it with its stop signal, starts it again on the same volume and
# checks that the document, its versions and the demo API key are still there, and that the
# service runs as a non-root user; then plays the Kubernetes manifests (deploy/kubernetes) on the
# same image with podman kube play (scripts/kube-play-test.sh). Everything talks to 127.0.0.1 only.
# On a machine without a registry the base image is made from Debian's packages
# (../shared/notes/container.md); podman runs with runc and no default ulimits.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[container-test] %s\n' "$*"; }
t0=$(date +%s)
IMAGE=svc:test
NAME=svc-container-test
VOLUME=svc-container-test-data
PORT=18080
BASE="http://127.0.0.1:${PORT}"
PODMAN="podman --runtime runc"

# --- what the test needs, installed when missing
if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
  say "installing podman, runc, mmdebstrap, uidmap (Debian packages)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends podman runc mmdebstrap uidmap >/dev/null
fi
if [ ! -f /etc/containers/containers.conf ]; then
  say "writing /etc/containers/containers.conf (no default ulimits: they fail here)"
  mkdir -p /etc/containers && printf '[containers]\ndefault_ulimits = []\n' > /etc/containers/containers.conf
fi
if ! podman image exists docker.io/library/debian:12-slim; then
  if ! $PODMAN pull -q docker.io/library/debian:12-slim >/dev/null 2>&1; then
    say "no registry: making debian:12-slim from Debian's packages (mmdebstrap)"
    command -v mmdebstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
    mmdebstrap --variant=minbase --quiet bookworm /tmp/svc-bookworm.tar
    podman import -q /tmp/svc-bookworm.tar docker.io/library/debian:12-slim >/dev/null
    rm -f /tmp/svc-bookworm.tar
  fi
fi

cleanup() { $PODMAN rm -f "$NAME" >/dev/null 2>&1 || true; }
trap 'cleanup; $PODMAN volume rm -f "$VOLUME" >/dev/null 2>&1 || true' EXIT
cleanup
$PODMAN volume rm -f "$VOLUME" >/dev/null 2>&1 || true

say "building the image"
b0=$(date +%s)
# This machine's TLS goes through an inspecting proxy whose CA is in the host's bundle: the build's
# npm and bun get it too (nothing of it stays in the image).
CA_ARGS=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  CA_ARGS=(-v "$NODE_EXTRA_CA_CERTS:/etc/ssl/build-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/etc/ssl/build-ca.crt)
fi
$PODMAN build -q --network=host --pull=never "${CA_ARGS[@]}" -t "$IMAGE" . >/dev/null
say "built in $(( $(date +%s) - b0 )) s; size $(podman image inspect "$IMAGE" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1000000}')"

# Production settings: an API key of our own (the image makes none), and an enterprise license
# mounted at the spec's default path /etc/svc/license.token (the image sets no other path).
KEY="svc_container_$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
LICENSE_DIR=$(mktemp -d)
LICENSE_PUBKEY=$(bun -e '
  import { generateKeyPair, signToken, decodePrivateKey } from "./app/editions/license";
  const k = generateKeyPair();
  const token = signToken({ v: 1, prod: "svc-online", kind: "enterprise", conns: 60, plan: "year", exp: "2099-12-31", upd: "2100-01-07", feat: ["api_full"], key: "OOSY-CNTNR-AAAAA-BBBBB-CCCCC", cust: "Container test", iat: Math.floor(Date.now() / 1000) }, decodePrivateKey(k.privateKey));
  await Bun.write(process.argv[1] + "/license.token", token + "\n");
  console.log(k.publicKey);
' "$LICENSE_DIR")
chmod 0755 "$LICENSE_DIR"; chmod 0644 "$LICENSE_DIR/license.token"
start() {
  $PODMAN run -d --name "$NAME" --network=host -v "$VOLUME:/data" \
    -v "$LICENSE_DIR/license.token:/etc/svc/license.token:ro" -e SVC_LICENSE_PUBKEY="$LICENSE_PUBKEY" \
    -e SVC_DOCBUILDER_API_KEYS="ci:$KEY" \
    -e SVC_PROXY_ADDRESS="127.0.0.1:${PORT}" -e SVC_PUBLIC_URL="$BASE" \
    -e SVC_APP_LISTEN=127.0.0.1:18081 -e SVC_EDSRV_LISTEN=127.0.0.1:19980 \
    -e SVC_EMBED_JWT_SECRET=container-test-jwt-secret-0123456789 -e SVC_FETCH_ALLOW_HOSTS=127.0.0.1/32 \
    -e SVC_EMBED_CALLBACK_SECRET=container-test-callback-secret-0123456789 \
    "$IMAGE" >/dev/null
  for _ in $(seq 1 120); do
    if curl -fsS "$BASE/svc/healthz" >/dev/null 2>&1 && curl -fsS "$BASE/v1/status" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  $PODMAN logs "$NAME" | tail -30
  say "FAIL: the service did not become healthy"; exit 1
}
fail() { say "FAIL: $*"; $PODMAN logs "$NAME" 2>&1 | tail -20; exit 1; }

say "starting on volume $VOLUME"
s0=$(date +%s)
start
say "healthy after $(( $(date +%s) - s0 )) s"

uid=$($PODMAN exec "$NAME" id -u)
[ "$uid" != "0" ] || fail "the service runs as root"
say "runs as uid $uid"

$PODMAN exec "$NAME" test ! -e /data/demo-api-key || fail "the image made a demo API key in production"
edition=$(curl -fsS "$BASE/svc/status" | bun -e 'const j = await Bun.stdin.json(); console.log(j.edition)')
[ "$edition" = enterprise ] || fail "the license at /etc/svc/license.token was not read (edition $edition)"
say "license read from /etc/svc/license.token: edition $edition"
# The operator's check, as an operator runs it in the container (no outside network here:
# --offline). The one finding this test's set-up must give is its loopback public URL.
doctor=$($PODMAN exec "$NAME" svc doctor --offline --json 2>&1 || true)
failed=$(printf '%s' "$doctor" | bun -e 'const r = JSON.parse(await Bun.stdin.text()); console.log(r.findings.filter((f) => f.status === "fail").map((f) => f.id).join(" "))' 2>/dev/null || echo "unreadable")
[ "$failed" = "settings.public_url" ] || { printf '%s\n' "$doctor"; fail "svc doctor in the running image: failed checks '$failed' (expected only settings.public_url, the test's loopback address)"; }
say "svc doctor --offline: $(printf '%s' "$doctor" | grep -c '"status": "ok"') checks ok; only the loopback public URL flagged, as expected here"
code=$(curl -s -o /tmp/svc-container.pdf -w '%{http_code}' -H "Authorization: Bearer $KEY" -F to=pdf -F "file=@fixtures/hello.docx" "$BASE/v1/convert")
[ "$code" = 200 ] && head -c 4 /tmp/svc-container.pdf | grep -q '%PDF' || fail "convert answered $code"
say "converted hello.docx to PDF ($(stat -c %s /tmp/svc-container.pdf) bytes)"

# An embedded session for a document the service downloads from a file server on 127.0.0.1.
FILES_DIR=$(mktemp -d)
cp fixtures/hello.docx "$FILES_DIR/"
python3 -m http.server 18999 --bind 127.0.0.1 --directory "$FILES_DIR" >/dev/null 2>&1 &
FILES_PID=$!
trap 'kill $FILES_PID 2>/dev/null; cleanup; $PODMAN volume rm -f "$VOLUME" >/dev/null 2>&1 || true' EXIT
sleep 0.5
TOKEN=$(bun -e '
  import { sign } from "hono/jwt";
  const now = Math.floor(Date.now() / 1000);
  console.log(await sign({ document: { url: "http://127.0.0.1:18999/hello.docx", fileType: "docx", key: "container-test-doc" }, editor: { mode: "edit", user: { id: "u1", name: "Lan" } }, iat: now, exp: now + 3600 }, "container-test-jwt-secret-0123456789", "HS256"));
')
session() {
  curl -s -X POST -H 'Content-Type: application/json' -d "{\"token\":\"$TOKEN\"}" "$BASE/svc/embed/session"
}
S1=$(session)
SID=$(printf '%s' "$S1" | bun -e 'const j = await Bun.stdin.json(); console.log(j.session_id ?? "")')
AT=$(printf '%s' "$S1" | bun -e 'const j = await Bun.stdin.json(); console.log(j.form?.access_token ?? "")')
[ -n "$SID" ] && [ -n "$AT" ] || fail "no session: $S1"
STATE1=$(curl -fsS -H "Authorization: Bearer $AT" "$BASE/svc/embed/session/$SID") || fail "session state"
say "embedded session $SID opened; state: $(printf '%s' "$STATE1" | head -c 160)"
# A document in the editor: a kit of the image loads it, and a typed character changes it (a kit
# that cannot start never answers: without C headers the kits once crashed in a loop). Another
# document than the one whose versions the restart below compares.
EDIT_TOKEN=$(bun -e '
  import { sign } from "hono/jwt";
  const now = Math.floor(Date.now() / 1000);
  console.log(await sign({ document: { url: "http://127.0.0.1:18999/hello.docx", fileType: "docx", key: "container-test-editing" }, editor: { mode: "edit", user: { id: "u2", name: "Minh" } }, iat: now, exp: now + 3600 }, "container-test-jwt-secret-0123456789", "HS256"));
')
S_EDIT=$(curl -s -X POST -H 'Content-Type: application/json' -d "{\"token\":\"$EDIT_TOKEN\"}" "$BASE/svc/embed/session")
edited=$(timeout 120 bun scripts/container-editor-check.ts "$BASE" "$S_EDIT" 2>&1) || { printf '%s\n' "$edited" | tail -5; fail "the editor could not open a document"; }
say "$edited"
[ "$($PODMAN logs "$NAME" 2>&1 | grep -c '"kit_uncaught"')" = 0 ] || fail "a kit failed in the image (kit_uncaught in the log)"

say "stopping with the stop signal (SIGTERM)"
p0=$(date +%s)
$PODMAN stop -t 60 "$NAME" >/dev/null
say "stopped in $(( $(date +%s) - p0 )) s"
$PODMAN rm "$NAME" >/dev/null

say "starting again on the same volume"
start
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" "$BASE/v1/limits")
[ "$code" = 200 ] || fail "the API key is refused after the restart ($code)"
if $PODMAN logs "$NAME" 2>&1 | grep -qF "$KEY"; then fail "the API key is in the container's log"; fi
STATE2=$(curl -fsS -H "Authorization: Bearer $AT" "$BASE/svc/embed/session/$SID") || fail "the session's state is gone after the restart"
DOC1=$(printf '%s' "$STATE1" | bun -e 'const j = await Bun.stdin.json(); console.log(JSON.stringify([j.doc_id, j.key, j.version, j.sha256]))')
DOC2=$(printf '%s' "$STATE2" | bun -e 'const j = await Bun.stdin.json(); console.log(JSON.stringify([j.doc_id, j.key, j.version, j.sha256]))')
[ "$DOC1" = "$DOC2" ] || fail "the document or its versions changed: $DOC1 → $DOC2"
say "after the restart: the API key (never logged), the session, its document and versions ($DOC2)"

# The Kubernetes manifests on the same image, once this container has freed its ports.
cleanup
LICENSE_DIR="$LICENSE_DIR" LICENSE_PUBKEY="$LICENSE_PUBKEY" bash scripts/kube-play-test.sh "$IMAGE" || fail "the Kubernetes manifests under podman kube play"

say "PASS in $(( $(date +%s) - t0 )) s"
