#!/usr/bin/env bash
# The Kubernetes manifests (deploy/kubernetes) played for real with `podman kube play`, on an
# image already built (scripts/container-test.sh runs this after its own checks, with svc:test).
# podman 4.3 plays Pods and PersistentVolumeClaims but no StatefulSet, Service or HPA:
# deploy/podman-pods.ts derives one Pod per StatefulSet from its pod template (the manifests'
# own environment, resources, security context and mounts; docbuilder-0 as its host name so
# SVC_DOCBUILDER_INSTANCE=from-hostname works). Then: DocBuilder's /v1/status, a conversion
# (sync, and async: the job and file ids carry instance 00), the gate's /svc/healthz. Each pod has
# its own network namespace; only their ports are published, on 127.0.0.1.
#   bash scripts/kube-play-test.sh [IMAGE]     (LICENSE_DIR and LICENSE_PUBKEY: a license to mount)
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[kube-play] %s\n' "$*"; }
IMAGE="${1:-svc:test}"
PODMAN="podman --runtime runc"
GATE_PORT=18090
DB_PORT=18091
DB="http://127.0.0.1:${DB_PORT}"
GATE="http://127.0.0.1:${GATE_PORT}"
KUBE_FILE=$(mktemp --suffix=.yaml)

# A pod needs podman's pause process (catatonit) for its infra container.
if ! command -v catatonit >/dev/null && [ ! -x /usr/libexec/podman/catatonit ]; then
  say "installing catatonit (podman's pause process for pods)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends catatonit >/dev/null
fi

# The Secret's values for this run (the manifests hold placeholders, which the service refuses).
rand() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
KEY="svc_kube_$(rand 12)"
export SVC_DOCBUILDER_API_KEYS="ci:$KEY" SVC_DOCBUILDER_JWT_SECRET="$(rand 24)" SVC_DOCBUILDER_CALLBACK_SECRET="$(rand 24)" \
  SVC_EMBED_JWT_SECRET="$(rand 24)" SVC_EMBED_CALLBACK_SECRET="$(rand 24)"
ARGS=(--image "localhost/${IMAGE#localhost/}" --port "svc=$GATE_PORT" --port "docbuilder=$DB_PORT" --env "svc:SVC_PUBLIC_URL=$GATE")
if [ -n "${LICENSE_DIR:-}" ]; then
  ARGS+=(--license-dir "$LICENSE_DIR" --env "svc:SVC_LICENSE_PUBKEY=$LICENSE_PUBKEY" --env "docbuilder:SVC_LICENSE_PUBKEY=$LICENSE_PUBKEY")
fi
bun deploy/podman-pods.ts "${ARGS[@]}" > "$KUBE_FILE"

down() {
  $PODMAN kube down "$KUBE_FILE" >/dev/null 2>&1 || true
  $PODMAN volume rm -f data-svc-0 >/dev/null 2>&1 || true
  rm -f "$KUBE_FILE"
}
fail() {
  say "FAIL: $*"
  for c in docbuilder-0-docbuilder svc-0-svc; do say "--- $c"; $PODMAN logs "$c" 2>&1 | tail -15 || true; done
  exit 1
}
trap down EXIT
# Pods or a volume left by an interrupted run.
$PODMAN kube down "$KUBE_FILE" >/dev/null 2>&1 || true
$PODMAN volume rm -f data-svc-0 >/dev/null 2>&1 || true

say "podman kube play: pods svc-0 and docbuilder-0 from deploy/kubernetes"
if ! out=$($PODMAN kube play "$KUBE_FILE" 2>&1); then
  printf '%s\n' "$out"
  fail "podman kube play refused the pods"
fi
p0=$(date +%s)
wait_for() { # URL SECONDS
  for _ in $(seq 1 "$2"); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 1; done
  return 1
}
wait_for "$DB/v1/status" 180 || fail "docbuilder-0 did not answer /v1/status"
say "docbuilder-0 answers /v1/status after $(( $(date +%s) - p0 )) s"
uid=$($PODMAN exec docbuilder-0-docbuilder id -u)
[ "$uid" = 10001 ] || fail "docbuilder-0 runs as uid $uid, not the manifests' 10001"

