#!/usr/bin/env python3
"""Build the public-code corpus (testdata/public) on a GPU machine.

    python3 testdata/public/gen/gen.py --out testdata/public --tar $OUT/public.tgz --budget 420

Kernels from public CUDA projects (recipe.json; fetched into
testdata/public/src/ by fetch.py, never committed), compiled through our thin
wrappers (kernels/*.cu, which only #include the fetched files and add
template instantiations or macros), one build:

  O3     -O3 -lineinfo        (nvcc -ptx -arch=sm_90 -std=c++17)

The pipeline is testdata/nvcc/gen/gen.py's (compile, ptxas -v, SASS, specs,
runs on the GPU, Nsight Compute, manifest, tarball) with this case list
(public_cases.py, in priority order: Nsight Compute profiles the cases in
that order, so a cut budget loses the last ones) and the TIMING metric set of
testdata/perf/gen/metrics.py. After the pipeline, this script adds to
manifest.json what the public corpus needs (each case's family, size notes
and pairs, the projects and commits), compresses ncu/O3.csv to
ncu/O3.csv.gz and writes the tarball (--tar) itself.

Every flag of the nvcc generator works here (--dry-run, --compile-only,
--only, --no-ncu, --ncu-only, --budget, --spec-timeout, ...). See README.md.
"""

import gzip
import importlib.util
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(os.path.dirname(HERE))
NVCC_GEN = os.path.join(TESTDATA, "nvcc", "gen")
PERF_METRICS = os.path.join(TESTDATA, "perf", "gen", "metrics.py")
sys.path.insert(0, NVCC_GEN)

import gen as pipeline  # noqa: E402  (testdata/nvcc/gen/gen.py)

VARIANTS = {"O3": ["-O3", "-lineinfo"]}
# Instanced metrics (sass__inst_executed_per_opcode) need their instance values.
NCU_EXTRA_FLAGS = ["--print-metric-instances", "values"]


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def load_cases():
    return _load("public_cases", os.path.join(HERE, "public_cases.py"))


def timing_metrics():
    """The TIMING list of testdata/perf/gen/metrics.py."""
    return list(_load("perf_metrics", PERF_METRICS).TIMING)


def configure():
    cases = load_cases()
    pipeline.configure("public", cases, os.path.join(HERE, "kernels"), VARIANTS, os.path.dirname(HERE),
                       sass_gzip=True, ncu_metrics=timing_metrics(), ncu_extra_flags=NCU_EXTRA_FLAGS)
    return cases


def split_tar(argv):
    """Take --tar PATH out of argv (this script writes the tarball itself)."""
    out, tar, i = [], None, 0
    while i < len(argv):
        a = argv[i]
        if a == "--tar" and i + 1 < len(argv):
            tar = argv[i + 1]
            i += 2
            continue
        if a.startswith("--tar="):
            tar = a.split("=", 1)[1]
        else:
            out.append(a)
        i += 1
    return out, tar


def out_dir(argv):
    for i, a in enumerate(argv):
        if a == "--out" and i + 1 < len(argv):
            return os.path.abspath(argv[i + 1])
        if a.startswith("--out="):
            return os.path.abspath(a.split("=", 1)[1])
    return os.path.abspath(pipeline.DEFAULT_OUT)


def gzip_ncu(out):
    """ncu/<variant>.csv -> ncu/<variant>.csv.gz (deterministic gzip), the
    plain one removed (the Go reader would read both)."""
    d = os.path.join(out, "ncu")
    if not os.path.isdir(d):
        return
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".csv"):
            continue
        src = os.path.join(d, fn)
        with open(src, "rb") as f, open(src + ".gz", "wb") as raw:
            with gzip.GzipFile(filename=fn, mode="wb", fileobj=raw, mtime=0, compresslevel=9) as z:
                shutil.copyfileobj(f, z)
        os.remove(src)


def annotate(out, cases):
    """Add the public corpus's fields to manifest.json."""
    path = os.path.join(out, "manifest.json")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        m = json.load(f)
    with open(os.path.join(HERE, "recipe.json")) as f:
        recipe = json.load(f)
    m["projects"] = {p["name"]: {"repo": p["repo"], "url": p["url"], "commit": p["commit"],
                                 "license": p["license"], "files": len(p["files"])}
                     for p in recipe["projects"]}
    m["held_out_note"] = cases.HELD_OUT_NOTE
    m["pairs"] = {k: list(v) for k, v in cases.PAIRS.items()}
    m["ncu_metric_set"] = "TIMING (testdata/perf/gen/metrics.py)"
    local = {}
    lp = os.path.join(HERE, "ptxvm_local.json")
    if os.path.isfile(lp):
        with open(lp) as f:
            lj = json.load(f)
        local = lj.get("cases", {})
        m["ptxvm_local_machine"] = {"machine": lj.get("machine", ""), "cpus": lj.get("cpus"),
                                    "file": "gen/ptxvm_local.json"}
    by = {c.name: c for c in cases.CASES}
    for e in m["cases"]:
        c = by.get(e["name"])
        if c is None:
            continue
        e["family"] = c.family
        e["project"] = c.project
        e["source"] = c.source
        e["priority"] = c.prio
        e["size"] = c.size
        e["size_class"] = c.size_class
        e["working_set_bytes"] = c.working_set
        e["blocks"] = c.grid[0] * c.grid[1] * c.grid[2]
        lc = local.get(c.name)
        if lc:
            e["waves"] = lc.get("waves")
            e["ptxvm_local"] = {k: lc[k] for k in ("host_s", "rc", "warp_inst", "blocks_per_sm")
                                if k in lc}
        if c.note:
            e["note"] = c.note
    pipeline.write_json(path, m)
    return m


def check_src():
    """Problems with testdata/public/src as the recipe's copy (fetch.py --check)."""
    fetch = _load("public_fetch", os.path.join(HERE, "fetch.py"))
    return fetch.check(os.path.join(os.path.dirname(HERE), "src"), fetch.load_recipe())


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    cases = configure()
    rest, tar = split_tar(argv)
    if not ({"--dry-run", "--ncu-only", "-h", "--help"} & set(rest)):
        problems = check_src()
        if problems:
            pipeline.log("testdata/public/src is not the recipe's copy of the public sources:")
            for p in problems[:10]:
                pipeline.log("  " + p)
            pipeline.log("run: python3 testdata/public/gen/fetch.py [--mirror DIR]  (then carry testdata/public/src)")
            return 2
    rc = pipeline.main(rest)
    out = out_dir(rest)
    if rc == 0 and "-h" not in rest and "--help" not in rest:
        gzip_ncu(out)
        m = annotate(out, cases)
        if tar:
            size = pipeline.make_tar(out, tar, exclude=("src",))
            if size > pipeline.TAR_LIMIT:
                pipeline.log(f"  {size / 2**20:.2f} MiB is over 16 MiB: leaving out sass/")
                size = pipeline.make_tar(out, tar, exclude=("src", "sass"))
            pipeline.log(f"  {tar}: {size} bytes ({size / 2**20:.2f} MiB)")
        if m is not None:
            ok = sum(1 for e in m["cases"] if e["status"].get("O3") == "ok")
            prof = sum(1 for e in m["cases"] if "O3" in e.get("ncu", {}))
            pipeline.log(f"public: {len(m['cases'])} cases, {ok} ran ok, {prof} profiled")
    return rc


if __name__ == "__main__":
    sys.exit(main())
