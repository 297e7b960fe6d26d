#!/usr/bin/env python3
"""Checks of the perf generator without a GPU (run by check_local.sh).

1. A dry run: every spec of every case is written and valid.
2. The case list: unique names, the calibration pairs name existing cases,
   every buffer's fill or data is well-formed for its type.
3. Parsers: SASS opcode counts, rejected-metric detection.
4. If nvcc is on PATH: the whole pipeline on a subset of cases with the
   stand-in ncu (test/ncu) and runspec's CuPy stand-in (RUNSPEC_FAKE=1),
   then check.py on the result: every ncu row maps to its launch.
5. If nvcc is on PATH: micro/micro.cu compiles, and every benchmark kernel's
   loop holds the instruction it measures (nothing folded away by ptxas).
6. If nvcc is on PATH: --only on the corpus step 4 left merges into it
   (one new case, one case again): the other cases, their ncu rows and
   their references stay, the re-run case's rows are replaced, not added.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import perfcases as C  # noqa: E402
import runspec  # noqa: E402

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL", msg)


def test_cases():
    names = [c.name for c in C.CASES]
    check(len(names) == len(set(names)), "duplicate case names")
    for pair, (a, b) in C.PAIRS.items():
        check(a in names and b in names, f"pair {pair} names a missing case")
    calib = [c for c in C.CASES if c.group == "calib"]
    check(len([c for c in calib if "O3" in c.variants]) >= 24, "fewer than 24 calibration launches")
    for c in C.CASES:
        for b in c.buffers + c.symbols:
            if b.fill is not None:
                check(not runspec.fill_problems(b.fill, b.type), f"{c.name}.{b.name}: bad fill")
        for o in c.outputs:
            check(any(b.name == o for b in c.buffers), f"{c.name}: output {o} is not a buffer")


def test_dry_run(tmp):
    out = os.path.join(tmp, "dry")
    rc = gen.main(["--dry-run", "--out", out])
    check(rc == 0, "dry run failed")
    man = json.load(open(os.path.join(out, "manifest.json")))
    check(len(man["cases"]) == len(C.CASES), "manifest lists every case")
    for e in man["cases"]:
        for v in e["variants"]:
            check(e["status"][v] == "dry-run", f"{e['name']} [{v}]: {e['status'][v]}")
            sp = os.path.join(out, e["spec"][v])
            probs = runspec.validate_spec(runspec.load_spec(sp), os.path.dirname(sp))
            check(not probs, f"{e['name']} [{v}]: {probs}")


def test_parsers():
    sass = """
        Function : _Z8lat_ffmajPyPfff
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   FFMA R2, R2, R3, R4 ;
        /*0020*/               @P0 FFMA R2, R2, R3, R4 ;
        /*0030*/              @!UP1 BRA 0x10 ;
        Function : other
        /*0000*/                   EXIT ;
