#!/usr/bin/env bash
# Checks the public-code corpus generator without a GPU (see test_public.py):
# the recipe and wrappers, a dry run validated spec by spec, runspec's CuPy
# backend through a stand-in, and, with nvcc on PATH and src/ fetched
# (fetch.py), a compile-only run and the pipeline with fakes.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
exec "$PY" -B test_public.py "$@"
