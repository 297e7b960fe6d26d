#!/usr/bin/env bash
# Checks the generator without a GPU: a dry run validated spec by spec, the
# batch runner's crash/hang recovery (with a CuPy stand-in), the PTX helpers,
# and, when nvcc is on PATH, a compile-only run that resolves every kernel.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
exec "$PY" -B test_gen.py "$@"
