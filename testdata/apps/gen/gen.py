#!/usr/bin/env python3
"""Build the application-style corpus (testdata/apps) on a GPU machine.

    python3 testdata/apps/gen/gen.py --out testdata/apps --tar $OUT/apps.tgz

The pipeline is testdata/nvcc/gen/gen.py's (compile, ptxas -v, SASS, specs,
runs, Nsight Compute, manifest, tarball), pointed at this directory's case
list (app_cases.py) and kernels, with four builds per module:

  O3     -O3 -lineinfo
  G      -G
  fast   -O3 -lineinfo --use_fast_math
  nofma  -O3 -lineinfo -fmad=false

(all nvcc -ptx -arch=sm_90 -std=c++17). Every flag of the nvcc generator
works here (--dry-run, --compile-only, --only, --no-ncu, --ncu-only,
--ncu-variants, --budget, ...). See README.md.
"""

import importlib.util
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
NVCC_GEN = os.path.join(os.path.dirname(os.path.dirname(HERE)), "nvcc", "gen")
sys.path.insert(0, NVCC_GEN)

import gen as pipeline  # noqa: E402  (testdata/nvcc/gen/gen.py)

VARIANTS = {
    "O3": ["-O3", "-lineinfo"],
    "G": ["-G"],
    "fast": ["-O3", "-lineinfo", "--use_fast_math"],
    "nofma": ["-O3", "-lineinfo", "-fmad=false"],
}


def load_cases():
    spec = importlib.util.spec_from_file_location("app_cases", os.path.join(HERE, "app_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["app_cases"] = mod
    spec.loader.exec_module(mod)
    return mod


def configure():
    cases = load_cases()
    pipeline.configure("apps", cases, os.path.join(HERE, "kernels"), VARIANTS, os.path.dirname(HERE),
                       sass_gzip=True)
    return cases


if __name__ == "__main__":
    configure()
    sys.exit(pipeline.main())