"""
    c = gen.sass_opcode_counts(sass)
    check(c.get("_Z8lat_ffmajPyPfff") == {"LDC": 1, "FFMA": 2, "BRA": 1}, f"sass counts {c}")
    check(c.get("other") == {"EXIT": 1}, f"sass counts {c}")
    ms = ["l1tex__f_wavefronts.sum", "dram__bytes_read.sum", "sm__cycles_elapsed.max"]
    text = "==ERROR== Failed to find metric regex:^l1tex__f_wavefronts\\.sum$\n==PROF== ok dram__bytes_read.sum"
    check(gen.bad_metrics(text, ms) == {"l1tex__f_wavefronts.sum"}, f"bad_metrics {gen.bad_metrics(text, ms)}")
    text = "==ERROR== metric sm__cycles_elapsed not found"
    check(gen.bad_metrics(text, ms) == {"sm__cycles_elapsed.max"}, "bad_metrics by base name")


SUBSET = ("copy_u32_stride1,copy_v4_offset_i1_o0,smem_ld_b64_pairs,tex_rows_point,const_uniform,"
          "l1_ws_32KiB_smem160KiB,local_spill,matmul_naive_256,transpose_padded_1024,reduce_shfl_32M,"
          "bcast_const,hist_global_16bins")


def test_pipeline(tmp):
    out = os.path.join(tmp, "fake")
    env = dict(os.environ, RUNSPEC_FAKE="1", PATH=os.path.join(HERE, "test") + os.pathsep + os.environ["PATH"],
               PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), "--out", out, "--only", SUBSET,
                        "--skip", "micro", "--jobs", "2", "--budget", "900"],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0, "fake pipeline exit " + str(p.returncode) + ": " + p.stdout[-1500:])
    man = json.load(open(os.path.join(out, "manifest.json")))
    for e in man["cases"]:
        for v in e["variants"]:
            check(e["status"][v] == "ok", f"{e['name']} [{v}]: {e['status'][v]}")
            check(v in e.get("ncu", {}), f"{e['name']} [{v}]: no ncu row")
        if e["group"] == "calib":
            check(len(e.get("ncu_repeat", {}).get("O3", [])) == 3, f"{e['name']}: repeats")
    check(not man.get("phase_errors"), f"phase errors: {man.get('phase_errors')}")
    p = subprocess.run([sys.executable, os.path.join(HERE, "check.py"), "--root", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0, "check.py: " + p.stdout[-1500:])


def test_merge(tmp):
    out = os.path.join(tmp, "fake")
    if not os.path.exists(os.path.join(out, "manifest.json")):
        check(False, "merge: no corpus from the pipeline test")
        return
    before = json.load(open(os.path.join(out, "manifest.json")))
    n_calib = len(json.load(open(os.path.join(out, "ncu", "calib.O3.launches.json"))))
    env = dict(os.environ, RUNSPEC_FAKE="1", PATH=os.path.join(HERE, "test") + os.pathsep + os.environ["PATH"],
               PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), "--out", out, "--only",
                        "reduce_warpatomic_1M,matmul_naive_256", "--jobs", "2", "--budget", "900",
                        "--tar", os.path.join(tmp, "only.tgz")],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0, "merge run exit " + str(p.returncode) + ": " + p.stdout[-1500:])
    man = json.load(open(os.path.join(out, "manifest.json")))
    names = [e["name"] for e in man["cases"]]
    want = [e["name"] for e in before["cases"]] + ["reduce_warpatomic_1M"]
    check(sorted(names) == sorted(want), f"merge: cases {names}")
    check(len(names) == len(set(names)), "merge: a case twice")
    check(man.get("only_runs") and man["only_runs"][-1]["cases"] == ["matmul_naive_256", "reduce_warpatomic_1M"],
          "merge: only_runs")
    launches = json.load(open(os.path.join(out, "ncu", "calib.O3.launches.json")))
    check(len(launches) == n_calib + 1, f"merge: calib.O3 has {len(launches)} launches, want {n_calib + 1}")
    by_row = {x["launch"]: x for x in launches}
    for e in man["cases"]:
        for v, n in e.get("ncu", {}).items():
            if "calib.O3" in n["csv"]:
                x = by_row.get(n["launch"])
                check(x is not None and x["case"] == e["name"], f"merge: {e['name']} [{v}] points at row "
                      f"{n['launch']} ({x and x['case']})")
    import tarfile
    with tarfile.open(os.path.join(tmp, "only.tgz")) as tf:
        cases = {m.name.split("/")[2] for m in tf.getmembers() if m.name.count("/") >= 2
                 and m.name.split("/")[1] == "cases"}
    check(cases == {"reduce_warpatomic_1M", "matmul_naive_256"}, f"merge: the tarball's cases {cases}")
    p = subprocess.run([sys.executable, os.path.join(HERE, "check.py"), "--root", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0, "check.py after the merge: " + p.stdout[-1500:])


def test_micro(tmp):
    exe = os.path.join(tmp, "micro")
    p = subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-std=c++17", os.path.join(HERE, "micro", "micro.cu"),
                        "-o", exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0, "micro.cu does not compile: " + p.stdout[-1000:])
    if p.returncode:
        return
    sass = subprocess.run(["cuobjdump", "-sass", exe], stdout=subprocess.PIPE, text=True).stdout
    counts = gen.sass_opcode_counts(sass)

    def fn(name):
        pre = f"_Z{len(name)}{name}"
        return next((c for f, c in counts.items() if f.startswith(pre)), {})

    want = {"ffma": "FFMA", "fadd": "FADD", "fmul": "FMUL", "imad": "IMAD", "dfma": "DFMA", "dadd": "DADD",
            "sin": "MUFU.SIN", "ex2": "MUFU.EX2", "rcp": "MUFU.RCP", "rsqrt": "MUFU.RSQ", "lg2": "MUFU.LG2",
            "sqrt_approx": "MUFU.SQRT", "shfl_bfly": "SHFL.BFLY", "shfl_idx": "SHFL.IDX", "popc": "POPC"}
    for k, op in want.items():
        for kind, n in (("lat", 32), ("thr", 64)):
            got = fn(f"{kind}_{k}").get(op, 0)
            # thr_fadd/thr_dadd: 15 more adds outside the loop (starts, final sum)
            slack = 16 if (kind, op) in (("thr", "FADD"), ("thr", "DADD")) else 2
            check(n <= got <= n + slack, f"{kind}_{k}: {got} {op}, want {n}")
    check(fn("lat_atoms").get("ATOMS.ADD", 0) == 32, "lat_atoms")
    check(sum(v for k, v in fn("lat_iadd").items() if k in ("IADD3", "IMAD.IADD")) >= 32, "lat_iadd")


def main():
    tmp = tempfile.mkdtemp(prefix="perf.test.")
    try:
        test_cases()
        test_parsers()
        test_dry_run(tmp)
        if shutil.which("nvcc") and "--quick" not in sys.argv:
            test_micro(tmp)
            test_pipeline(tmp)
            test_merge(tmp)
        else:
            print("nvcc not on PATH (or --quick): pipeline and micro checks skipped")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'FAILED' if FAILS else 'ok'}: {len(FAILS)} failure(s)")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
