#!/usr/bin/env python3
"""CUDA-event timings of launch specs (no profiler): the GPU's own run-to-run spread.

    python3 timing.py --list FILE --reps 10 --out events.json [--root DIR] [--budget S]

For each spec: buffers, symbols and textures set up as runspec.py does, one
untimed warm-up launch, then `reps` launches, each between two CUDA events
on the same stream (the caches stay warm between them: unlike ncu's replays,
nothing is flushed). Launches of kernels that accumulate (histograms) keep
accumulating; only the time is recorded. Writes {"specs": [{"spec", "kernel",
"ms": [...], "median_ms", "min_ms", "max_ms"}], ...}.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "..", "nvcc", "gen")))
import runspec  # noqa: E402


class Timer(runspec._Backend):
    def time_spec(self, spec_path, reps):
        np = self.np
        spec = runspec.load_spec(spec_path)
        spec_dir = os.path.dirname(os.path.abspath(spec_path))
        problems = runspec.validate_spec(spec, spec_dir)
        if problems:
            raise runspec.SpecError("; ".join(problems))
        module_path = os.path.abspath(os.path.join(spec_dir, spec["module"]))
        kern = self.kernel(module_path, spec["kernel"])
        hosts, ptrs, keep = {}, {}, []
        for b in spec["buffers"]:
            host = runspec._read_array(spec_dir, b)
            hosts[b["name"]] = host
            ptrs[b["name"]] = self.alloc(host)
        mod = self.module(module_path)
        for s in spec.get("symbols", []) or []:
            host = runspec._read_array(spec_dir, s)
            mod.get_global(s["name"]).copy_from_host(host.ctypes.data, host.nbytes)
        texobjs = {}
        for t in spec.get("textures", []) or []:
            obj, k = self.texture(t, hosts[t["buffer"]], ptrs[t["buffer"]])
            texobjs[t["name"]] = obj
            keep.extend(k)
        args = []
        for a in spec["args"]:
            (k, v), = a.items()
            if k == "buffer":
                args.append(np.array([ptrs[v].ptr], dtype=np.uint64))
            elif k == "texture":
                args.append(np.array([texobjs[v].ptr], dtype=np.uint64))
            else:
                args.append(np.array([v], dtype=np.dtype(runspec.DTYPES[k])))
        dsm = spec.get("dynamic_shared_bytes", 0)
        if dsm > 48 * 1024:
            kern.max_dynamic_shared_size_bytes = dsm
        grid = tuple(spec["grid"]) + (1,) * (3 - len(spec["grid"]))
        block = tuple(spec["block"]) + (1,) * (3 - len(spec["block"]))
        cp = self.cupy
        self.rt.deviceSynchronize()
        kern(grid, block, tuple(args), shared_mem=dsm)
        self.rt.deviceSynchronize()
        ms = []
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(reps):
            e0.record()
            kern(grid, block, tuple(args), shared_mem=dsm)
            e1.record()
            e1.synchronize()
            ms.append(cp.cuda.get_elapsed_time(e0, e1))
        del keep, texobjs, ptrs, args
        cp.get_default_memory_pool().free_all_blocks()
        return spec["kernel"], ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", required=True)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--out", required=True)
    ap.add_argument("--root", default=None, help="spec paths in the output are relative to this")
    ap.add_argument("--budget", type=float, default=1e9, help="stop starting new specs after this many seconds")
    args = ap.parse_args()
    t0 = time.time()
    paths = [ln.strip() for ln in open(args.list) if ln.strip()]
    out = {"what": "CUDA-event time of one launch, caches warm (no flush), one warm-up launch first",
           "reps": args.reps, "specs": [], "errors": []}
    try:
        timer = Timer()
    except Exception as e:
        out["errors"].append({"spec": None, "error": f"no CUDA: {type(e).__name__}: {e}"[:400]})
        paths = []
    for p in paths:
        name = os.path.relpath(p, args.root) if args.root else p
        if time.time() - t0 > args.budget:
            out["errors"].append({"spec": name, "error": "not run: time budget spent"})
            continue
        try:
            kernel, ms = timer.time_spec(p, args.reps)
            s = sorted(ms)
            out["specs"].append({"spec": name, "kernel": kernel, "ms": [round(x, 6) for x in ms],
                                 "median_ms": round(s[len(s) // 2], 6), "min_ms": round(s[0], 6),
                                 "max_ms": round(s[-1], 6)})
            print(f"ok   {name}: median {s[len(s) // 2]:.4f} ms", flush=True)
        except Exception as e:  # one bad spec must not stop the rest
            out["errors"].append({"spec": name, "error": f"{type(e).__name__}: {e}"[:400]})
            print(f"FAIL {name}: {e}", flush=True)
            if runspec._is_sticky(e):
                break
    out["elapsed_s"] = round(time.time() - t0, 1)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
