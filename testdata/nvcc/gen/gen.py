#!/usr/bin/env python3
"""Build the nvcc ground-truth corpus on a GPU machine.

    python3 testdata/nvcc/gen/gen.py --out testdata/nvcc --tar $OUT/nvcc.tgz

Phases (each prints its elapsed time):
  toolchain  nvcc/ptxas/ncu versions, GPU name and driver
  compile    kernels/*.cu -> ptx/<module>.O3.ptx (-O3 -lineinfo) and
             ptx/<module>.G.ptx (-G), sm_90; parse-only ptx_targets/; then
             ptxas -v reports (ptxas/) and SASS listings of those cubins
             (sass/, nvdisasm -c, or cuobjdump -sass where nvdisasm fails)
  specs      inputs (cases/<case>/inputs/*.bin) and one launch spec per variant
             (cases/<case>/<variant>/spec.json); kernels resolved to their
             mangled .entry names and checked against the .param lists
  run        every spec on the GPU (runspec.py) -> <variant>/expected/*.bin
  ncu        Nsight Compute counters per launch -> ncu/<variant>.csv (+ a
             launch -> case map); may fail without losing the outputs
  manifest   manifest.json, then the tarball (--tar)

--dry-run skips nvcc, ptxas and the GPU (inputs and specs only, kernel names
unresolved) so the generator can be checked on a machine without CUDA;
--compile-only also compiles (needs nvcc) but runs nothing on a GPU.

The same pipeline builds other corpora laid out the same way: configure()
takes the case list, the kernels directory, the compile variants and the
default output directory (testdata/apps/gen/gen.py uses it for the
application-style corpus with four builds).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import datetime
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import cases as C  # noqa: E402
import runspec  # noqa: E402

GEN_VERSION = "1.1"
KERNELS_DIR = os.path.join(HERE, "kernels")
# The repository's root: nvcc runs there with paths relative to it, so that
# the .file directives and logs it writes name no folder of this machine.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
_FILE_RE = re.compile(r'^(\s*\.file\s+\d+\s+")([^"]*)(".*)$')


def repo_rel(path):
    """path relative to the repository's root when it is inside it, else as is."""
    a = os.path.abspath(path)
    if os.path.commonpath([a, REPO]) == REPO:
        return os.path.relpath(a, REPO)
    return path


