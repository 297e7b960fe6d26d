#!/usr/bin/env python3
"""Run every public case through ptxvm here and record what it costs.

    go build -o /tmp/ptxrun ./cmd/ptxrun
    python3 testdata/public/gen/gen.py --out testdata/public --compile-only   # needs nvcc (11.8 is enough)
    python3 testdata/public/gen/measure_local.py --ptxrun /tmp/ptxrun [--only a,b] [--timeout 900]

For each case (testdata/public/cases/<case>/O3/spec.json, PTX from the local
nvcc) it runs `ptxrun run SPEC --mode timing` and records the host seconds,
exit status, PTX warp instructions, blocks per SM and the grid's waves
(blocks / (132 x blocks per SM)) in gen/ptxvm_local.json, which gen.py
copies into manifest.json and README.md's table quotes. The
timing run computes the outputs too, so exit 0 also means the functional
run is good (no unsupported instruction, no fault). It never compares
outputs: the GPU's come from the recording. The model's cycle counts are
deliberately not recorded: this corpus judges the timing model and is not
for tuning it.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "ptxvm_local.json")
SMS = 132


def parse(text):
    r = {}
    for key, pat in (("warp_inst", r"PTX warp instructions\s+(\d+)"),
                     ("blocks_per_sm", r"\((\d+) blocks per SM\)")):
        m = re.search(pat, text, re.M)
        if m:
            r[key] = float(m.group(1)) if "." in m.group(1) else int(m.group(1))
    return r


def human(n):
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k:
            return f"{n / k:.3g} {unit}"
    return f"{n} B"


def short_kernel(k):
    """A mangled name's function name (with <...> for a template)."""
    m = re.match(r"_Z(\d+)", k)
    if not m:
        return k
    n, rest = int(m.group(1)), k[m.end():]
    return rest[:n] + ("<...>" if rest[n:n + 1] == "I" else "")


def dims(d):
    d = list(d)
    while len(d) > 1 and d[-1] == 1:
        d.pop()
    return "x".join(str(x) for x in d)


def table(pc):
    """The README's case table (markdown) from the case list and ptxvm_local.json."""
    local = {}
    if os.path.isfile(OUT):
        with open(OUT) as f:
            local = json.load(f).get("cases", {})
    print("| # | case | family | kernel | size | working set | grid x block | waves | ptxvm timing s | ok |")
    print("| ---: | --- | --- | --- | --- | ---: | --- | ---: | ---: | --- |")
    tot = 0.0
    for i, c in enumerate(pc.CASES, 1):
        r = local.get(c.name, {})
        k = short_kernel(c.kernel)
        g, b = dims(c.grid), dims(c.block)
        tot += r.get("host_s", 0)
        ok = "yes" if r.get("rc") == 0 else ("-" if not r else f"no ({r.get('rc')})")
        print(f"| {i} | {c.name} | {c.family} | `{k}` | {c.size} | {human(c.working_set)} | {g} x {b} | "
              f"{r.get('waves', '')} | {r.get('host_s', '')} | {ok} |")
    print(f"\n{len(pc.CASES)} launches; ptxvm timing mode {tot:.0f} s in all ({tot / 60:.1f} min).")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptxrun", default="ptxrun")
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--machine", default="", help="a note on the host (cores, CPU)")
    ap.add_argument("--table", action="store_true", help="print README.md's case table and exit")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.join(os.path.dirname(ROOT), "nvcc", "gen"))
    import importlib.util
    spec = importlib.util.spec_from_file_location("public_cases", os.path.join(HERE, "public_cases.py"))
    pc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pc)
    if args.table:
        return table(pc)
    names = [c.name for c in pc.CASES]
    if args.only:
        names = [n for n in args.only.split(",") if n]
    res = {}
    if os.path.isfile(OUT):
        with open(OUT) as f:
            res = json.load(f)
    res.setdefault("cases", {})
    res["machine"] = args.machine or res.get("machine", "")
    res["cpus"] = os.cpu_count()
    byname = {c.name: c for c in pc.CASES}
    for n in names:
        c = byname[n]
        sp = os.path.join(ROOT, "cases", n, "O3", "spec.json")
        t = time.time()
        try:
            p = subprocess.run([args.ptxrun, "run", sp, "--mode", "timing"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=args.timeout)
            rc, text = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            rc, text = 124, (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        dt = time.time() - t
        r = {"host_s": round(dt, 1), "rc": rc}
        r.update(parse(text))
        blocks = c.grid[0] * c.grid[1] * c.grid[2]
        r["blocks"] = blocks
        if r.get("blocks_per_sm"):
            r["waves"] = round(blocks / (SMS * r["blocks_per_sm"]), 2)
        if rc != 0:
            r["error"] = " ".join(text.split())[-400:]
        res["cases"][n] = r
        print(f"{n:40} rc={rc} {dt:7.1f}s inst={r.get('warp_inst')} "
              f"waves={r.get('waves')}" + (f"  {r.get('error', '')[:200]}" if rc else ""), flush=True)
        with open(OUT, "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
            f.write("\n")
    tot = sum(v["host_s"] for k, v in res["cases"].items() if k in byname)
    print(f"total {tot:.0f} s over {sum(1 for k in res['cases'] if k in byname)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
