#!/usr/bin/env python3
"""Check a generated perf corpus (no GPU needed).

    python3 testdata/perf/gen/check.py [--root testdata/perf] [--json FILE]

- every case's spec is valid (runspec.validate_spec, input files present);
- every variant that ran ok has its expected outputs (.bin of the right
  size, or .sha256 with the right byte count);
- every ncu row (ncu/*.launches.json) maps to a case, and every case that
  ran ok has its row in the set it belongs to;
- the calibration launches' sm__cycles_elapsed.max (ncu/calib.O3.csv),
  their repeats (ncu/repeat.O3.csv) and CUDA-event times (timing/events.json):
  a table, with the launches under 30,000 cycles marked.
Exits 1 when a check fails (a launch under 30,000 cycles is reported, not a failure).
"""

import argparse
import csv
import gzip
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "..", "nvcc", "gen")))
import runspec  # noqa: E402

MIN_CYCLES = 30000


def open_text(path):
    """A text file or its .gz."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rt", newline="")
    return open(path, newline="")


def exists(path):
    return os.path.exists(path) or os.path.exists(path + ".gz")


def read_csv(path):
    """(header, units, {launch index: row dict}) of an ncu CSV written by gen.py
    (path.csv or path.csv.gz)."""
    with open_text(path) as f:
        rows = list(csv.reader(f))
    if not rows:
        return [], [], {}
    hdr, body = rows[0], rows[1:]
    units = []
    if body and body[0] and body[0][0] == "":
        units, body = body[0], body[1:]
    return hdr, units, {int(r[0]): dict(zip(hdr, r)) for r in body if r and r[0].isdigit()}


def num(s):
    try:
        return float(str(s).replace(",", ""))
    except (TypeError, ValueError):
        return None


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(HERE))
    ap.add_argument("--json", help="write the calibration table here")
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    man = json.load(open(os.path.join(root, "manifest.json")))
    problems, nspec, nout = [], 0, 0
    for e in man["cases"]:
        for v in e["variants"]:
            sp = os.path.join(root, e["spec"][v])
            if not os.path.isfile(sp):
                problems.append(f"{e['name']} [{v}]: no spec")
                continue
            spec = runspec.load_spec(sp)
            nspec += 1
            for p in runspec.validate_spec(spec, os.path.dirname(sp), check_files=True):
                problems.append(f"{e['name']} [{v}]: {p}")
            if e["status"].get(v) != "ok":
                continue
            exp = os.path.join(os.path.dirname(sp), "expected")
            for o in spec["outputs"]:
                b = next(x for x in spec["buffers"] if x["name"] == o)
                size = b["count"] * runspec.SIZES[b["type"]]
                bp, hp = os.path.join(exp, o + ".bin"), os.path.join(exp, o + ".sha256")
                if os.path.isfile(bp):
                    if os.path.getsize(bp) != size:
                        problems.append(f"{e['name']} [{v}]: {o}.bin has {os.path.getsize(bp)} bytes, want {size}")
                elif os.path.isfile(hp):
                    w = open(hp).read().split()
                    if len(w) < 1 or len(w[0]) != 64 or (len(w) > 1 and int(w[1]) != size):
                        problems.append(f"{e['name']} [{v}]: {o}.sha256 malformed or wrong size")
                else:
                    problems.append(f"{e['name']} [{v}]: no expected output {o}")
                nout += 1
    # ncu rows
    ncu_dir = os.path.join(root, "ncu")
    mapped = {}
    for fn in sorted(os.listdir(ncu_dir)) if os.path.isdir(ncu_dir) else []:
        if not fn.endswith(".launches.json"):
            continue
        name = fn[:-len(".launches.json")]
        launches = json.load(open(os.path.join(ncu_dir, fn)))
        csvp = os.path.join(ncu_dir, name + ".csv")
        rows = read_csv(csvp)[2] if exists(csvp) else {}
        for x in launches:
            if not x.get("case"):
                problems.append(f"ncu/{name}: row {x['launch']} ({x.get('kernel')}) maps to no case")
            if x["launch"] not in rows:
                problems.append(f"ncu/{name}: launch {x['launch']} has no CSV row")
        mapped[name] = sum(1 for x in launches if x.get("case"))
    missing = [(e["name"], v) for e in man["cases"] for v in e["variants"]
               if e["status"].get(v) == "ok" and v not in e.get("ncu", {})]
    # calibration table
    table = []
    calib = [e for e in man["cases"] if e["group"] == "calib"]
    cpath = os.path.join(ncu_dir, "calib.O3.csv")
    rows = read_csv(cpath)[2] if exists(cpath) else {}
    rpath = os.path.join(ncu_dir, "repeat.O3.csv")
    rrows = read_csv(rpath)[2] if exists(rpath) else {}
    ev = {}
    ep = os.path.join(root, "timing", "events.json")
    if os.path.exists(ep):
        for s in json.load(open(ep)).get("specs", []):
            ev[s["spec"]] = s
    for e in calib:
        n = e.get("ncu", {}).get("O3")
        r = rows.get(n["launch"]) if n else None
        cyc = num(r.get("sm__cycles_elapsed.max")) if r else None
        reps = [num(rrows[i].get("sm__cycles_elapsed.max")) for i in e.get("ncu_repeat", {}).get("O3", [])
                if i in rrows]
        reps = [x for x in reps if x is not None]
        t = ev.get(e["spec"]["O3"])
        table.append({"case": e["name"], "kind": e["kind"], "cycles": cyc,
                      "time_ns": num(r.get("gpu__time_duration.sum")) if r else None,
                      "repeat_cycles": reps,
                      "repeat_spread_pct": round(100 * (max(reps) - min(reps)) / statistics.mean(reps), 2)
                      if len(reps) > 1 else None,
                      "event_median_ms": t["median_ms"] if t else None,
                      "event_spread_pct": round(100 * (t["max_ms"] - t["min_ms"]) / t["median_ms"], 2)
                      if t and t["median_ms"] else None,
                      "ge_30000": cyc is not None and cyc >= MIN_CYCLES})
    print(f"specs {nspec}, expected outputs {nout}, ncu rows mapped: "
          + ", ".join(f"{k} {v}" for k, v in mapped.items()))
    print(f"\n{'calibration launch':28} {'cycles':>10} {'time us':>9} {'repeats (cycles)':>30} {'spread%':>7} "
          f"{'event ms':>9} {'spread%':>7}")
    for t in table:
        rc = "/".join(f"{x:.0f}" for x in t["repeat_cycles"])
        print(f"{t['case']:28} {t['cycles'] if t['cycles'] is not None else '-':>10} "
              f"{(t['time_ns'] or 0) / 1000:9.1f} {rc:>30} {t['repeat_spread_pct'] or '-':>7} "
              f"{t['event_median_ms'] or '-':>9} {t['event_spread_pct'] or '-':>7}"
              + ("" if t["ge_30000"] else "   < 30000"))
    n_ok = sum(1 for t in table if t["ge_30000"])
    print(f"\n{n_ok} of {len(table)} calibration launches have sm__cycles_elapsed.max >= {MIN_CYCLES}")
    if missing:
        print(f"{len(missing)} launches ran but have no ncu row: "
              + ", ".join(f"{c}[{v}]" for c, v in missing[:30]) + (" ..." if len(missing) > 30 else ""))
    for p in problems[:50]:
        print("PROBLEM", p)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"calibration": table, "problems": problems, "missing_ncu": missing}, f, indent=1)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
