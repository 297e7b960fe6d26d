#!/usr/bin/env python3
"""Planted-bug corpus for `ptxrun sanitize` (ptxvm issue 25).

    python3 gen.py specs            write specs/<case>.<variant>.json and cases.json
    python3 gen.py ptx [FILE...]    build ptx/<file>.<variant>.ptx with the local nvcc
    python3 gen.py device --out D   on the GPU machine: build with nvcc (-O3 and -G,
                                    -lineinfo, sm_90), run every case under
                                    compute-sanitizer and write D/sanitize_gpu.tgz
                                    (gpu/<case>.<variant>.<tool>.txt, ptx/ as built)

Paths are relative to testdata/sanitize (the folder above this script).
Cases: CASES below (planted bugs: the tool that must find them and what
they plant) and CONTROLS (corpus kernels of testdata/nvcc that must report
nothing under every tool).
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # testdata/sanitize
VARIANTS = {"O3": ["-O3"], "G": ["-G"]}
TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]


def buf(name, typ, count, init=None):
    """init: None (never written by the host), "iota", ("const", v)."""
    return (name, typ, count, init)


F, I, U = "f32", "s32", "u32"
IN64 = buf("in", F, 64, "iota")
IN128 = buf("in", F, 128, "iota")

# name, file, tool that must report it ("" = clean), grid, block, buffers, args, what it plants
CASES = [
    ("race_raw_nosync", "race", "racecheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "RAW: read of a neighbour's element with no barrier"),
    ("race_war", "race", "racecheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "WAR: write after another warp's read, no barrier"),
    ("race_waw", "race", "racecheck", 1, 64, [buf("out", I, 1)], ["out"], "WAW: every thread writes its id to one word"),
    ("race_waw_same", "race", "racecheck", 1, 64, [buf("out", F, 1)], ["out"], "WAW of the same value (harmless: compute-sanitizer keeps it at its info level, not shown)"),
    ("race_reduce_nosync", "race", "racecheck", 1, 64, [buf("out", F, 1), IN64], ["out", "in"], "tree reduction without __syncthreads in the loop"),
    ("race_warp_nosyncwarp", "race", "racecheck", 1, 64, [buf("out", F, 1), IN64], ["out", "in"], "warp-synchronous reduction without __syncwarp"),
    ("race_syncwarp_partial", "race", "racecheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "__syncwarp orders lanes 0-15 only; lanes 16-31 read"),
    ("race_clean_syncwarp", "race", "", 1, 64, [buf("out", F, 1), IN64], ["out", "in"], "clean: warp reduction with __syncwarp"),
    ("race_clean_atomic", "race", "", 1, 64, [buf("out", I, 1)], ["out"], "clean: shared atomics"),
    ("race_global_blocks", "global", "", 2, 32, [buf("out", I, 5, ("const", 0))], ["out"], "global WAW and RAW between blocks (compute-sanitizer: not checked; ptxrun sanitize --global)"),
    ("init_read_input", "init", "initcheck", 1, 64, [buf("out", F, 64), buf("in", F, 64)], ["out", "in"], "input buffer never written"),
    ("init_accumulate", "init", "initcheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "out += in with out never zeroed"),
    ("init_odd_half", "init", "initcheck", 1, 64, [buf("out", I, 64), buf("tmp", I, 64)], ["out", "tmp"], "kernel writes even elements, reads odd ones"),
    ("init_partial_word", "init", "initcheck", 1, 64, [buf("out", U, 64), buf("tmp", "u16", 128)], ["out", "tmp"], "16-bit writes, 32-bit reads"),
    ("init_atomic_counter", "init", "initcheck", 1, 64, [buf("out", I, 64), buf("counter", I, 1)], ["out", "counter"], "atomicAdd on a counter never zeroed"),
    ("init_sum_scratch", "init", "initcheck", 1, 64, [buf("out", F, 64), buf("scratch", F, 64)], ["out", "scratch"], "one thread sums an unfilled buffer"),
    ("init_shared_uninit", "init", "", 1, 64, [buf("out", F, 64)], ["out"], "shared read before write (compute-sanitizer: not tracked)"),
    ("init_kernel_written", "init", "", 1, 64, [buf("out", F, 64), buf("tmp", F, 64), IN64], ["out", "tmp", "in"], "clean: reads what the kernel wrote"),
    ("init_clean", "init", "", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "clean"),
    ("sync_divergent_block", "sync", "synccheck", 1, 128, [buf("out", F, 128), IN128], ["out", "in"], "__syncthreads skipped by two live warps"),
    ("sync_divergent_warp", "sync", "synccheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "__syncthreads skipped by half of each warp"),
    ("sync_bar_count", "sync", "memcheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "bar.sync 1, 48: an illegal instruction (memcheck; synccheck reports nothing)"),
    ("sync_syncwarp_self", "sync", "synccheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "__syncwarp mask leaves out lane 0"),
    ("sync_syncwarp_mismatch", "sync", "synccheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "halves of a warp name different masks (the H200 completes each half; compute-sanitizer reports nothing)"),
    ("sync_syncwarp_missing", "sync", "synccheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "__syncwarp(full) reached by half the warp"),
    ("sync_clean", "sync", "", 1, 64, [buf("out", F, 64), IN64], ["out", "in"], "clean"),
    ("mem_global_read_past", "mem", "memcheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in", ("s32", 64)], "reads one element past in"),
    ("mem_global_write_past", "mem", "memcheck", 1, 64, [buf("out", F, 64)], ["out", ("s32", 64)], "16 threads write past out"),
    ("mem_shared_past", "mem", "memcheck", 1, 64, [buf("out", F, 64), IN64], ["out", "in", ("s32", 2)], "threads 32-63 read past a shared array"),
    ("mem_misaligned", "mem", "memcheck", 1, 64, [buf("out", F, 64), buf("in", "u8", 272, "iota")], ["out", "in"], "float loads 2 bytes off"),
    ("mem_local_past", "mem", "memcheck", 1, 64, [buf("out", I, 64), buf("in", I, 64, "iota")], ["out", "in", ("s32", 4096)], "local array indexed far past the stack"),
    ("mem_clean", "mem", "", 1, 64, [buf("out", F, 64), IN64], ["out", "in", ("s32", 64)], "clean"),
]

# Corpus kernels that must report nothing under any tool (their specs in
# testdata/nvcc/cases/<name>/O3/spec.json).
CONTROLS = ["matmul_tiled", "transpose_shared", "transpose_padded", "reduce_sum_f32", "scan_blelloch",
            "bitonic_sort", "hist_shared_atomic", "stencil_1d", "dot_product", "named_barrier"]


def spec_of(case, variant):
    name, file, tool, grid, block, bufs, args, what = case
    s = {
        "description": f"{file}.cu {name}: {what}" + (f" ({tool})" if tool else ""),
        "module": f"../ptx/{file}.{variant}.ptx",
        "kernel": name,
        "grid": [grid, 1, 1],
        "block": [block, 1, 1],
        "buffers": [],
        "args": [],
        "outputs": [bufs[0][0]],
    }
    for bn, typ, count, init in bufs:
        b = {"name": bn, "type": typ, "count": count}
        if init == "iota":
            b["fill"] = {"kind": "iota"}
        elif isinstance(init, tuple):
            b["fill"] = {"kind": "const", "value": init[1]}
        s["buffers"].append(b)
    for a in args:
        s["args"].append({a[0]: a[1]} if isinstance(a, tuple) else {"buffer": a})
    return s


def write_specs():
    os.makedirs(os.path.join(ROOT, "specs"), exist_ok=True)
    index = []
    for c in CASES:
        for v in VARIANTS:
            with open(os.path.join(ROOT, "specs", f"{c[0]}.{v}.json"), "w") as f:
                json.dump(spec_of(c, v), f, indent=1)
                f.write("\n")
        index.append({"case": c[0], "file": c[1] + ".cu", "tool": c[2], "plants": c[7]})
    with open(os.path.join(ROOT, "cases.json"), "w") as f:
        json.dump({"cases": index, "controls": CONTROLS}, f, indent=1)
        f.write("\n")


def nvcc(src, variant, kind, out):
    cmd = ["nvcc", f"-{kind}", "-arch=sm_90", "-lineinfo", *VARIANTS[variant], src, "-o", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}:\n{r.stderr}")


def build_ptx(outdir, kinds=("ptx",), only=None):
    os.makedirs(outdir, exist_ok=True)
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(16) as ex:
        for f in sorted(os.listdir(os.path.join(ROOT, "kernels"))):
            if not f.endswith(".cu") or only and f[:-3] not in only:
                continue
            for v in VARIANTS:
                for k in kinds:
                    src = os.path.join(ROOT, "kernels", f)
                    jobs.append(ex.submit(nvcc, src, v, k, os.path.join(outdir, f"{f[:-3]}.{v}.{k}")))
        for j in jobs:
            j.result()
    # nvcc writes the source's full path into .file: keep the name only.
    for f in os.listdir(outdir):
        if f.endswith(".ptx"):
            p = os.path.join(outdir, f)
            text = open(p).read().replace(os.path.join(ROOT, "kernels") + "/", "")
            open(p, "w").write(text)


INITS = {"iota": {"f32": "iota_f32", "s32": "iota_u32", "u32": "iota_u32"}}


def launch_text(module, kernel, grid, block, smem, buffers, args, spec_dir):
    lines = [f"module {module}", f"kernel {kernel}", "grid %d %d %d" % tuple(grid), "block %d %d %d" % tuple(block), f"smem {smem}"]
    size = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "f16": 2, "bf16": 2, "u32": 4, "s32": 4, "f32": 4, "u64": 8, "s64": 8, "f64": 8}
    bufs = {b["name"]: b for b in buffers}
    for a in args:
        if "buffer" in a:
            b = bufs[a["buffer"]]
            n = b["count"] * size[b["type"]]
            init = "none"
            if "file" in b:
                init = "file " + os.path.join(spec_dir, b["file"])
            elif "fill" in b:
                fl = b["fill"]
                if fl["kind"] == "iota" and b["type"] == "u8":
                    # bytes 0,1,2,...: the driver fills 32-bit words; a
                    # file keeps the contents exact
                    p = f"/tmp/sanitize_fill_{kernel}_{a['buffer']}.bin"
                    open(p, "wb").write(bytes(i & 255 for i in range(n)))
                    init = "file " + p
                elif fl["kind"] == "iota":
                    init = INITS["iota"].get(b["type"], "zero")
                elif fl["kind"] == "const":
                    init = ("const_f32 " if b["type"].startswith("f") else "const_u32 ") + str(fl.get("value", 0))
                else:
                    init = "zero"  # rand fills: zeros do for the controls
            lines.append(f"buf {n} {init}")
        else:
            (k, v), = a.items()
            lines.append(f"{k} {v}")
    return "\n".join(lines) + "\n"


def device(out):
    t0 = time.time()
    work = "/tmp/sanitize_work"
    os.makedirs(os.path.join(work, "gpu"), exist_ok=True)
    os.makedirs(os.path.join(work, "ptx"), exist_ok=True)
    build_ptx(os.path.join(work, "ptx"), kinds=("ptx", "cubin"))
    subprocess.run(["nvcc", "-O2", "-o", os.path.join(work, "sanrun"), os.path.join(HERE, "sanrun.cpp"), "-lcuda"], check=True)
    print(f"built in {time.time() - t0:.1f}s", flush=True)
    runs = []  # (launch file, output name, tool)
    for c in CASES:
        name, file, tool, grid, block, _, _, _ = c
        for v in VARIANTS:
            s = spec_of(c, v)
            lt = launch_text(os.path.join(work, "ptx", f"{file}.{v}.cubin"), name, s["grid"], s["block"], 0, s["buffers"], s["args"], ROOT)
            lp = os.path.join(work, f"{name}.{v}.launch")
            open(lp, "w").write(lt)
            tools = TOOLS if v == "O3" else ([tool] if tool else TOOLS)
            for t in tools:
                runs.append((lp, f"{name}.{v}.{t}", t))
    nv = os.path.join(ROOT, "..", "nvcc", "cases")
    for c in CONTROLS:
        sd = os.path.join(nv, c, "O3")
        s = json.load(open(os.path.join(sd, "spec.json")))
        lt = launch_text(os.path.normpath(os.path.join(sd, s["module"])), s["kernel"], s["grid"] + [1] * (3 - len(s["grid"])),
                         s["block"] + [1] * (3 - len(s["block"])), s.get("dynamic_shared_bytes", 0), s["buffers"], s["args"], sd)
        lp = os.path.join(work, f"{c}.control.launch")
        open(lp, "w").write(lt)
        for t in TOOLS:
            runs.append((lp, f"{c}.O3.{t}", t))

    def one(r):
        lp, name, tool = r
        cmd = ["timeout", "40", "compute-sanitizer", "--tool", tool, "--print-limit", "10000", "--show-backtrace", "no"]
        if tool == "racecheck":
            cmd += ["--racecheck-report", "all"]
        cmd += [os.path.join(work, "sanrun"), lp]
        t = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        text = p.stdout + p.stderr + f"\n#exit {p.returncode} seconds {time.time() - t:.2f}\n"
        open(os.path.join(work, "gpu", name + ".txt"), "w").write(text)
        return name, p.returncode

    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        for name, rc in ex.map(one, runs):
            print(rc, name, flush=True)
    ver = subprocess.run(["compute-sanitizer", "--version"], capture_output=True, text=True).stdout
    ver += subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    ver += subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv"], capture_output=True, text=True).stdout
    open(os.path.join(work, "gpu", "VERSIONS.txt"), "w").write(ver)
    os.makedirs(out, exist_ok=True)
    with tarfile.open(os.path.join(out, "sanitize_gpu.tgz"), "w:gz") as tf:
        tf.add(os.path.join(work, "gpu"), "gpu")
        for f in os.listdir(os.path.join(work, "ptx")):
            if f.endswith(".ptx"):
                tf.add(os.path.join(work, "ptx", f), "ptx/" + f)
    print(f"{len(runs)} runs in {time.time() - t0:.1f}s", flush=True)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    cmd = sys.argv[1]
    if cmd == "specs":
        write_specs()
    elif cmd == "ptx":
        # ptx FILE...: only those kernels/FILE.cu (the committed PTX of the
        # others is nvcc 13's, from the GPU run)
        build_ptx(os.path.join(ROOT, "ptx"), only=set(sys.argv[2:]) or None)
    elif cmd == "device":
        out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "/tmp/sanitize_out"
        device(out)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
