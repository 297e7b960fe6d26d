#!/usr/bin/env python3
"""Build the tensor-core and async-copy corpus (testdata/tensor2) on a GPU
machine:

    python3 testdata/tensor/gen/gen.py --out testdata/tensor2 --tar $OUT/tensor2.tgz

The pipeline is testdata/nvcc/gen/gen.py's (compile, ptxas -v, SASS, specs,
runs, Nsight Compute, manifest, tarball), pointed at this directory's case
list (tensor2_cases.py) and kernels/tensor2.cu, with two builds:

  O3  -O3 -lineinfo
  G   -G

(both nvcc -ptx -arch=sm_90 -std=c++17). Every flag of the nvcc generator
works here (--dry-run, --compile-only, --only, --no-ncu, --budget, ...).
See README.md.
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
}


def configure():
    spec = importlib.util.spec_from_file_location("tensor2_cases", os.path.join(HERE, "tensor2_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tensor2_cases"] = mod
    spec.loader.exec_module(mod)
    pipeline.configure("tensor2", mod, os.path.join(HERE, "kernels"), VARIANTS, os.path.dirname(HERE),
                       sass_gzip=True)
    return mod


if __name__ == "__main__":
    configure()
    sys.exit(pipeline.main())
