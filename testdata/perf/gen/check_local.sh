#!/usr/bin/env bash
# Checks the perf generator without a GPU: the case list, the parsers, a dry
# run validated spec by spec and, when nvcc is on PATH, the microbenchmarks'
# SASS and the whole pipeline with stand-ins for ncu and CuPy (test_gen.py).
set -euo pipefail
cd "$(dirname "$0")"
exec "${PYTHON:-python3}" -B test_gen.py "$@"