code=$(curl -s -o /tmp/svc-kube.pdf -w '%{http_code}' -H "Authorization: Bearer $KEY" -F to=pdf -F "file=@fixtures/hello.docx" "$DB/v1/convert")
[ "$code" = 200 ] && head -c 4 /tmp/svc-kube.pdf | grep -q '%PDF' || fail "convert on docbuilder-0 answered $code"
say "docbuilder-0 converted hello.docx to PDF ($(stat -c %s /tmp/svc-kube.pdf) bytes)"

job=$(curl -s -H "Authorization: Bearer $KEY" -F to=pdf -F async=true -F "file=@fixtures/hello.docx" "$DB/v1/convert")
JOB_ID=$(printf '%s' "$job" | bun -e 'const j = await Bun.stdin.json(); console.log(j.id ?? "")')
[[ "$JOB_ID" =~ ^job_00[0-9a-f]{22}$ ]] || fail "async convert: no job id of instance 00 ($job)"
FILE_ID=""
for _ in $(seq 1 120); do
  state=$(curl -fsS -H "Authorization: Bearer $KEY" "$DB/v1/jobs/$JOB_ID" | bun -e 'const j = await Bun.stdin.json(); console.log(j.status, j.outputs?.[0]?.file_id ?? "")')
  case "$state" in done*) FILE_ID=${state#done }; break ;; failed*) fail "job $JOB_ID failed" ;; esac
  sleep 1
done
[[ "$FILE_ID" =~ ^file_00[0-9a-f]{22}$ ]] || fail "job $JOB_ID: no file id of instance 00 ($state)"
curl -fsS -o /tmp/svc-kube-file.pdf -H "Authorization: Bearer $KEY" "$DB/v1/files/$FILE_ID" && head -c 4 /tmp/svc-kube-file.pdf | grep -q '%PDF' || fail "file $FILE_ID is not the PDF"
say "async: job $JOB_ID, file $FILE_ID (instance 00, from the host name docbuilder-0)"
if [ -n "${LICENSE_DIR:-}" ]; then
  pj=$(curl -fsS -H "Authorization: Bearer $KEY" "$DB/v1/limits" | bun -e 'const j = await Bun.stdin.json(); console.log(j.limits?.parallel_jobs)')
  [ "$pj" = 2 ] || fail "docbuilder-0: parallel_jobs $pj (expected 2: the license mounted at /etc/svc/license.token, 2 workers)"
  say "docbuilder-0 read the license at /etc/svc/license.token: parallel_jobs $pj"
fi

wait_for "$GATE/svc/healthz" 180 || fail "svc-0 did not answer /svc/healthz"
say "svc-0 answers /svc/healthz after $(( $(date +%s) - p0 )) s"
if [ -n "${LICENSE_DIR:-}" ]; then
  edition=$(curl -fsS "$GATE/svc/status" | bun -e 'const j = await Bun.stdin.json(); console.log(j.edition)')
  [ "$edition" = enterprise ] || fail "svc-0: edition $edition (the license at /etc/svc/license.token was not read)"
  say "svc-0 read the license at /etc/svc/license.token: edition $edition"
fi
$PODMAN exec svc-0-svc test -w /data || fail "svc-0 cannot write its data volume"
# The gate's proxy sends /v1/ to the manifests' DocBuilder names (docbuilder-N.docbuilder, which
# resolve only in a cluster), not to the gate's own DocBuilder: here no instance answers, the spec's 502.
code=$(curl -s -o /dev/null -w '%{http_code}' "$GATE/v1/status")
[ "$code" = 502 ] || fail "svc-0's /v1/status answered $code, not 502: the proxy is not using SVC_PROXY_DOCBUILDER_UPSTREAMS"
say "svc-0's proxy sends /v1/ to the manifests' DocBuilder names (none resolves under podman: 502)"

say "podman kube down"
$PODMAN kube down "$KUBE_FILE" >/dev/null || fail "podman kube down"
say "PASS"
