#!/usr/bin/python3
"""make_cases_wgfp8.py RESULTS INPUTS: turn the fp8/.b1 wgmma recording
(run_wgfp8.sh's output folder RESULTS; INPUTS: the inputs/ folder
gen_wgfp8.py wrote and the request carried) into ptxvm test cases under
testdata/tma, as make_cases.py does for the other recordings:

  ptx/wgx_<g>.O3.ptx, sass/wgx_<g>.O3.sass.gz
  inputs/<case>.{img,afrag,cin}.bin   the first KEEP blocks of each case
  cases/<case>/O3/spec.json, expected/dout.{bin,sha256}
  log/rec4/                           the run's logs and clock64 figures

Each block is independent (its own shared-memory image, fragments and
accumulators), so a case keeps its first blocks: one of each data kind
where that is few enough (KEEP)."""
import gzip
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KEEP = {"x_e4m3_f32": 16, "x_e5m2_f32": 16, "x_e4m3e5m2_f32": 8, "x_e5m2e4m3_f32_nb": 8,
        "x_e4m3_f16": 18, "x_e5m2_f16": 18, "x_e4m3e5m2_f16": 9, "x_e4m3_f32_rs_na": 4, "x_e5m2_f16_rs": 4,
        "x_e4m3_f32_n256": 2, "x_e5m2_f16_n8": 2, "x_e5m2e4m3_f32_n24": 2, "x_e4m3_f32_k4": 6,
        "x_e5m2_f16_k4": 4, "x_e4m3_f32_sw128": 3, "x_b1_n16": 2, "x_b1_n16_rs": 2, "x_b1_n256": 1, "x_b1_k4": 2}


def gen():
    spec = importlib.util.spec_from_file_location("gen_wgfp8", os.path.join(HERE, "gen_wgfp8.py"))
    g = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(g)
    return g


def main():
    res, inputs = sys.argv[1], sys.argv[2]
    g = gen()
    for sub in ("ptx", "sass", "inputs", "cases", "log/rec4"):
        os.makedirs(os.path.join(ROOT, sub), exist_ok=True)
    for f in sorted(x for x in os.listdir(os.path.join(res, "ptx")) if not x.startswith("probe_")):
        src = open(os.path.join(res, "ptx", f)).read()
        src = re.sub(r'(\.file\s+\d+\s+")[^"]*/([^"/]+")', r'\1testdata/tma/gen/\2', src)
        open(os.path.join(ROOT, "ptx", f.replace(".ptx", ".O3.ptx")), "w").write(src)
    for f in sorted(x for x in os.listdir(os.path.join(res, "sass")) if not x.startswith("probe_")):
        data = open(os.path.join(res, "sass", f), "rb").read()
        if f.endswith(".gz"):
            data = gzip.decompress(data)
            f = f[:-3]
        with open(os.path.join(ROOT, "sass", f.replace(".sass", ".O3.sass") + ".gz"), "wb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as b:
                b.write(data)
    logd = os.path.join(ROOT, "log", "rec4")
    for f in ("log.txt", "versions.txt", "run.txt", "compile.txt"):
        if os.path.exists(os.path.join(res, f)):
            # the GPU machine's scratch folders out (TestNoMachinePathsCommitted)
            text = open(os.path.join(res, f)).read()
            text = re.sub(r"/tmp/tmpxft_[0-9a-f_]+-[0-9]+_", "TMP/", text)
            text = re.sub(r"/(tmp|work|home)/[^\s:(]*/(?=[^/\s]+\.(cu|ptx|h)\b)", "", text)
            text = re.sub(r"/(tmp|work|home)/[^\s:(]*", "OUT", text)
            open(os.path.join(logd, f), "w").write(text)
    for b in ("bench_fp8", "bench_b1"):
        p = os.path.join(res, b, "meta.txt")
        if os.path.exists(p):
            shutil.copy(p, os.path.join(logd, b + ".txt"))
    made, skipped = [], []
    for group, cases in (("fp8", g.CASES), ("b1", g.B1)):
        for cs in cases:
            (cname, kname, n, k, dtype, at, bt, rs, imms, nb_all, dA, dB, delA, delB, steps, kinds) = cs
            prog = "wgx_b1" if group == "b1" else ("wgx_fp8b" if any(r in cname for r in ("_rs", "_n256", "_n8", "_n24")) else "wgx_fp8")
            d = os.path.join(res, cname)
            meta = open(os.path.join(d, "meta.txt")).read().splitlines() if os.path.exists(os.path.join(d, "meta.txt")) else []
            if "status ok" not in meta or not os.path.exists(os.path.join(d, "dout.bin")):
                skipped.append((cname, [l for l in meta if l.startswith("error")] or ["no result"]))
                continue
            nreg = g.regs(n, dtype)
            nb = nb_all if os.environ.get("KEEPALL") else min(nb_all, KEEP.get(cname, 4))
            cut = {"img": nb * 16384, "afrag": nb * steps * 2048, "cin": nb * 128 * nreg * 4}
            spec = {"kernel": kname, "grid": [nb, 1, 1], "block": [128, 1, 1],
                    "buffers": [{"name": "img", "type": "u8", "count": nb * 16384},
                                {"name": "afrag", "type": "u32", "count": nb * steps * 512},
                                {"name": "cin", "type": "u32", "count": nb * 128 * nreg},
                                {"name": "dout", "type": "u32", "count": nb * 128 * nreg,
                                 "fill": {"kind": "const", "value": 0xdeadbeef}}],
                    "args": [{"buffer": "img"}, {"buffer": "afrag"}, {"buffer": "cin"}, {"buffer": "dout"},
                             {"u64": dA}, {"u64": dB}, {"u64": delA}, {"u64": delB}, {"u32": steps}, {"u32": g.SCALE_MASK}],
                    "outputs": ["dout"]}
            for b in spec["buffers"][:3]:
                data = open(os.path.join(inputs, "%s.%s.bin" % (cname, b["name"])), "rb").read()[:cut[b["name"]]]
                name = "%s.%s.bin" % (cname, b["name"])
                open(os.path.join(ROOT, "inputs", name), "wb").write(data)
                b["file"] = "../../../inputs/" + name
            launch = [l for l in meta if l.startswith("launch ")][0]
            spec["description"] = "%s (%s, the first %d of %d blocks; data kinds %s): %s" % (
                cname, prog, nb, nb_all, " ".join(kinds[i % len(kinds)] for i in range(nb)), launch)
            spec["module"] = "../../../ptx/%s.O3.ptx" % prog
            cd = os.path.join(ROOT, "cases", cname, "O3")
            os.makedirs(os.path.join(cd, "expected"), exist_ok=True)
            data = open(os.path.join(d, "dout.bin"), "rb").read()[:nb * 128 * nreg * 4]
            if len(data) > 16384:
                open(os.path.join(cd, "expected", "dout.sha256"), "w").write(hashlib.sha256(data).hexdigest() + "\n")
            else:
                open(os.path.join(cd, "expected", "dout.bin"), "wb").write(data)
            json.dump(spec, open(os.path.join(cd, "spec.json"), "w"), indent=1)
            made.append(cname)
    print("made %d cases; skipped %d:" % (len(made), len(skipped)))
    for s in skipped:
        print("  ", s)


main()