def relativize_ptx(ptx):
    """Rewrite the .file directives of a PTX file that name a path inside
    the repository to that path relative to its root (what nvcc recorded
    when given absolute paths); nothing else changes."""
    with open(ptx, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    changed = False
    for i, ln in enumerate(lines):
        m = _FILE_RE.match(ln)
        if m and os.path.isabs(m.group(2)) and repo_rel(m.group(2)) != m.group(2):
            lines[i] = m.group(1) + repo_rel(m.group(2)).replace(os.sep, "/") + m.group(3)
            changed = True
    if changed:
        with open(ptx, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("\n".join(lines))
ARCH = "sm_90"
VARIANTS = {
    "O3": ["-O3", "-lineinfo"],
    "G": ["-G"],
}
CORPUS = "nvcc"
DEFAULT_OUT = os.path.dirname(HERE)
SASS_GZIP = False      # sass/<module>.<variant>.sass (plain) or .sass.gz


def configure(name, cases_module, kernels_dir, variants, default_out, sass_gzip=False,
              ncu_metrics=None, ncu_extra_flags=()):
    """Point the pipeline at another corpus: its case list (a module with
    CASES, TARGET_MODULES, TARGET_ARCHS), kernel sources, compile variants
    ({name: nvcc flags}, the first is profiled first), output directory, and
    whether SASS listings are written gzip-compressed (.sass.gz).
    ncu_metrics replaces the Nsight Compute metric list (default NCU_METRICS)
    and ncu_extra_flags are added to NCU_FLAGS (e.g. --print-metric-instances
    values for instanced metrics)."""
    global C, KERNELS_DIR, VARIANTS, CORPUS, DEFAULT_OUT, SASS_GZIP, NCU_METRICS, NCU_FLAGS
    C = cases_module
    KERNELS_DIR = kernels_dir
    VARIANTS = dict(variants)
    CORPUS = name
    DEFAULT_OUT = default_out
    SASS_GZIP = sass_gzip
    NCU_METRICS = list(ncu_metrics) if ncu_metrics is not None else list(_NCU_METRICS_DEFAULT)
    NCU_FLAGS = list(_NCU_FLAGS_DEFAULT) + list(ncu_extra_flags)
NCU_METRICS = [
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__t_requests_pipe_tex_mem_texture.sum",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "sm__cycles_elapsed.max",
    "gpu__time_duration.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__registers_per_thread",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
] + [
    f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio"
    for r in ("long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "lg_throttle",
              "tex_throttle", "math_pipe_throttle", "wait", "not_selected", "selected",
              "branch_resolving", "no_instruction", "membar")
]
NCU_FLAGS = ["--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base", "mangled",
             "--clock-control", "none", "--target-processes", "all"]
_NCU_METRICS_DEFAULT = tuple(NCU_METRICS)
_NCU_FLAGS_DEFAULT = tuple(NCU_FLAGS)
TAR_LIMIT = 16 * 1024 * 1024
GENERATED_DIRS = ("cases", "ptx", "ptx_targets", "ptxas", "sass", "ncu", "logs")


# ---------------------------------------------------------------------------
# Small helpers

T0 = time.time()


def log(msg=""):
    print(msg, flush=True)


class Phase:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.t = time.time()
        log(f"== {self.name} (t={self.t - T0:.1f}s)")
        return self

    def __exit__(self, *exc):
        log(f"== {self.name}: {time.time() - self.t:.1f}s")
        return False


def run(cmd, timeout=None, cwd=None):
    """Run a command; return (returncode, combined output). Never raises."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, cwd=cwd, errors="replace")
        return p.returncode, p.stdout
    except FileNotFoundError as e:
        return 127, f"{e}"
    except subprocess.TimeoutExpired as e:
        out = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode("replace")
        return 124, out + f"\n[timeout after {timeout}s]"


def rel(path, start):
    return os.path.relpath(path, start).replace(os.sep, "/")


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


# ---------------------------------------------------------------------------
# PTX inspection

PTX_TYPES = {".u8": 1, ".s8": 1, ".b8": 1, ".u16": 2, ".s16": 2, ".b16": 2, ".f16": 2,
             ".u32": 4, ".s32": 4, ".b32": 4, ".f32": 4, ".u64": 8, ".s64": 8, ".b64": 8,
             ".f64": 8}
FUNC_RE = re.compile(
    r"^[ \t]*(?:\.visible[ \t]+|\.weak[ \t]+|\.extern[ \t]+)?\.(entry|func)[ \t]+"
    r"(?:\([^)]*\)[ \t]*)?([A-Za-z_$%][\w$]*)", re.M)
CALL_RE = re.compile(r"\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([A-Za-z_$][\w$]*)")


def _match_paren(s, i):
    """s[i] == '('; index just past the matching ')'."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "(":
            depth += 1
        elif s[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(s)


def _match_brace(s, i):
    depth = 0
    for j in range(i, len(s)):
        c = s[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        elif c == "/" and s.startswith("//", j):
            nl = s.find("\n", j)
            j = nl if nl >= 0 else len(s)
    return len(s)


def parse_ptx(text):
    """{name: {"kind": entry|func, "params": [bytes...], "body": str, "calls": set}}."""
    funcs = {}
    for m in FUNC_RE.finditer(text):
        kind, name = m.group(1), m.group(2)
        i = m.end()
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        params = []
        if i < len(text) and text[i] == "(":
            j = _match_paren(text, i)
            plist = text[i + 1:j - 1]
            i = j
            for p in plist.split(","):
                p = p.strip()
                if not p:
                    continue
                size = None
                for tok in p.split():
                    if tok in PTX_TYPES:
                        size = PTX_TYPES[tok]
                arr = re.search(r"\[(\d+)\]", p)
                if size is not None and arr:
                    size *= int(arr.group(1))
                params.append(size)
        # A declaration ends with ';' before any '{'.
        k = i
        while k < len(text) and text[k] not in "{;":
            k += 1
        if k >= len(text) or text[k] == ";":
            continue
        end = _match_brace(text, k)
        body = text[k:end]
        funcs[name] = {"kind": kind, "params": params, "body": body,
                       "calls": set(CALL_RE.findall(body))}
    return funcs


OPCODE_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[A-Za-z0-9_]+)*$")
LABEL_RE = re.compile(r"^[$%\w]+:\s*")
PRED_RE = re.compile(r"^@!?%?[\w$]+\s+")


def opcodes(body):
    """The set of instruction opcodes (with modifiers) in a function body."""
    # Directive lines (.loc, .reg, .param, .pragma, ...) end without ';':
    # drop them before splitting into statements.
    lines = (line.split("//")[0] for line in body.split("\n"))
    text = "\n".join(ln for ln in lines if not ln.strip().startswith("."))
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    ops = set()
    for stmt in re.split(r"[;{}]", text):
        s = stmt.strip()
        while True:
            m = LABEL_RE.match(s)
            if not m:
                break
            s = s[m.end():]
        m = PRED_RE.match(s)
        if m:
            s = s[m.end():]
        if not s or s.startswith("."):
            continue
        op = s.split()[0]
        if OPCODE_RE.match(op):
            ops.add(op)
    return ops


def kernel_opcodes(funcs, entry):
    """Opcodes of an entry and every function it calls, transitively."""
    seen, todo, ops = set(), [entry], set()
    while todo:
        f = todo.pop()
        if f in seen or f not in funcs:
            continue
        seen.add(f)
        ops |= opcodes(funcs[f]["body"])
        todo.extend(funcs[f]["calls"])
    return ops


def approx_ops(ops):
    return sorted(o for o in ops if ".approx" in o or o.startswith("div.full")
                  or o.startswith("tanh"))


def resolve_kernel(funcs, plain):
    entries = [n for n, f in funcs.items() if f["kind"] == "entry"]
    if plain in entries:
        return plain
    pre = f"_Z{len(plain)}{plain}"
    cands = [e for e in entries if e.startswith(pre)]
    if len(cands) == 1:
        return cands[0]
    if not cands:
        raise ValueError(f"no .entry for {plain!r} (entries: {', '.join(sorted(entries))})")
    raise ValueError(f"several .entry candidates for {plain!r}: {', '.join(cands)}")


ARG_SIZES = {"buffer": 8, "texture": 8, "u8": 1, "s8": 1, "u16": 2, "s16": 2, "f16": 2,
             "u32": 4, "s32": 4, "f32": 4, "u64": 8, "s64": 8, "f64": 8}


def check_params(case, params):
    if len(params) != len(case.args):
        return f"{len(case.args)} args for {len(params)} .params"
    for j, (a, p) in enumerate(zip(case.args, params)):
        if p is not None and ARG_SIZES[a[0]] != p:
            return f"arg {j} ({a[0]}) is {ARG_SIZES[a[0]]} bytes, .param is {p}"
    return None


def parse_ptxas(text):
    """Per-function ptxas -v facts."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line) or \
            re.search(r"Function properties for (\S+)", line)
        if m:
            cur = m.group(1)
            out.setdefault(cur, {})
            continue
        if cur is None:
            continue
        d = out[cur]
        for key, pat in (("stack_frame", r"(\d+) bytes stack frame"),
                         ("spill_stores", r"(\d+) bytes spill stores"),
                         ("spill_loads", r"(\d+) bytes spill loads"),
                         ("registers", r"Used (\d+) registers"),
                         ("smem", r"(\d+) bytes smem"),
                         ("cmem0", r"(\d+) bytes cmem\[0\]"),
                         ("barriers", r"used (\d+) barriers"),
                         ("cumulative_stack", r"(\d+) bytes cumulative stack size")):
            mm = re.search(pat, line)
            if mm:
                d[key] = int(mm.group(1))
    return out


# ---------------------------------------------------------------------------
# Phases

def find_tools():
    """Put the CUDA toolkit and Nsight Compute on PATH if they are installed
    in the usual places but not on PATH."""
    import glob
    extra = []
    if shutil.which("nvcc") is None:
        for d in [os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""),
                  "/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-1*"), reverse=True):
            if d and os.path.isfile(os.path.join(d, "bin", "nvcc")):
                extra.append(os.path.join(d, "bin"))
                break
    if shutil.which("ncu") is None:
        cands = [os.path.join(d, "ncu") for d in extra] + \
            sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"), reverse=True) + \
            sorted(glob.glob("/usr/local/cuda*/nsight-compute*/ncu"), reverse=True)
        for c in cands:
            if os.path.isfile(c):
                extra.append(os.path.dirname(c))
                break
    if extra:
        os.environ["PATH"] = os.pathsep.join(extra + [os.environ.get("PATH", "")])
        log(f"  added to PATH: {' '.join(extra)}")


def toolchain(dry):
    info = {}
    if dry:
        return {"dry_run": True}
    rc, out = run(["nvcc", "--version"], timeout=60)
    info["nvcc_version"] = out.strip() if rc == 0 else f"unavailable: {out.strip()}"
    rc, out = run(["ptxas", "--version"], timeout=60)
    info["ptxas_version"] = out.strip().splitlines()[-1] if rc == 0 and out.strip() else "unavailable"
    for tool in ("nvdisasm", "cuobjdump"):
        rc, out = run([tool, "--version"], timeout=60)
        info[f"{tool}_version"] = (out.strip().splitlines()[-1] if rc == 0 and out.strip()
                                   else "unavailable")
    rc, out = run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], timeout=60)
    if rc == 0 and out.strip():
        first = out.strip().splitlines()[0]
        parts = [p.strip() for p in first.split(",")]
        info["gpu"] = parts[0]
        info["driver_version"] = parts[1] if len(parts) > 1 else ""
    else:
        info["gpu"] = f"unavailable: {out.strip()[:200]}"
    rc, out = run(["ncu", "--version"], timeout=60)
    info["ncu_version"] = out.strip().splitlines()[-1] if rc == 0 and out.strip() else "unavailable"
    rc, out = run([sys.executable, "-c", "import cupy, numpy; print(cupy.__version__, numpy.__version__)"],
                  timeout=120)
    if rc == 0 and out.strip():
        cv = out.strip().splitlines()[-1].split()
        info["cupy_version"], info["numpy_version"] = cv[0], cv[-1]
    else:
        info["cupy_version"] = f"unavailable: {out.strip()[-200:]}"
    info["python"] = sys.version.split()[0]
    for k in ("nvcc_version", "ptxas_version", "gpu", "driver_version", "ncu_version", "cupy_version"):
        if k in info:
            log(f"  {k}: {info[k].splitlines()[-1] if info[k] else ''}")
    return info


def compile_all(out, mods, jobs, targets=True):
    """nvcc -ptx for each module and variant (+ targets), then ptxas and cuobjdump.
    Returns {(module, variant): "ok" | error}."""
    ptx_dir = os.path.join(out, "ptx")
    tgt_dir = os.path.join(out, "ptx_targets")
    logs = os.path.join(out, "logs", "nvcc")
    for d in (ptx_dir, logs):
        os.makedirs(d, exist_ok=True)
    tasks = []
    # nvcc runs in the repository's root with paths relative to it (repo_rel):
    # the PTX's .file directives and the logs then name no machine folder.
    inc = repo_rel(KERNELS_DIR)
    for m in mods:
        src = repo_rel(os.path.join(KERNELS_DIR, m + ".cu"))
        for v, flags in VARIANTS.items():
            dst = os.path.join(ptx_dir, f"{m}.{v}.ptx")
            tasks.append(((m, v), ["nvcc", "-ptx", f"-arch={ARCH}", *flags, "-std=c++17",
                                   "-I", inc, src, "-o", repo_rel(dst)], dst))
        if targets and m in getattr(C, "TARGET_MODULES", ()):
            os.makedirs(tgt_dir, exist_ok=True)
            for arch in C.TARGET_ARCHS:
                dst = os.path.join(tgt_dir, f"{m}.{arch}.ptx")
                tasks.append(((m, arch), ["nvcc", "-ptx", f"-arch={arch}", "-O3", "-std=c++17",
                                          "-I", inc, src, "-o", repo_rel(dst)], dst))
    status = {}

    def do(task):
        key, cmd, dst = task
        rc, output = run(cmd, timeout=300, cwd=REPO)
        with open(os.path.join(logs, f"{key[0]}.{key[1]}.log"), "w") as f:
            f.write(" ".join(cmd) + "\n" + output)
        if rc != 0 or not os.path.isfile(dst):
            if os.path.exists(dst):
                os.remove(dst)
            return key, f"nvcc failed (exit {rc}): " + " ".join(output.split())[-500:]
        relativize_ptx(dst)
        return key, "ok"

    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        for key, st in ex.map(do, tasks):
            status[key] = st
            if st != "ok":
                log(f"  nvcc {key[0]} {key[1]}: {st}")
    nok = sum(1 for s in status.values() if s == "ok")
    log(f"  nvcc: {nok}/{len(status)} ok")

    # ptxas -v and cuobjdump -sass for the sm_90 variants
    ptxas_dir = os.path.join(out, "ptxas")
    sass_dir = os.path.join(out, "sass")
    os.makedirs(ptxas_dir, exist_ok=True)
    os.makedirs(sass_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="gen.cubin.")

    def asm(key):
        m, v = key
        ptx = os.path.join(ptx_dir, f"{m}.{v}.ptx")
        cubin = os.path.join(tmp, f"{m}.{v}.cubin")
        cmd = ["ptxas", f"-arch={ARCH}", "-v", ptx, "-o", cubin]
        rc, output = run(cmd, timeout=300)
        with open(os.path.join(ptxas_dir, f"{m}.{v}.txt"), "w") as f:
            f.write(" ".join(["ptxas", f"-arch={ARCH}", "-v", f"{m}.{v}.ptx"]) + "\n" + output)
        if rc != 0:
            return key, f"ptxas failed (exit {rc})"
        # nvdisasm -c prints the same SASS as cuobjdump -sass without the
        # encodings, and is many times faster on large -G cubins.
        tool = ["nvdisasm", "-c", cubin]
        rc, sass = run(tool, timeout=300)
        if rc != 0:
            tool = ["cuobjdump", "-sass", cubin]
            rc, sass = run(tool, timeout=300)
        if rc == 0:
            text = f"// {tool[0]} {' '.join(tool[1:-1])} of ptxas -arch={ARCH} {m}.{v}.ptx\n" + sass
            if SASS_GZIP:
                import gzip
                with open(os.path.join(sass_dir, f"{m}.{v}.sass.gz"), "wb") as raw:
                    with gzip.GzipFile(filename=f"{m}.{v}.sass", mode="wb", fileobj=raw, mtime=0) as f:
                        f.write(text.encode())
            else:
                with open(os.path.join(sass_dir, f"{m}.{v}.sass"), "w") as f:
                    f.write(text)
        os.remove(cubin)
        return key, "ok" if rc == 0 else f"nvdisasm/cuobjdump failed (exit {rc})"

    keys = [k for k, s in status.items() if s == "ok" and k[1] in VARIANTS]
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        for key, st in ex.map(asm, keys):
            if st != "ok":
                log(f"  ptxas/cuobjdump {key[0]} {key[1]}: {st}")
    shutil.rmtree(tmp, ignore_errors=True)
    return status


def write_case(out, case, dry, ptx_info, compile_status):
    """Inputs and one spec per variant. Returns per-variant {"spec", "kernel", "error"}."""
    cdir = os.path.join(out, "cases", case.name)
    idir = os.path.join(cdir, "inputs")
    if os.path.isdir(idir):
        shutil.rmtree(idir)
    os.makedirs(idir)
    files = {}
    for b in case.buffers:
        if getattr(b, "fill", None) is not None:
            continue
        if b.data is not None:
            arr = np.ascontiguousarray(b.data).astype(runspec.DTYPES[b.type], copy=False)
            assert arr.size == b.count, (case.name, b.name)
            arr.tofile(os.path.join(idir, b.name + ".bin"))
            files[b.name] = b.name + ".bin"
    for s in case.symbols:
        if s.data is not None:
            arr = np.ascontiguousarray(s.data).astype(runspec.DTYPES[s.type], copy=False)
            arr.tofile(os.path.join(idir, "sym_" + s.name + ".bin"))
            files["sym:" + s.name] = "sym_" + s.name + ".bin"
    if not os.listdir(idir):
        os.rmdir(idir)
    res = {}
    for v in VARIANTS:
        vdir = os.path.join(cdir, v)
        if os.path.isdir(vdir):
            shutil.rmtree(vdir)
        os.makedirs(vdir)
        info = {"spec": rel(os.path.join(vdir, "spec.json"), out), "kernel": None, "error": None}
        kernel = case.kernel
        if not dry:
            st = compile_status.get((case.module, v), "not compiled")
            funcs = ptx_info.get((case.module, v))
            if st != "ok" or funcs is None:
                info["error"] = f"compile: {st}"
            else:
                try:
                    kernel = resolve_kernel(funcs, case.kernel)
                    bad = check_params(case, funcs[kernel]["params"])
                    if bad:
                        info["error"] = f"args do not match the kernel's .params: {bad}"
                except ValueError as e:
                    info["error"] = f"kernel: {e}"
        info["kernel"] = kernel
        spec = {
            "module": f"../../../ptx/{case.module}.{v}.ptx",
            "kernel": kernel,
            "grid": case.grid,
            "block": case.block,
            "dynamic_shared_bytes": case.dyn_smem,
            "buffers": [],
        }
        for b in case.buffers:
            d = {"name": b.name, "type": b.type, "count": b.count}
            if b.name in files:
                d["file"] = "../inputs/" + files[b.name]
            elif getattr(b, "fill", None) is not None:
                d["fill"] = dict(b.fill)
            spec["buffers"].append(d)
        if case.symbols:
            spec["symbols"] = []
            for s in case.symbols:
                d = {"name": s.name, "type": s.type, "count": s.count}
                if "sym:" + s.name in files:
                    d["file"] = "../inputs/" + files["sym:" + s.name]
                spec["symbols"].append(d)
        if case.textures:
            spec["textures"] = [t.spec() for t in case.textures]
        spec["args"] = [{k: val} for k, val in case.args]
        spec["outputs"] = case.outputs
        if case.stack_bytes:
            spec["stack_bytes"] = case.stack_bytes
        if case.tolerance:
            spec["tolerance"] = case.tolerance
        write_json(os.path.join(vdir, "spec.json"), spec)
        problems = runspec.validate_spec(spec, vdir, check_files=True)
        if problems:
            info["error"] = "spec: " + "; ".join(problems)
        res[v] = info
    return res


# ---------------------------------------------------------------------------
# Nsight Compute

def _ncu_csv_rows(text):
    """Header + rows of the CSV part of an ncu --csv --page raw log."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if not lines:
        return None, []
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    hdr_i = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if hdr_i is None:
        return None, []
    return rows[hdr_i], rows[hdr_i + 1:]


def _bad_metrics(text, metrics):
    bad = set()
    for line in text.splitlines():
        if "==ERROR==" in line or "==WARNING==" in line:
            for m in metrics:
                if re.search(r"(?<![\w.])" + re.escape(m) + r"(?![\w.])", line):
                    bad.add(m)
    return bad


def _same_kernel(name, spec):
    """ncu's kernel name (mangled, demangled or the bare function name) vs a spec."""
    mangled, plain = spec[2], spec[3]
    return name in (mangled, plain) or name.startswith(plain + "(")


class Ncu:
    def __init__(self, out, deadline, chunk):
        self.out = out
        self.deadline = deadline
        self.chunk = chunk
        self.dir = os.path.join(out, "ncu")
        os.makedirs(self.dir, exist_ok=True)
        self.metrics = list(NCU_METRICS)
        self.flags = list(NCU_FLAGS)
        self.dropped = {}
        self.logs = []
        self.fatal = None
        self.probes_left = 0

    def remaining(self):
        return self.deadline - time.time()

    def _run(self, specs, tag, timeout):
        listf = os.path.join(self.dir, f".{tag}.list")
        with open(listf, "w") as f:
            f.write("\n".join(specs) + "\n")
        logf = os.path.join(self.dir, f".{tag}.log")
        statf = os.path.join(self.dir, f".{tag}.status.json")
        for p in (logf, statf):
            if os.path.exists(p):
                os.remove(p)
        cmd = ["ncu", *self.flags, "--metrics", ",".join(self.metrics), "--log-file", logf,
               sys.executable, os.path.join(HERE, "runspec.py"), "--no-write", "--timeout", "60",
               "--status-json", statf, "--list", listf]
        t = time.time()
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 errors="replace", start_new_session=True)
            try:
                stdout, _ = p.communicate(timeout=timeout)
                rc = p.returncode
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                stdout, _ = p.communicate()
                rc = 124
        except FileNotFoundError as e:
            return 127, str(e), "", {}
        text = open(logf, errors="replace").read() if os.path.exists(logf) else ""
        status = {}
        if os.path.exists(statf):
            with open(statf) as f:
                status = json.load(f)
        log(f"  ncu {tag}: {len(specs)} specs, exit {rc}, {time.time() - t:.1f}s")
        for p_ in (listf, logf, statf):
            if os.path.exists(p_):
                os.remove(p_)
        return rc, text, stdout or "", status

    def _drop_unknown_flag(self, text):
        """ncu refused one of our optional flags: drop it (and its value)."""
        m = re.search(r"(?:unrecogni[sz]ed|unknown|invalid) (?:option|argument)[^\n]*?(--[\w-]+)",
                      text, re.I)
        if not m or m.group(1) not in self.flags:
            return False
        flag = m.group(1)
        if flag in ("--csv", "--page", "--metrics"):
            return False
        i = self.flags.index(flag)
        takes_value = flag != "--csv"
        del self.flags[i:i + (2 if takes_value else 1)]
        self.dropped["flag " + flag] = "rejected by ncu"
        log(f"  ncu: dropped option {flag}; retrying")
        return True

    def _probe(self, spec, metrics, tag):
        """Does ncu accept these metrics? (one-spec run)"""
        saved = self.metrics
        self.metrics = metrics
        try:
            rc, text, stdout, _ = self._run([spec], tag, timeout=max(10.0, min(90.0, self.remaining())))
        finally:
            self.metrics = saved
        hdr, rows = _ncu_csv_rows(text + "\n" + stdout)
        return rc == 0 and hdr is not None and len(rows) > 0

    def _bisect_bad(self, spec, metrics, depth=0):
        if self.remaining() < 30 or self.probes_left <= 0:
            return []
        self.probes_left -= 1
        if self._probe(spec, metrics, f"probe{depth}"):
            return []
        if len(metrics) == 1:
            return metrics
        h = len(metrics) // 2
        return self._bisect_bad(spec, metrics[:h], depth + 1) + \
            self._bisect_bad(spec, metrics[h:], depth + 1)

    def variant(self, v, specs):
        """specs: [(case name, spec path, mangled kernel, plain name)] in launch order.
        Returns ({case: launch index}, error or None)."""
        header, units, rows_all, launches, errors = None, None, [], [], []
        launch_of = {}
        # Chunks are sized from the measured cost per launch so that the last
        # one still fits the time budget (ncu prints its CSV only at the end:
        # a chunk killed by the deadline yields nothing).
        i, ci, per_spec, overhead = 0, 0, None, 10.0
        while i < len(specs):
            rem = self.remaining()
            if rem < 25:
                errors.append(f"launches {i}..{len(specs) - 1}: skipped (time budget spent)")
                log(f"  ncu {v}: {len(specs) - i} specs skipped, time budget spent")
                break
            if per_spec is None:
                size = min(self.chunk, 12)
            else:
                size = int((rem - overhead - 15) / per_spec)
                size = max(1, min(self.chunk, size))
            chunk = specs[i:i + size]
            i += len(chunk)
            paths = [x[1] for x in chunk]
            for attempt in range(4):
                t_start = time.time()
                rc, text, stdout, status = self._run(paths, f"{v}.{ci}", timeout=self.remaining() - 5)
                elapsed = time.time() - t_start
                self.logs.append(f"### {v} chunk {ci} attempt {attempt} exit {rc}\n" + "\n".join(
                    ln for ln in (text + "\n" + stdout).splitlines()
                    if ln.startswith("==") or ln.startswith("FAIL")))
                hdr, rows = _ncu_csv_rows(text + "\n" + stdout)
                if hdr is not None and rows:
                    per_spec = max(0.05, (elapsed - overhead) / len(chunk))
                    break
                if self._drop_unknown_flag(text + "\n" + stdout):
                    continue
                both = text + "\n" + stdout
                if re.search(r"ERR_NVGPUCTRPERM|permission to access", both, re.I):
                    self.fatal = "no permission to read GPU performance counters (ERR_NVGPUCTRPERM)"
                    break
                bad = _bad_metrics(both, self.metrics)
                if (not bad and rc not in (124, 127) and attempt == 0 and self.remaining() > 60
                        and re.search(r"metric", both, re.I)):
                    log("  ncu produced no CSV; looking for metrics it rejects")
                    self.probes_left = 12
                    bad = set(self._bisect_bad(paths[0], self.metrics))
                if not bad:
                    break
                for m in bad:
                    self.dropped[m] = "rejected by ncu"
                self.metrics = [m for m in self.metrics if m not in bad]
                log(f"  ncu: dropped {len(bad)} metric(s): {', '.join(sorted(bad))}; retrying")
            ci += 1
            if self.fatal:
                errors.append(self.fatal)
                break
            if hdr is None or not rows:
                tail = " ".join((text + " " + stdout).split())[-400:]
                errors.append(f"chunk {ci - 1}: no ncu rows (exit {rc}): {tail}")
                if rc == 127:
                    break
                continue
            if header is None:
                header = hdr
            if rows and rows[0] and rows[0][0] == "":
                if units is None:
                    units = rows[0]
                rows = rows[1:]
            # Rows follow the specs that ran ok under ncu, in order; match by name.
            ok_specs = [x for x in chunk if status.get(os.path.abspath(x[1])) == "ok"] \
                if status else chunk
            kcol = hdr.index("Kernel Name") if "Kernel Name" in hdr else None
            j = 0
            for r in rows:
                if hdr != header:
                    r = [dict(zip(hdr, r)).get(h, "") for h in header]
                name = r[kcol] if kcol is not None and kcol < len(r) else None
                while j < len(ok_specs) and name is not None and not _same_kernel(name, ok_specs[j]):
                    j += 1
                case = ok_specs[j][0] if j < len(ok_specs) else None
                idx = len(rows_all)
                orig_id = r[0]
                r = list(r)
                r[0] = str(idx)
                rows_all.append(r)
                launches.append({"launch": idx, "case": case, "kernel": name, "chunk": ci - 1,
                                 "ncu_id": orig_id})
                if case is not None:
                    launch_of[case] = idx
                    j += 1
                else:
                    errors.append(f"launch {idx}: kernel {name} matches no case")
        if header is not None:
            with open(os.path.join(self.dir, f"{v}.csv"), "w", newline="") as f:
                w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
                w.writerow(header)
                if units is not None:
                    w.writerow(units)
                w.writerows(rows_all)
        write_json(os.path.join(self.dir, f"{v}.launches.json"), launches)
        return launch_of, errors


# ---------------------------------------------------------------------------
# Main

def size_of(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


def make_tar(out, tar_path, exclude=()):
    base = os.path.basename(os.path.normpath(out))
    skip = {"gen"} | set(exclude)

    def filt(ti):
        parts = ti.name.split("/")
        if len(parts) > 1 and parts[1] in skip:
            return None
        if "__pycache__" in parts or parts[-1].startswith(".") and parts[-1] != base:
            return None
        return ti

    os.makedirs(os.path.dirname(os.path.abspath(tar_path)), exist_ok=True)
    with tarfile.open(tar_path, "w:gz", compresslevel=9) as tf:
        tf.add(out, arcname=base, filter=filt)
    return os.path.getsize(tar_path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    ap.add_argument("--tar", help="write a gzip tarball of the outputs here")
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--dry-run", action="store_true", help="no nvcc, ptxas or GPU")
    ap.add_argument("--compile-only", action="store_true", help="compile and write specs; no GPU")
    ap.add_argument("--no-ncu", action="store_true", help="skip Nsight Compute")
    ap.add_argument("--ncu-only", action="store_true",
                    help="only collect ncu counters for an existing run (reads manifest.json)")
    ap.add_argument("--ncu-variants", default=",".join(VARIANTS), help="variants to profile, in order")
    ap.add_argument("--ncu-chunk", type=int, default=60, help="specs per ncu process")
    ap.add_argument("--no-targets", action="store_true", help="skip the parse-only ptx_targets/")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 4))
    ap.add_argument("--budget", type=float, default=480.0,
                    help="seconds for the whole run; ncu gets what is left")
    ap.add_argument("--spec-timeout", type=float, default=60.0, help="seconds per spec on the GPU")
    args = ap.parse_args(argv)

    out = os.path.abspath(args.out)
    if os.path.abspath(out) == os.path.abspath(HERE):
        ap.error("--out must not be the generator directory")
    os.makedirs(out, exist_ok=True)
    deadline = T0 + args.budget
    selected = C.CASES
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in {c.name for c in C.CASES}]
        if unknown:
            ap.error(f"unknown case(s): {', '.join(unknown)}")
        selected = [c for c in C.CASES if c.name in names]
    manifest_path = os.path.join(out, "manifest.json")

    if args.ncu_only:
        find_tools()
        with open(manifest_path) as f:
            manifest = json.load(f)
        collect_ncu(out, manifest, selected, args, deadline)
        write_json(manifest_path, manifest)
        finish(out, manifest, args)
        return 0

    dry = args.dry_run
    if not args.only:
        # A full run replaces everything it generates (never gen/ itself).
        for d in GENERATED_DIRS:
            shutil.rmtree(os.path.join(out, d), ignore_errors=True)
    with Phase("toolchain"):
        if not dry:
            find_tools()
        tool = toolchain(dry)
    mods = []
    for c in selected:
        if c.module not in mods:
            mods.append(c.module)
    compile_status, ptx_info = {}, {}
    if not dry:
        with Phase("compile"):
            compile_status = compile_all(out, mods, args.jobs, targets=not args.no_targets)
            for m in mods:
                for v in VARIANTS:
                    p = os.path.join(out, "ptx", f"{m}.{v}.ptx")
                    if compile_status.get((m, v)) == "ok":
                        with open(p) as f:
                            ptx_info[(m, v)] = parse_ptx(f.read())
    ptxas_info = {}
    for m in mods:
        for v in VARIANTS:
            p = os.path.join(out, "ptxas", f"{m}.{v}.txt")
            if not dry and os.path.isfile(p):
                with open(p) as f:
                    ptxas_info[(m, v)] = parse_ptxas(f.read())

    with Phase("specs"):
        per_case = {}
        for c in selected:
            per_case[c.name] = write_case(out, c, dry, ptx_info, compile_status)
        nerr = sum(1 for r in per_case.values() for i in r.values() if i["error"])
        log(f"  {len(selected)} cases, {len(selected) * len(VARIANTS)} specs, {nerr} not runnable")
        for name, r in per_case.items():
            for v, i in r.items():
                if i["error"]:
                    log(f"  {name} {v}: {i['error']}")

    # The manifest skeleton.
    manifest = {
        "generator": {"version": GEN_VERSION, "command": " ".join([os.path.basename(sys.argv[0])] +
                                                                   (argv if argv is not None else sys.argv[1:]))},
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "corpus": CORPUS,
        "dry_run": dry,
        "toolchain": tool,
        "arch": ARCH,
        "variants": {v: " ".join(["nvcc", "-ptx", f"-arch={ARCH}", *f, "-std=c++17"])
                     for v, f in VARIANTS.items()},
        "runner": "runspec.py (CuPy RawModule(path=ptx): the driver JIT-compiles the PTX)",
        "cases": [],
    }
    if not dry and compile_status:
        manifest["compile"] = {f"{m}.{v}": s for (m, v), s in sorted(compile_status.items())}
    coverage = {}
    for c in selected:
        r = per_case[c.name]
        entry = {
            "name": c.name, "issue": c.issue, "module": c.module, "kernel": c.kernel,
            "mangled": {v: r[v]["kernel"] for v in VARIANTS},
            "variants": list(VARIANTS),
            "description": c.desc, "families": c.families,
            "tolerance": c.tolerance,
            "grid": c.grid, "block": c.block, "dynamic_shared_bytes": c.dyn_smem,
            "spec": {v: r[v]["spec"] for v in VARIANTS},
            "status": {v: (r[v]["error"] or ("dry-run" if dry else ("compiled" if args.compile_only
                                                                      else "pending")))
                       for v in VARIANTS},
        }
        if not dry:
            entry["ptxas"], entry["approx_ops"] = {}, {}
            for v in VARIANTS:
                k = r[v]["kernel"]
                funcs = ptx_info.get((c.module, v))
                if funcs and k in funcs:
                    ops = kernel_opcodes(funcs, k)
                    entry["approx_ops"][v] = approx_ops(ops)
                    if v == "O3":
                        entry["opcodes_O3"] = sorted(ops)
                        for o in ops:
                            coverage.setdefault(o, []).append(c.name)
                    pi = ptxas_info.get((c.module, v), {})
                    if k in pi:
                        entry["ptxas"][v] = pi[k]
        manifest["cases"].append(entry)
    if coverage:
        manifest["opcode_coverage_O3"] = {o: len(v) for o, v in sorted(coverage.items())}
    write_json(manifest_path, manifest)

    if not dry and not args.compile_only:
        with Phase("run"):
            todo = []
            for v in VARIANTS:
                for e in manifest["cases"]:
                    if e["status"][v] == "pending":
                        todo.append((e, v, os.path.join(out, e["spec"][v])))
            res = runspec.run_batch([p for _, _, p in todo], write=True, timeout=args.spec_timeout,
                                    log=lambda s: log("  " + s.replace(out + os.sep, "")))
            for e, v, p in todo:
                e["status"][v] = res.get(os.path.abspath(p), "not run")
        write_json(manifest_path, manifest)
        if not args.no_ncu:
            collect_ncu(out, manifest, selected, args, deadline)
            write_json(manifest_path, manifest)
    finish(out, manifest, args)
    return 0


CYCLES_METRIC = "sm__cycles_elapsed.max"


def ncu_column(csv_path, metric):
    """{launch index: value} of one metric column of ncu/<variant>.csv
    (numbers as int or float; absent file or column: {})."""
    if not os.path.isfile(csv_path):
        return {}
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or metric not in rows[0]:
        return {}
    j = rows[0].index(metric)
    out = {}
    for r in rows[1:]:
        if not r or not r[0].isdigit() or j >= len(r):
            continue
        v = r[j].replace(",", "")
        try:
            out[int(r[0])] = int(v) if v.isdigit() else float(v)
        except ValueError:
            pass
    return out


def collect_ncu(out, manifest, selected, args, deadline):
    names = {c.name for c in selected}
    with Phase("ncu"):
        if shutil.which("ncu") is None:
            manifest["ncu"] = {"error": "ncu not found"}
            log("  ncu not found: skipped")
            return
        ncu = Ncu(out, deadline - 15, args.ncu_chunk)
        info = manifest.get("ncu") if isinstance(manifest.get("ncu"), dict) else {}
        info.pop("error", None)
        info.update(requested_flags=NCU_FLAGS, requested_metrics=NCU_METRICS)
        info.setdefault("variants", {})
        for v in [x.strip() for x in args.ncu_variants.split(",") if x.strip()]:
            if v not in VARIANTS:
                continue
            specs = [(e["name"], os.path.join(out, e["spec"][v]), e["mangled"][v], e["kernel"])
                     for e in manifest["cases"]
                     if e["name"] in names and e["status"].get(v) == "ok"]
            if not specs:
                continue
            if ncu.fatal:
                info["variants"][v] = {"errors": [ncu.fatal]}
                continue
            launch_of, errors = ncu.variant(v, specs)
            cycles = ncu_column(os.path.join(out, "ncu", f"{v}.csv"), CYCLES_METRIC)
            for e in manifest["cases"]:
                if e["name"] in names:
                    e.get("ncu", {}).pop(v, None)
                if e["name"] in launch_of:
                    rec = {"launch": launch_of[e["name"]]}
                    c = cycles.get(launch_of[e["name"]])
                    if c is not None:
                        rec[CYCLES_METRIC] = c
                    e.setdefault("ncu", {})[v] = rec
            vinfo = {"profiled": len(launch_of), "of": len(specs), "errors": errors}
            if os.path.isfile(os.path.join(out, "ncu", f"{v}.csv")):
                vinfo.update(csv=f"ncu/{v}.csv", launches=f"ncu/{v}.launches.json")
            info["variants"][v] = vinfo
            log(f"  ncu {v}: {len(launch_of)}/{len(specs)} launches mapped"
                + (f", {len(errors)} problem(s)" if errors else ""))
            for er in errors[:10]:
                log(f"    {er}")
        info["flags"] = ncu.flags
        info["metrics"] = ncu.metrics
        info["dropped"] = ncu.dropped
        info["settings"] = ("--clock-control none; default --cache-control all (caches flushed "
                            "before each replay pass) and --replay-mode kernel")
        with open(os.path.join(out, "ncu", "ncu.log"), "a") as f:
            f.write("\n".join(ncu.logs) + "\n")
        manifest["ncu"] = info


def finish(out, manifest, args):
    manifest["elapsed_s"] = round(time.time() - T0, 1)
    write_json(os.path.join(out, "manifest.json"), manifest)
    if args.tar:
        with Phase("tar"):
            size = make_tar(out, args.tar)
            if size > TAR_LIMIT:
                log(f"  {size / 2**20:.2f} MiB is over 16 MiB: leaving out sass/")
                size = make_tar(out, args.tar, exclude=("sass",))
            if size > TAR_LIMIT:
                log(f"  {size / 2**20:.2f} MiB is over 16 MiB: leaving out ptx_targets/ too")
                size = make_tar(out, args.tar, exclude=("sass", "ptx_targets"))
            log(f"  {args.tar}: {size} bytes ({size / 2**20:.2f} MiB)"
                + ("  ** OVER 16 MiB **" if size > TAR_LIMIT else ""))
    # Summary: the last lines of output.
    cases = manifest["cases"]
    log("")
    failed = [(e["name"], v, s) for e in cases for v, s in e["status"].items()
              if s not in ("ok", "dry-run", "compiled", "pending")]
    if failed:
        log("not ok:")
        for n, v, s in failed:
            log(f"  {n} [{v}]: {s[:300]}")
    big = [(e["name"], e["ncu"][v][CYCLES_METRIC]) for e in cases for v in list(VARIANTS)[:1]
           if CYCLES_METRIC in e.get("ncu", {}).get(v, {})]
    if big:
        first = list(VARIANTS)[0]
        big.sort(key=lambda x: -x[1])
        n30 = sum(1 for _, c in big if c >= 30000)
        log(f"{CYCLES_METRIC} [{first}]: {n30} launches >= 30000 cycles; largest: " +
            ", ".join(f"{n} {c:.0f}" for n, c in big[:16]))
    issues = {}
    for e in cases:
        issues[e["issue"]] = issues.get(e["issue"], 0) + 1
    log(f"{CORPUS} cases: {len(cases)} (" +
        ", ".join(f"issue {k}: {n}" for k, n in sorted(issues.items())) +
        f"); elapsed {manifest['elapsed_s']}s")
    log(f"{'variant':8} {'cases':>6} {'ok':>6} {'failed':>7} {'unrun':>6} {'ncu':>6}")
    for v in VARIANTS:
        sts = [e["status"].get(v, "") for e in cases]
        ok = sum(1 for s in sts if s == "ok")
        unrun = sum(1 for s in sts if s in ("dry-run", "compiled", "pending"))
        prof = sum(1 for e in cases if v in e.get("ncu", {}))
        log(f"{v:8} {len(cases):6d} {ok:6d} {len(cases) - ok - unrun:7d} {unrun:6d} {prof:6d}")

if __name__ == "__main__":
    sys.exit(main())
