#!/bin/sh
# The real-GPU check (issue 40, docs/gpu.md "Checking against a real GPU"): runs scripts/gpu-check/run.mjs with
# $NODE (default: node on PATH), for machines where Node is a binary carried along. Builds nothing: dist/ must
# be there. Arguments are passed on ([--json FILE]); the record goes to $GPU_CHECK_JSON, else $OUT/gpu-check.json,
# else ./gpu-check.json.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
node=${NODE:-node}
if ! command -v "$node" >/dev/null 2>&1; then
  echo "SHORT preflight: no Node at '$node' (set NODE to a Node >= 20 binary)"
  exit 2
fi
exec "$node" "$here/run.mjs" "$@"
