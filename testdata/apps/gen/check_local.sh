#!/usr/bin/env bash
# Checks the application corpus generator without a GPU (see test_apps.py).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
exec "$PY" -B test_apps.py "$@"
