#!/usr/bin/env python3
"""Build the perf ground-truth corpus (memory hierarchy and timing) on a GPU machine.

    python3 testdata/perf/gen/gen.py --out testdata/perf --tar $OUT/perf.tgz

Phases, in order of priority (each prints its elapsed time; the ncu phases
stop when the --budget is spent, lowest-priority work first lost):
  toolchain  versions, GPU, nvidia-smi clocks; ncu --query-metrics (query/)
  compile    kernels -> ptx/<module>.<variant>.ptx, ptxas -v (ptxas/), SASS
             (sass/); micro/micro.cu -> a binary, its ptxas -v and SASS
  specs      cases/<case>/<variant>/spec.json (+ inputs/*.bin for small
             pattern buffers; large buffers use `fill`)
  run        every spec once -> expected/ (.bin, or .sha256 above 256 KiB)
  micro      the microbenchmarks -> micro/results.json; empty-kernel launches
             under ncu -> micro/ncu_launch.csv
  ncu        calib O3 (TIMING metrics) -> ncu/calib.O3.csv
             access O3 (HIER metrics)  -> ncu/access.O3.csv
             repeats: calib O3 x 3 (cycle counters only) -> ncu/repeat.O3.csv
  source     per-SASS-instruction counters of the mission kernels ->
             ncu/source/<variant>.<view>.csv
  ncu G      calib G (HIER metrics) -> ncu/calib.G.csv
  events     calib O3 and G: 10 CUDA-event timings each -> timing/events.json
  manifest   compact() (outputs above 8 KiB as .sha256, bulky text gzipped),
             manifest.json, then the tarball (--tar)

--supplement: a second call on the corpus the first left: per-instruction
counters of every calibration launch (ncu/source/calib.O3.*, opcode mixes)
and the microbenchmark chains under ncu (micro/ncu_ops.csv.gz).

--dry-run: no nvcc, no GPU (inputs and specs only; kernels unresolved).
--compile-only: compiles and resolves kernels, runs nothing on a GPU.
--only a,b on a corpus with a manifest.json: records those cases and merges
them into it (class Merge): the other cases, their ncu rows and timings stay.
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

import metrics as M  # noqa: E402  (loads testdata/nvcc/gen/gen.py as nvcc_gen)

NG = M.nvcc_gen                      # the nvcc corpus generator: PTX/ptxas/ncu helpers
sys.path.insert(0, M.NVCC_GEN_DIR)
import runspec  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, HERE)
import perfcases as C  # noqa: E402

GEN_VERSION = "1.0"
ARCH = "sm_90"
VARIANTS = {"O3": ["-O3", "-lineinfo"], "G": ["-G"]}
KERNELS_DIR = os.path.join(HERE, "kernels")
MICRO_SRC = os.path.join(HERE, "micro", "micro.cu")
NCU_BASE_FLAGS = ["--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base", "mangled",
                  "--clock-control", "none", "--target-processes", "all"]
TAR_LIMIT = 16 * 1024 * 1024
GENERATED = ("cases", "ptx", "ptxas", "sass", "ncu", "logs", "query", "timing")
MICRO_GENERATED = ("results.json", "raw.jsonl", "micro.sass", "ptxas.txt", "ncu_launch.csv",
                   "ncu_launch.log", "run.log")

T0 = time.time()


def log(msg=""):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


PHASE_ERRORS = []


class Phase:
    """Times a phase; an exception inside it is logged and recorded
    (PHASE_ERRORS, then manifest.json) and the run goes on with the next."""

    def __init__(self, name, timings):
        self.name, self.timings = name, timings

    def __enter__(self):
        self.t = time.time()
        log(f"== {self.name}")
        return self

    def __exit__(self, et, ev, tb):
        dt = time.time() - self.t
        self.timings[self.name] = round(self.timings.get(self.name, 0) + dt, 1)
        if et is not None and issubclass(et, Exception):
            import traceback
            msg = "".join(traceback.format_exception(et, ev, tb))
            PHASE_ERRORS.append({"phase": self.name, "error": msg[-2000:]})
            log(f"== {self.name}: {dt:.1f}s FAILED\n{msg}")
            return True
        log(f"== {self.name}: {dt:.1f}s")
        return False


def run(cmd, timeout=None, cwd=None, env=None):
    """(returncode, combined output); never raises."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, cwd=cwd, errors="replace", env=env)
        return p.returncode, p.stdout
    except FileNotFoundError as e:
        return 127, str(e)
    except subprocess.TimeoutExpired as e:
        out = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode("utf-8", "replace")
        return 124, (out or "") + f"\n[timeout after {timeout}s]"


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def rel(path, start):
    return os.path.relpath(path, start).replace(os.sep, "/")


def module_source(m):
    if m in C.MISSION_MODULES:
        return os.path.join(M.NVCC_GEN_DIR, "kernels", m + ".cu")
    return os.path.join(KERNELS_DIR, m + ".cu")


# ---------------------------------------------------------------------------
# Toolchain, query

def toolchain(out):
    info = {}
    for key, cmd in (("nvcc_version", ["nvcc", "--version"]), ("ptxas_version", ["ptxas", "--version"]),
                     ("ncu_version", ["ncu", "--version"]),
                     ("nvdisasm_version", ["nvdisasm", "--version"])):
        rc, o = run(cmd, timeout=60)
        info[key] = o.strip() if rc == 0 else f"unavailable: {o.strip()[-200:]}"
    rc, o = run(["nvidia-smi", "--query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,"
                 "clocks.mem,clocks.max.mem,power.limit,pstate,temperature.gpu,ecc.mode.current",
                 "--format=csv"], timeout=60)
    info["nvidia_smi_start"] = o.strip()
    if rc == 0 and len(o.strip().splitlines()) > 1:
        parts = [p.strip() for p in o.strip().splitlines()[1].split(",")]
        info["gpu"], info["driver_version"] = parts[0], parts[1]
    rc, o = run([sys.executable, "-c", "import cupy, numpy, sys; print(cupy.__version__, numpy.__version__)"],
                timeout=120)
    if rc == 0 and o.strip():
        v = o.strip().splitlines()[-1].split()
        info["cupy_version"], info["numpy_version"] = v[0], v[-1]
    info["python"] = sys.version.split()[0]
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    rc, o = run(["nvidia-smi", "-q", "-d", "CLOCK,PERFORMANCE,POWER"], timeout=60)
    with open(os.path.join(out, "logs", "nvidia-smi.start.txt"), "w") as f:
        f.write(o)
    for k in ("gpu", "driver_version", "ncu_version", "cupy_version"):
        log(f"  {k}: {str(info.get(k, '?')).splitlines()[-1]}")
    return info


def query_metrics(out):
    """ncu --query-metrics for gh100 (base names), and the suffixes of every
    base name we use. Returns the set of base names (None if the query failed)."""
    qdir = os.path.join(out, "query")
    os.makedirs(qdir, exist_ok=True)
    rc, o = run(["ncu", "--query-metrics", "--chip", "gh100"], timeout=120)
    with open(os.path.join(qdir, "metrics_gh100.txt"), "w") as f:
        f.write("$ ncu --query-metrics --chip gh100\n" + o)
    names = set()
    for line in o.splitlines():
        w = line.split()
        if w and re.match(r"^[a-z0-9_]+__[a-z0-9_]+$", w[0]):
            names.add(w[0])
    bases = sorted({M.base_name(m) for m in M.TIMING + M.REPEAT
                    if not m.startswith(M.UNLISTED_PREFIXES)})
    rc2, o2 = run(["ncu", "--query-metrics-mode", "suffix", "--chip", "gh100", "--metrics",
                   ",".join(bases)], timeout=120)
    with open(os.path.join(qdir, "metrics_gh100_suffix.txt"), "w") as f:
        f.write("$ ncu --query-metrics-mode suffix --chip gh100 --metrics <the base names of "
                "testdata/perf/gen/metrics.py>\n" + o2)
    log(f"  query: {len(names)} base metrics (exit {rc}), suffix query exit {rc2}")
    return names if rc == 0 and names else None


# ---------------------------------------------------------------------------
# Compile

def compile_all(out, mods, jobs):
    """{(module, variant): "ok" | error}; writes ptx/, ptxas/, sass/, logs/nvcc/."""
    ptx_dir, logs = os.path.join(out, "ptx"), os.path.join(out, "logs", "nvcc")
    for d in (ptx_dir, logs, os.path.join(out, "ptxas"), os.path.join(out, "sass")):
        os.makedirs(d, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="perf.cubin.")

    def one(key):
        m, v = key
        src = module_source(m)
        dst = os.path.join(ptx_dir, f"{m}.{v}.ptx")
        # From the repository's root with relative paths: the .file
        # directives and the log name no machine folder (NG.relativize_ptx).
        cmd = ["nvcc", "-ptx", f"-arch={ARCH}", *VARIANTS[v], "-std=c++17", NG.repo_rel(src), "-o", NG.repo_rel(dst)]
        rc, o = run(cmd, timeout=300, cwd=NG.REPO)
        with open(os.path.join(logs, f"{m}.{v}.log"), "w") as f:
            f.write(" ".join(cmd) + "\n" + o)
        if rc != 0 or not os.path.isfile(dst):
            return key, f"nvcc failed (exit {rc}): " + " ".join(o.split())[-400:]
        NG.relativize_ptx(dst)
        cubin = os.path.join(tmp, f"{m}.{v}.cubin")
        cmd = ["ptxas", f"-arch={ARCH}", "-v", dst, "-o", cubin]
        rc, o = run(cmd, timeout=300)
        with open(os.path.join(out, "ptxas", f"{m}.{v}.txt"), "w") as f:
            f.write(f"ptxas -arch={ARCH} -v {m}.{v}.ptx\n" + o)
        if rc != 0:
            return key, f"ptxas failed (exit {rc}): " + " ".join(o.split())[-400:]
        tool = ["nvdisasm", "-c", cubin]
        rc, sass = run(tool, timeout=300)
        if rc != 0:
            tool = ["cuobjdump", "-sass", cubin]
            rc, sass = run(tool, timeout=300)
        if rc == 0:
            with open(os.path.join(out, "sass", f"{m}.{v}.sass"), "w") as f:
                f.write(f"// {tool[0]} {' '.join(tool[1:-1])} of ptxas -arch={ARCH} {m}.{v}.ptx\n" + sass)
        return key, "ok" if rc == 0 else f"disassembly failed (exit {rc})"

    keys = sorted({(c.module, v) for c in C.CASES for v in c.variants if c.module in mods})
    status = {}
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        for key, st in ex.map(one, keys):
            status[key] = st
            if st != "ok":
                log(f"  {key[0]}.{key[1]}: {st}")
    shutil.rmtree(tmp, ignore_errors=True)
    log(f"  modules: {sum(1 for s in status.values() if s == 'ok')}/{len(status)} ok")
    return status


def compile_micro(out, build, record=True):
    """nvcc micro.cu -> build/micro; micro/ptxas.txt and micro/micro.sass
    (in build/ instead when record is false)."""
    mdir = os.path.join(out, "micro") if record else build
    os.makedirs(mdir, exist_ok=True)
    os.makedirs(build, exist_ok=True)
    exe = os.path.join(build, "micro")
    cmd = ["nvcc", "-O3", f"-arch={ARCH}", "-lineinfo", "-std=c++17", "-Xptxas", "-v", MICRO_SRC, "-o", exe]
    rc, o = run(cmd, timeout=400)
    with open(os.path.join(mdir, "ptxas.txt"), "w") as f:
        f.write("nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -Xptxas -v micro.cu -o micro\n" + o)
    if rc != 0:
        return f"nvcc failed (exit {rc}): " + " ".join(o.split())[-400:]
    rc, sass = run(["cuobjdump", "-sass", exe], timeout=300)
    if rc == 0:
        with open(os.path.join(mdir, "micro.sass"), "w") as f:
            f.write("// cuobjdump -sass micro\n" + sass)
    return "ok"


SASS_OP_RE = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)")


def sass_opcode_counts(text):
    """{function: {opcode: count}} from cuobjdump -sass or nvdisasm output."""
    counts, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line) or re.match(r"^\s*\.text\.(\S+):", line)
        if m:
            cur = m.group(1)
            counts.setdefault(cur, {})
            continue
        m = SASS_OP_RE.match(line)
        if m and cur:
            d = counts[cur]
            d[m.group(1)] = d.get(m.group(1), 0) + 1
    return counts


# ---------------------------------------------------------------------------
# Specs

def write_case(out, case, ptx_info, compile_status, dry):
    """inputs/ and one spec per variant; {variant: {"spec", "kernel", "error"}}."""
    cdir = os.path.join(out, "cases", case.name)
    idir = os.path.join(cdir, "inputs")
    shutil.rmtree(cdir, ignore_errors=True)
    files = {}
    for b in case.buffers + case.symbols:
        if b.data is not None:
            os.makedirs(idir, exist_ok=True)
            fn = ("sym_" if b in case.symbols else "") + b.name + ".bin"
            np.ascontiguousarray(b.data).astype(runspec.DTYPES[b.type]).tofile(os.path.join(idir, fn))
            files[id(b)] = fn
    res = {}
    for v in case.variants:
        vdir = os.path.join(cdir, v)
        os.makedirs(vdir)
        info = {"spec": rel(os.path.join(vdir, "spec.json"), out), "kernel": case.kernel, "error": None}
        if not dry:
            st = compile_status.get((case.module, v), "not compiled")
            funcs = ptx_info.get((case.module, v))
            if st != "ok" or funcs is None:
                info["error"] = f"compile: {st}"
            else:
                try:
                    info["kernel"] = NG.resolve_kernel(funcs, case.kernel)
                    bad = NG.check_params(case, funcs[info["kernel"]]["params"])
                    if bad:
                        info["error"] = f"args do not match the kernel's .params: {bad}"
                except ValueError as e:
                    info["error"] = f"kernel: {e}"

        def bufspec(b):
            d = {"name": b.name, "type": b.type, "count": b.count}
            if id(b) in files:
                d["file"] = "../inputs/" + files[id(b)]
            elif b.fill is not None:
                d["fill"] = b.fill
            return d

        spec = {"module": f"../../../ptx/{case.module}.{v}.ptx", "kernel": info["kernel"],
                "grid": case.grid, "block": case.block, "dynamic_shared_bytes": case.dyn_smem,
                "buffers": [bufspec(b) for b in case.buffers]}
        if case.symbols:
            spec["symbols"] = [bufspec(s) for s in case.symbols]
        if case.textures:
            spec["textures"] = [t.spec() for t in case.textures]
        spec["args"] = [{k: val} for k, val in case.args]
        spec["outputs"] = case.outputs
        write_json(os.path.join(vdir, "spec.json"), spec)
        problems = runspec.validate_spec(spec, vdir, check_files=True)
        if problems:
            info["error"] = "spec: " + "; ".join(problems)
        res[v] = info
    return res


# ---------------------------------------------------------------------------
# Nsight Compute

def bad_metrics(text, metrics):
    """Metrics that an ncu error or warning line names (backslash-escaped
    regex forms and bare base names count too)."""
    bad = set(NG._bad_metrics(text, metrics))
    for line in text.splitlines():
        if "==ERROR==" not in line and "==WARNING==" not in line:
            continue
        flat = line.replace("\\", "")
        for m in metrics:
            if m in bad:
                continue
            for name in (m, M.base_name(m)):
                if re.search(r"(?<![\w.])" + re.escape(name) + r"(?![\w])", flat):
                    bad.add(m)
                    break
    return bad


class Ncu:
    """Runs runspec.py under ncu in chunks, maps CSV rows to launches, drops
    metrics that ncu rejects."""

    def __init__(self, out, deadline):
        self.out = out
        self.dir = os.path.join(out, "ncu")
        os.makedirs(self.dir, exist_ok=True)
        self.deadline = deadline
        self.logs = []
        self.dropped = {}
        self.fatal = None

    def remaining(self):
        return self.deadline - time.time()

    def _run(self, specs, tag, metrics, extra, timeout, timeout_spec=60):
        tmp = os.path.join(self.dir, ".tmp")
        os.makedirs(tmp, exist_ok=True)
        listf = os.path.join(tmp, f"{tag}.list")
        with open(listf, "w") as f:
            f.write("\n".join(specs) + "\n")
        logf, statf = os.path.join(tmp, f"{tag}.log"), os.path.join(tmp, f"{tag}.status.json")
        for p in (logf, statf):
            if os.path.exists(p):
                os.remove(p)
        cmd = ["ncu", *NCU_BASE_FLAGS, *extra]
        if metrics:
            cmd += ["--metrics", ",".join(metrics)]
        cmd += ["--log-file", logf, sys.executable, os.path.join(M.NVCC_GEN_DIR, "runspec.py"),
                "--no-write", "--timeout", str(timeout_spec), "--status-json", statf, "--list", listf]
        t = time.time()
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 errors="replace", start_new_session=True)
            try:
                stdout, _ = p.communicate(timeout=max(5.0, timeout))
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
        self.logs.append(f"### {tag} exit {rc} ({time.time() - t:.1f}s)\n" + "\n".join(
            ln for ln in (text + "\n" + (stdout or "")).splitlines()
            if ln.startswith("==") or ln.startswith("FAIL")))
        return rc, text, stdout or "", status

    def accept(self, name, metrics, spec, extra):
        """Probe the metric list on one spec; drop what ncu rejects. Returns the
        accepted list (possibly shorter), or None when ncu does not work at all."""
        metrics = list(metrics)
        for attempt in range(6):
            if self.remaining() < 20:
                return metrics
            rc, text, stdout, _ = self._run([spec], f"probe.{name}.{attempt}", metrics, extra,
                                            timeout=min(120.0, self.remaining() - 10))
            both = text + "\n" + stdout
            hdr, rows = NG._ncu_csv_rows(both)
            if hdr is not None and rows:
                missing = [m for m in metrics if m not in hdr]
                for m in missing:
                    self.dropped.setdefault(m, f"not reported by ncu ({name})")
                return metrics
            if re.search(r"ERR_NVGPUCTRPERM|permission to access", both, re.I):
                self.fatal = "no permission to read GPU performance counters (ERR_NVGPUCTRPERM)"
                return None
            bad = bad_metrics(both, metrics)
            if not bad and re.search(r"metric", both, re.I) and attempt < 5:
                bad = set(self._bisect(name, spec, metrics, extra, 0, budget=[10]))
            if not bad:
                log(f"  ncu probe {name}: no CSV and no rejected metric found (exit {rc}): "
                    + " ".join(both.split())[-300:])
                return None if rc in (127,) else metrics
            for m in bad:
                self.dropped[m] = f"rejected by ncu ({name})"
            metrics = [m for m in metrics if m not in bad]
            log(f"  ncu {name}: dropped {len(bad)} rejected metric(s): {', '.join(sorted(bad))}")
        return metrics

    def _bisect(self, name, spec, metrics, extra, depth, budget):
        if budget[0] <= 0 or self.remaining() < 30:
            return []
        budget[0] -= 1
        rc, text, stdout, _ = self._run([spec], f"bisect.{name}.{depth}", metrics, extra,
                                        timeout=min(90.0, self.remaining() - 10))
        hdr, rows = NG._ncu_csv_rows(text + "\n" + stdout)
        if hdr is not None and rows:
            return []
        if len(metrics) == 1:
            return metrics
        h = len(metrics) // 2
        return (self._bisect(name, spec, metrics[:h], extra, depth + 1, budget) +
                self._bisect(name, spec, metrics[h:], extra, depth + 1, budget))

    def collect(self, name, entries, metrics, extra, stop_at, chunk_max=40, timeout_spec=60):
        """entries: [{"case", "variant", "spec", "kernel", "plain", ...}] in launch order.
        Writes ncu/<name>.csv and ncu/<name>.launches.json. Returns (launches, errors)."""
        header, units, rows_all, launches, errors = None, None, [], [], []
        i, ci, per_spec, overhead = 0, 0, None, 8.0
        while i < len(entries):
            rem = stop_at - time.time()
            if rem < 20:
                errors.append(f"{len(entries) - i} launches not profiled: time budget spent")
                log(f"  ncu {name}: {len(entries) - i} launches skipped (time budget)")
                break
            size = min(chunk_max, 8) if per_spec is None else \
                max(1, min(chunk_max, int((rem - overhead - 10) / per_spec)))
            chunk = entries[i:i + size]
            i += len(chunk)
            t = time.time()
            rc, text, stdout, status = self._run([e["spec"] for e in chunk], f"{name}.{ci}", metrics,
                                                 extra, timeout=rem - 5, timeout_spec=timeout_spec)
            ci += 1
            elapsed = time.time() - t
            hdr, rows = NG._ncu_csv_rows(text + "\n" + stdout)
            if hdr is None or not rows:
                errors.append(f"chunk {ci - 1} ({len(chunk)} specs): no ncu rows (exit {rc}): "
                              + " ".join((text + stdout).split())[-300:])
                continue
            per_spec = max(0.05, (elapsed - overhead) / len(chunk))
            if header is None:
                header = hdr
            if rows and rows[0] and rows[0][0] == "":
                units = units or rows[0]
                rows = rows[1:]
            ok = [e for e in chunk if status.get(os.path.abspath(e["spec"])) == "ok"] if status else chunk
            for e in chunk:
                st = status.get(os.path.abspath(e["spec"]))
                if status and st != "ok":
                    errors.append(f"{e['case']} [{e['variant']}]: {st}")
            kcol = hdr.index("Kernel Name") if "Kernel Name" in hdr else None
            j = 0
            for r in rows:
                if hdr != header:
                    r = [dict(zip(hdr, r)).get(h, "") for h in header]
                kname = r[kcol] if kcol is not None and kcol < len(r) else None
                while j < len(ok) and kname is not None and not NG._same_kernel(
                        kname, (None, None, ok[j]["kernel"], ok[j]["plain"])):
                    j += 1
                idx = len(rows_all)
                orig = r[0]
                r = list(r)
                r[0] = str(idx)
                rows_all.append(r)
                rec = {"launch": idx, "kernel": kname, "ncu_id": orig, "chunk": ci - 1}
                if j < len(ok):
                    e = ok[j]
                    rec.update(case=e["case"], variant=e["variant"])
                    if "repeat" in e:
                        rec["repeat"] = e["repeat"]
                    e["row"] = idx
                    j += 1
                else:
                    rec["case"] = None
                    errors.append(f"{name} row {idx}: kernel {kname} matches no launch")
                launches.append(rec)
        if header is not None:
            with open(os.path.join(self.dir, f"{name}.csv"), "w", newline="") as f:
                w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
                w.writerow(header)
                if units is not None:
                    w.writerow(units)
                w.writerows(rows_all)
        write_json(os.path.join(self.dir, f"{name}.launches.json"), launches)
        log(f"  ncu {name}: {sum(1 for x in launches if x.get('case'))}/{len(entries)} launches mapped"
            + (f", {len(errors)} problem(s)" if errors else ""))
        return launches, errors

    def source(self, variant, entries, stop_at, tag=None):
        """Per-instruction counters: one ncu run writing a report, then imports
        (files ncu/source/<tag>.*, tag defaulting to the variant)."""
        tag = tag or variant
        sdir = os.path.join(self.dir, "source")
        os.makedirs(sdir, exist_ok=True)
        rep = os.path.join(sdir, f"{tag}")
        tmp = os.path.join(self.dir, ".tmp")
        os.makedirs(tmp, exist_ok=True)
        listf = os.path.join(tmp, f"source.{tag}.list")
        with open(listf, "w") as f:
            f.write("\n".join(e["spec"] for e in entries) + "\n")
        statf = os.path.join(tmp, f"source.{tag}.status.json")
        logf = os.path.join(sdir, f"{tag}.ncu.log")
        cmd = ["ncu"]
        for s in M.SOURCE_SECTIONS:
            cmd += ["--section", s]
        cmd += ["--metrics", ",".join(M.SOURCE_METRICS), "--import-source", "yes",
                "--clock-control", "none", "--target-processes", "all", "-f", "-o", rep,
                "--log-file", logf, sys.executable, os.path.join(M.NVCC_GEN_DIR, "runspec.py"),
                "--no-write", "--timeout", "60", "--status-json", statf, "--list", listf]
        result = {"report": None, "views": {}, "launches": [], "errors": []}
        for attempt in range(2):
            t = time.time()
            rc, o = run(cmd, timeout=max(10.0, stop_at - time.time()))
            log(f"  ncu source {tag}: {len(entries)} specs, exit {rc}, {time.time() - t:.1f}s")
            if rc != 0 and "--import-source" in cmd and re.search(r"import-source", o + (
                    open(logf, errors="replace").read() if os.path.exists(logf) else "")):
                i = cmd.index("--import-source")
                del cmd[i:i + 2]
                continue
            break
        if not os.path.exists(rep + ".ncu-rep"):
            result["errors"].append(f"no report (exit {rc}): " + " ".join(o.split())[-300:])
            return result
        result["report"] = rel(rep + ".ncu-rep", self.out)
        status = json.load(open(statf)) if os.path.exists(statf) else {}
        result["launches"] = [{"launch": k, "case": e["case"], "variant": variant}
                              for k, e in enumerate(x for x in entries
                                                    if not status or status.get(os.path.abspath(x["spec"])) == "ok")]
        for view in ("sass", "ptx", "cuda,sass"):
            name = view.replace(",", "_")
            rc, o = run(["ncu", "-i", rep + ".ncu-rep", "--page", "source", "--csv", "--print-source", view,
                         "--print-kernel-base", "mangled"], timeout=max(10.0, min(120.0, stop_at - time.time())))
            path = os.path.join(sdir, f"{tag}.{name}.csv")
            with open(path, "w") as f:
                f.write(o)
            result["views"][view] = {"file": rel(path, self.out), "exit": rc, "bytes": len(o)}
        for page in ("details", "raw"):
            rc, o = run(["ncu", "-i", rep + ".ncu-rep", "--page", page, "--csv", "--print-units", "base",
                         "--print-kernel-base", "mangled"], timeout=max(10.0, min(120.0, stop_at - time.time())))
            path = os.path.join(sdir, f"{tag}.{page}.csv")
            with open(path, "w") as f:
                f.write(o)
            result["views"][page] = {"file": rel(path, self.out), "exit": rc, "bytes": len(o)}
        return result


# ---------------------------------------------------------------------------
# Microbenchmarks

def run_micro(out, build, stop_at):
    mdir = os.path.join(out, "micro")
    exe = os.path.join(build, "micro")
    res = {"status": "not run"}
    if not os.path.isfile(exe):
        res["status"] = "not built"
        return res
    raw = os.path.join(mdir, "raw.jsonl")
    smi = ["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,clocks.mem,power.draw,pstate,temperature.gpu",
           "--format=csv,noheader"]
    res["nvidia_smi_before"] = run(smi, timeout=30)[1].strip()
    t = time.time()
    rc, o = run([exe, "all", raw], timeout=max(10.0, min(180.0, stop_at - time.time())))
    res["nvidia_smi_after"] = run(smi, timeout=30)[1].strip()
    res["elapsed_s"] = round(time.time() - t, 1)
    res["exit"] = rc
    with open(os.path.join(mdir, "run.log"), "w") as f:
        f.write(o)
    log(f"  micro: exit {rc}, {res['elapsed_s']}s")
    # Empty kernels under ncu: gpu__time_duration of a launch.
    if stop_at - time.time() > 30:
        logf = os.path.join(mdir, "ncu_launch.log")
        rc2, o2 = run(["ncu", *NCU_BASE_FLAGS, "--metrics",
                       ",".join(M.REPEAT + ["launch__grid_size", "launch__block_size"]),
                       "--log-file", logf, exe, "launch"], timeout=max(10.0, min(120.0, stop_at - time.time())))
        text = open(logf, errors="replace").read() if os.path.exists(logf) else o2
        hdr, rows = NG._ncu_csv_rows(text)
        if hdr is not None:
            with open(os.path.join(mdir, "ncu_launch.csv"), "w", newline="") as f:
                w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
                w.writerow(hdr)
                w.writerows(rows)
        res["ncu_launch_exit"] = rc2
        res["ncu_launch_rows"] = len(rows) if hdr is not None else 0
    res["status"] = "ok" if rc == 0 else f"exit {rc}"
    return res


def micro_results(out, tool, micro_info):
    """micro/results.json from raw.jsonl, the SASS opcode counts of each
    benchmark kernel, and the ncu empty-launch rows."""
    mdir = os.path.join(out, "micro")
    results, errors = [], []
    raw = os.path.join(mdir, "raw.jsonl")
    if os.path.exists(raw):
        for line in open(raw):
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except ValueError:
                errors.append(f"unparsable line: {line[:200]}")
                continue
            (errors if "error" in r else results).append(r)
    sass = {}
    txt = read_text(os.path.join(mdir, "micro.sass"))
    if txt:
        sass = sass_opcode_counts(txt)

    def find(kernel):
        pre = f"_Z{len(kernel)}{kernel}"
        for f, c in sass.items():
            if f == kernel or f.startswith(pre):
                return f, c
        return None, None

    for r in results:
        k = r.get("kernel")
        if k:
            f, c = find(k)
            if c is not None:
                r["sass_function"] = f
                r["sass_opcodes"] = dict(sorted(c.items(), key=lambda kv: -kv[1]))
    launch = []
    txt = read_text(os.path.join(mdir, "ncu_launch.csv"))
    if txt:
        rows = list(csv.reader(io.StringIO(txt)))
        if rows:
            hdr = rows[0]
            for r in rows[1:]:
                if r and r[0] != "":
                    d = dict(zip(hdr, r))
                    launch.append({k: d.get(k) for k in ["Kernel Name"] + M.REPEAT +
                                   ["launch__grid_size", "launch__block_size"] if k in d})
    # The instruction chains under ncu (gen.py --supplement): the last launch
    # of each kernel (the measured one; each runs twice).
    ncu_ops = {}
    txt = read_text(os.path.join(mdir, "ncu_ops.csv"))
    if txt:
        rows = list(csv.reader(io.StringIO(txt)))
        hdr = rows[0] if rows else []
        for r in rows[1:]:
            if r and r[0] != "":
                d = dict(zip(hdr, r))
                ncu_ops[d.get("Kernel Name")] = {k: d.get(k) for k in M.MICRO_OPS if k in d}

    def numv(x):
        try:
            return float(str(x).replace(",", ""))
        except (TypeError, ValueError):
            return None

    for r in results:
        f = r.get("sass_function")
        n = ncu_ops.get(f) if f else None
        if not n:
            continue
        r["ncu"] = n
        act = numv(n.get("sm__cycles_active.avg"))
        if r["group"] == "throughput" and r.get("name") == "red_shared_add":
            r.setdefault("warp_ptx_ops_per_block", 32 * 32 * 64)   # 32 warps x 32 x 64 iterations
        if r["group"] == "throughput" and act and r.get("warp_ptx_ops_per_block"):
            # one block per SM: the block's warp-level PTX instructions over the SM's active cycles
            r["ncu_warp_ptx_ops_per_cycle_per_sm"] = round(r["warp_ptx_ops_per_block"] / act, 4)
    doc = {"generator": f"testdata/perf/gen/gen.py {GEN_VERSION}",
           "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "gpu": tool.get("gpu"), "driver": tool.get("driver_version"),
           "build": "nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 micro.cu (SASS: micro.sass)",
           "run": micro_info, "results": results, "errors": errors,
           "empty_kernel_ncu": launch}
    write_json(os.path.join(mdir, "results.json"), doc)
    return len(results), len(errors)


# ---------------------------------------------------------------------------
# Main

def make_tar(out, tar_path, only=None, exclude=(), cases=None):
    """gzip tarball of the generated tree (top folder: the out directory's
    name; never gen/ or build/, nor the .ncu-rep reports: --reports-tar). only: the top-level
    entries to include (None: all); cases: the case folders to include (None: all)."""
    base = os.path.basename(os.path.normpath(out))
    skip_top = {"gen", "build"} | set(exclude)

    def filt(ti):
        parts = ti.name.split("/")
        if len(parts) > 1 and (parts[1] in skip_top or (only is not None and parts[1] not in only)):
            return None
        if cases is not None and len(parts) > 2 and parts[1] == "cases" and parts[2] not in cases:
            return None
        if "__pycache__" in parts or ".tmp" in parts or ti.name.endswith(".ncu-rep"):
            return None
        return ti

    os.makedirs(os.path.dirname(os.path.abspath(tar_path)), exist_ok=True)
    with tarfile.open(tar_path, "w:gz", compresslevel=9) as tf:
        tf.add(out, arcname=base, filter=filt)
    return os.path.getsize(tar_path)


def write_tars(out, tar_path):
    """One tarball, or, when it would pass 16 MiB, one per part
    (<name>.cases.tgz holds cases/, <name>.rest.tgz the rest)."""
    size = make_tar(out, tar_path)
    if size <= TAR_LIMIT:
        return [(tar_path, size)]
    os.remove(tar_path)
    stem = tar_path[:-4] if tar_path.endswith(".tgz") else tar_path
    res = [(stem + ".cases.tgz", make_tar(out, stem + ".cases.tgz", only={"cases"})),
           (stem + ".rest.tgz", make_tar(out, stem + ".rest.tgz", exclude=("cases",)))]
    return res


def supplement(out, args, deadline, timings):
    """A second GPU call on an existing corpus (manifest.json and specs from the
    first): per-instruction counters (SourceCounters) of every calibration
    launch -> ncu/source/calib.O3.*, whose per-SASS-instruction execution
    counts give each launch's dynamic opcode mix; and the microbenchmarks'
    instruction chains under ncu (issue and pipe counters beside the clock64
    figures) -> micro/ncu_ops.csv, micro/ops.jsonl."""
    man_path = os.path.join(out, "manifest.json")
    manifest = json.load(open(man_path))
    info = {"date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": " ".join([os.path.basename(sys.argv[0])] + (argv_of(args)))}
    with Phase("toolchain", timings):
        NG.find_tools()
        rc, o = run(["ncu", "--version"], timeout=60)
        info["ncu_version"] = o.strip().splitlines()[-1] if o.strip() else ""
        rc, o = run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm",
                     "--format=csv,noheader"], timeout=60)
        info["nvidia_smi"] = o.strip()
    build = os.path.abspath(args.build or os.path.join(out, "build"))
    mdir = os.path.join(out, "micro")
    import threading
    built = {"status": "skipped"}
    th = None
    if "micro" not in args.skip:
        th = threading.Thread(target=lambda: built.update(status=compile_micro(out, build, record=False)))
        th.start()
    ncu = Ncu(out, deadline)
    with Phase("source calib", timings):
        ents = []
        for e in manifest["cases"]:
            if e["group"] == "calib" and e["status"].get("O3") == "ok":
                ents.append({"case": e["name"], "variant": "O3", "spec": os.path.join(out, e["spec"]["O3"]),
                             "kernel": e["mangled"]["O3"], "plain": e["kernel"], "prio": e["prio"]})
        ents.sort(key=lambda x: x["prio"])
        if ents and deadline - 45 - time.time() > 20:
            info["source_calib_O3"] = ncu.source("O3", ents, deadline - 45, tag="calib.O3")
    with Phase("micro ops", timings):
        if th is not None:
            th.join(timeout=max(1.0, deadline - 30 - time.time()))
        info["micro_compile"] = built["status"]
        if built["status"] == "ok" and deadline - 8 - time.time() > 15:
            logf = os.path.join(mdir, "ncu_ops.log")
            rc, o = run(["ncu", *NCU_BASE_FLAGS, "--metrics", ",".join(M.MICRO_OPS), "--log-file", logf,
                         os.path.join(build, "micro"), "ops", os.path.join(mdir, "ops.jsonl")],
                        timeout=max(10.0, deadline - 8 - time.time()))
            text = open(logf, errors="replace").read() if os.path.exists(logf) else o
            hdr, rows = NG._ncu_csv_rows(text)
            if hdr is not None:
                with open(os.path.join(mdir, "ncu_ops.csv"), "w", newline="") as f:
                    w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
                    w.writerow(hdr)
                    w.writerows(rows)
            info["micro_ops"] = {"exit": rc, "rows": len(rows) if hdr is not None else 0,
                                 "csv": "micro/ncu_ops.csv", "jsonl": "micro/ops.jsonl"}
            log(f"  micro ops under ncu: exit {rc}, {info['micro_ops']['rows']} rows")
            if os.path.exists(logf):
                os.remove(logf)
    shutil.rmtree(os.path.join(out, "ncu", ".tmp"), ignore_errors=True)
    info["phase_seconds"] = timings
    info["phase_errors"] = PHASE_ERRORS
    info["elapsed_s"] = round(time.time() - T0, 1)
    manifest["supplement"] = info
    compact(out)
    fix_paths(manifest, out)
    micro_results(out, manifest.get("toolchain", {}), manifest.get("micro", {}))
    sc = info.get("source_calib_O3")
    if sc:
        sc["opcode_mix"] = opcode_mix(out, "calib.O3", sc.get("launches", []))
    write_json(man_path, manifest)
    if args.tar:
        size = make_tar(out, args.tar, only={"ncu", "micro", "manifest.json"})
        log(f"tar {args.tar}: {size / 2**20:.2f} MiB")
    if args.reports_tar:
        reps = [os.path.join(out, "ncu", "source", f) for f in os.listdir(os.path.join(out, "ncu", "source"))
                if f.startswith("calib.") and f.endswith(".ncu-rep")]
        if reps and sum(os.path.getsize(p) for p in reps) < TAR_LIMIT:
            with tarfile.open(args.reports_tar, "w:gz") as tf:
                for p in reps:
                    tf.add(p, arcname=os.path.basename(p))
    log(f"supplement: {json.dumps({k: v for k, v in info.items() if k != 'source_calib_O3'})[:1500]}")
    return 0


def source_sections(text):
    """Split an `ncu --page source --csv --print-source cuda,sass` export into
    launches: [(function, [row dicts of SASS instructions])]. Sections (one
    per kernel and source file: "File Path", "Function Name", header, rows)
    come in launch order; a launch has one section per source file of its
    kernel, so a new launch starts when the function changes or a (function,
    file) pair repeats."""
    launches, cur_fn, cur_files, seen = [], None, set(), set()
    path = fn = hdr = None
    for row in csv.reader(io.StringIO(text)):
        if not row:
            continue
        if row[0] == "File Path":
            path = row[1] if len(row) > 1 else ""
            continue
        if row[0] == "Function Name":
            fn = row[1] if len(row) > 1 else ""
            if fn != cur_fn or path in cur_files:
                launches.append((fn, []))
                cur_fn, cur_files, seen = fn, set(), set()
            cur_files.add(path)
            hdr = None
            continue
        if row[0] == "Line No":
            hdr = row
            continue
        if hdr is None or not launches:
            continue
        # cuda,sass rows: "Line No","Source"(CUDA),"Address","Source"(SASS),metrics...
        # An instruction is listed under every CUDA line it belongs to (same
        # address, same figures): keep its first listing.
        if len(row) > 3 and row[2] not in ("", "-") and row[2] not in seen:
            seen.add(row[2])
            d = {"address": row[2], "sass": row[3].strip()}
            for k, v in zip(hdr[4:], row[4:]):
                d[k] = v
            launches[-1][1].append(d)
    return launches


def sass_opcode(text):
    t = text.strip()
    t = re.sub(r"^@!?U?P[T0-9]+\s+", "", t)
    return t.split()[0].rstrip(";") if t else ""


def opcode_mix(out, tag, entries_launches):
    """ncu/opcode_mix.<tag>.json: per launch, warp-level SASS instructions
    executed by opcode (with modifiers), summed over the per-instruction
    "Instructions Executed" of ncu/source/<tag>.cuda_sass.csv(.gz)."""
    text = read_text(os.path.join(out, "ncu", "source", f"{tag}.cuda_sass.csv"))
    if not text:
        return None
    secs = source_sections(text)
    res = {"what": "warp-level SASS instructions executed per opcode (ncu Instructions Executed per "
                   "SASS instruction of the SourceCounters section, summed by opcode with its modifiers)",
           "source": f"ncu/source/{tag}.cuda_sass.csv.gz", "launches": []}
    for k, (fn, rows) in enumerate(secs):
        mix = {}
        for r in rows:
            n = r.get("Instructions Executed", "0").replace(",", "")
            try:
                n = int(float(n))
            except ValueError:
                continue
            op = sass_opcode(r["sass"])
            mix[op] = mix.get(op, 0) + n
        e = entries_launches[k] if k < len(entries_launches) else {}
        res["launches"].append({"launch": k, "case": e.get("case"), "variant": e.get("variant"),
                                "function": fn, "total": sum(mix.values()),
                                "opcodes": dict(sorted(mix.items(), key=lambda kv: -kv[1]))})
    write_json(os.path.join(out, "ncu", f"opcode_mix.{tag}.json"), res)
    return len(res["launches"])


# ---------------------------------------------------------------------------
# --only on an existing corpus: merge, not replace
#
# A run with --only records the named cases and leaves the rest of the
# corpus as it was: manifest.json keeps every other case (the selected ones
# are replaced or added, "pairs" is the case list's, and the run is listed
# in "only_runs"); each ncu table (calib.O3, repeat.O3, calib.G, ...) keeps
# its rows but those of the selected cases, which the new rows replace
# (appended; the tables are renumbered and every manifest reference with
# them); timing/events.json keeps the other specs' timings. The tarball
# then holds what such a run changes (manifest.json, the selected cases,
# ptx/ptxas/sass of their modules, ncu/, timing/, logs/).

class Merge:
    """The state of an --only run over an existing corpus (None when the
    corpus has no manifest: the run writes a fresh one as before)."""

    def __init__(self, out, selected):
        self.out = out
        self.names = {c.name for c in selected}
        self.old = json.load(open(os.path.join(out, "manifest.json")))
        self.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.tables = {}     # table name -> rows merged (for the run's record)
        self.ptx_before = {}
        self.ptx_changed = []

    def snapshot_ptx(self, mods):
        for m in mods:
            for v in VARIANTS:
                p = os.path.join(self.out, "ptx", f"{m}.{v}.ptx")
                if os.path.exists(p):
                    self.ptx_before[f"{m}.{v}"] = open(p, "rb").read()

    def note_ptx(self):
        for k, before in sorted(self.ptx_before.items()):
            p = os.path.join(self.out, "ptx", k + ".ptx")
            if os.path.exists(p) and open(p, "rb").read() != before:
                self.ptx_changed.append(k)
        if self.ptx_changed:
            log(f"  PTX changed by this compile (other cases of these modules were measured with the old): "
                f"{', '.join(self.ptx_changed)}")

    def table(self, src, dst):
        """Merge ncu/<src>.csv (+ .launches.json), just written for the
        selected cases, into ncu/<dst>.csv(.gz): the rows of the selected
        cases there are dropped, the new ones appended, every row renumbered
        (the ID column, launches.json, the old manifest's references)."""
        d = os.path.join(self.out, "ncu")
        sc, sl = os.path.join(d, src + ".csv"), os.path.join(d, src + ".launches.json")
        if not os.path.exists(sl):
            return {}
        new_l = json.load(open(sl))
        new_h, new_u, new_r = _read_ncu_csv(sc) if os.path.exists(sc) else (None, None, [])
        dc, dl = os.path.join(d, dst + ".csv"), os.path.join(d, dst + ".launches.json")
        old_text = read_text(dc)
        old_l = json.load(open(dl)) if os.path.exists(dl) else []
        old_h, old_u, old_r = _read_ncu_csv(dc) if old_text is not None else (None, None, [])
        header = list(old_h or new_h or [])
        for h in new_h or []:
            if h not in header:
                header.append(h)
        units = None
        if old_u is not None or new_u is not None:
            ou = dict(zip(old_h or [], old_u or []))
            nu = dict(zip(new_h or [], new_u or []))
            units = [ou.get(h, nu.get(h, "")) for h in header]
        old_by_id = {r[0]: r for r in old_r}
        new_by_id = {r[0]: r for r in new_r}
        rows, launches, remap = [], [], {}

        def put(row, hdr, entry):
            idx = len(rows)
            m = dict(zip(hdr, row))
            r = [m.get(h, "") for h in header]
            r[0] = str(idx)
            rows.append(r)
            e = dict(entry)
            e["launch"] = idx
            launches.append(e)
            return idx

        for e in old_l:
            if e.get("case") in self.names:
                continue
            row = old_by_id.get(str(e["launch"]))
            if row is None:
                continue
            remap[e["launch"]] = put(row, old_h, e)
        new_map = {}
        for e in new_l:
            row = new_by_id.get(str(e["launch"]))
            if row is None:
                continue
            e = dict(e, merged=self.date)
            new_map[e["launch"]] = put(row, new_h, e)
        with open(dc, "w", newline="") as f:
            w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
            w.writerow(header)
            if units is not None:
                w.writerow(units)
            w.writerows(rows)
        if os.path.exists(dc + ".gz"):
            os.remove(dc + ".gz")
        write_json(dl, launches)
        for p in (sc, sl):
            if os.path.exists(p):
                os.remove(p)
        # The old manifest's references to this table.
        ref = f"ncu/{dst}.csv"
        for c in self.old.get("cases", []):
            if c["name"] in self.names:
                continue
            for v, n in (c.get("ncu") or {}).items():
                if n.get("csv", "").startswith(ref) and n.get("launch") in remap:
                    n["launch"] = remap[n["launch"]]
                    n["csv"] = ref
            if dst.startswith("repeat."):
                for v, lst in (c.get("ncu_repeat") or {}).items():
                    c["ncu_repeat"][v] = [remap[i] for i in lst if i in remap]
        self.tables[dst] = {"kept": len(remap), "added": len(new_map)}
        log(f"  merged ncu/{src} into ncu/{dst}: {len(remap)} rows kept, {len(new_map)} added")
        return new_map

    def events(self, src, dst):
        if not os.path.exists(src):
            return
        new = json.load(open(src))
        old = json.load(open(dst)) if os.path.exists(dst) else {k: v for k, v in new.items()
                                                                  if k not in ("specs", "errors")}
        specs = {s["spec"] for s in new.get("specs", [])} | {e.get("spec") for e in new.get("errors", [])}
        old["specs"] = [s for s in old.get("specs", []) if s["spec"] not in specs] + new.get("specs", [])
        old["errors"] = [e for e in old.get("errors", []) if e.get("spec") not in specs] + new.get("errors", [])
        old.setdefault("merged", []).append({"date": self.date, "specs": len(new.get("specs", [])),
                                             "elapsed_s": new.get("elapsed_s")})
        write_json(dst, old)
        os.remove(src)

    def manifest(self, m):
        """The corpus's manifest with the run's cases (m) merged in."""
        out = dict(self.old)
        by = {e["name"]: e for e in m["cases"]}
        cases = [by.pop(e["name"], e) for e in out.get("cases", [])]
        order = {c.name: i for i, c in enumerate(C.CASES)}
        for e in sorted(by.values(), key=lambda e: order.get(e["name"], 1 << 30)):
            # a new case goes after the last case that comes before it in the case list
            at = len(cases)
            for i, x in enumerate(cases):
                if order.get(x["name"], -1) > order.get(e["name"], 0):
                    at = i
                    break
            cases.insert(at, e)
        out["cases"] = cases
        out["pairs"] = C.PAIRS
        if m.get("compile"):
            out["compile"] = dict(out.get("compile", {}), **m["compile"])
        run = {k: m[k] for k in ("generator", "date_utc", "toolchain", "phase_seconds", "phase_errors",
                                 "elapsed_s", "ncu", "micro", "dry_run") if k in m}
        run["cases"] = sorted(self.names)
        run["ncu_tables_merged"] = self.tables
        run["ptx_changed"] = self.ptx_changed
        runs = [r for r in out.get("only_runs", []) if r.get("date_utc") != m.get("date_utc")]
        out["only_runs"] = runs + [run]
        return out


def _read_ncu_csv(path):
    """(header, units or None, rows) of an ncu table (.csv or .csv.gz)."""
    text = read_text(path[:-3] if path.endswith(".gz") else path)
    rows = list(csv.reader(io.StringIO(text or "")))
    if not rows:
        return None, None, []
    header, rest = rows[0], rows[1:]
    units = None
    if rest and rest[0] and rest[0][0] == "":
        units, rest = rest[0], rest[1:]
    return header, units, [r for r in rest if r]


def argv_of(args):
    return [a for a in sys.argv[1:]]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.dirname(HERE), help="output directory (testdata/perf)")
    ap.add_argument("--tar", help="write a gzip tarball of the outputs here")
    ap.add_argument("--reports-tar", help="write the .ncu-rep source-counter reports here (if under 16 MiB)")
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--skip", default="", help="comma-separated phases to skip: micro,calib,calibG,"
                    "access,repeat,events,source")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 4))
    ap.add_argument("--budget", type=float, default=460.0, help="seconds for the whole run")
    ap.add_argument("--build", default=None, help="build directory for the micro binary")
    ap.add_argument("--supplement", action="store_true",
                    help="on an existing corpus: per-instruction counters of every calibration launch "
                    "and the microbenchmark chains under ncu (see supplement())")
    args = ap.parse_args(argv)

    out = os.path.abspath(args.out)
    deadline = T0 + args.budget
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    build = os.path.abspath(args.build or os.path.join(out, "build"))
    selected = C.CASES
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = sorted(set(names) - {c.name for c in C.CASES})
        if unknown:
            ap.error("unknown case(s): " + ", ".join(unknown))
        selected = [c for c in C.CASES if c.name in names]
    dry = args.dry_run
    timings = {}
    if args.supplement:
        return supplement(out, args, deadline, timings)
    # --only on an existing corpus merges into it (class Merge); the
    # microbenchmarks belong to no case and are not run.
    merge = None
    if args.only and os.path.exists(os.path.join(out, "manifest.json")):
        merge = Merge(out, selected)
        skip.add("micro")
        log(f"  --only on the corpus in {out}: {len(selected)} case(s) merged into it")

    def save():
        write_json(os.path.join(out, "manifest.json"), merge.manifest(manifest) if merge else manifest)
    if not args.only:
        for d in GENERATED:
            shutil.rmtree(os.path.join(out, d), ignore_errors=True)
        for f in MICRO_GENERATED:
            p = os.path.join(out, "micro", f)
            if os.path.exists(p):
                os.remove(p)
    os.makedirs(out, exist_ok=True)

    tool, known = {"dry_run": True}, None
    micro_thread = None
    micro_status = {"compile": "not run"}
    if not dry:
        with Phase("toolchain", timings):
            NG.find_tools()
            tool = toolchain(out)
            known = query_metrics(out)
        if "micro" not in skip:
            import threading

            def build_micro():
                micro_status["compile"] = compile_micro(out, build)
            micro_thread = threading.Thread(target=build_micro)
            micro_thread.start()

    mods = sorted({c.module for c in selected})
    compile_status, ptx_info, ptxas_info = {}, {}, {}
    if not dry:
        with Phase("compile", timings):
            if merge:
                merge.snapshot_ptx(mods)
            compile_status = compile_all(out, mods, args.jobs)
            if merge:
                merge.note_ptx()
            for (m, v), st in compile_status.items():
                if st == "ok":
                    ptx_info[(m, v)] = NG.parse_ptx(open(os.path.join(out, "ptx", f"{m}.{v}.ptx")).read())
                p = os.path.join(out, "ptxas", f"{m}.{v}.txt")
                if os.path.exists(p):
                    ptxas_info[(m, v)] = NG.parse_ptxas(open(p).read())

    with Phase("specs", timings):
        per_case = {c.name: write_case(out, c, ptx_info, compile_status, dry) for c in selected}
        nerr = 0
        for name, r in per_case.items():
            for v, i in r.items():
                if i["error"]:
                    nerr += 1
                    log(f"  {name} [{v}]: {i['error']}")
        log(f"  {len(selected)} cases, {sum(len(c.variants) for c in selected)} specs, {nerr} not runnable")

    manifest = {
        "generator": {"version": GEN_VERSION, "command": " ".join(
            [os.path.basename(sys.argv[0])] + (argv if argv is not None else sys.argv[1:]))},
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "dry_run": dry, "toolchain": tool, "arch": ARCH,
        "variants": {v: " ".join(["nvcc", "-ptx", f"-arch={ARCH}", *f, "-std=c++17"]) for v, f in VARIANTS.items()},
        "runner": "testdata/nvcc/gen/runspec.py (CuPy RawModule(path=ptx): the driver JIT-compiles the PTX)",
        "pairs": C.PAIRS, "cases": [],
    }
    if compile_status:
        manifest["compile"] = {f"{m}.{v}": s for (m, v), s in sorted(compile_status.items())}
    entries_by = {}   # (case, variant) -> launch entry
    for c in selected:
        r = per_case[c.name]
        e = {"name": c.name, "group": c.group, "kind": c.kind, "module": c.module, "kernel": c.kernel,
             "source": rel(module_source(c.module), os.path.dirname(os.path.dirname(out)))
             if module_source(c.module).startswith(os.path.dirname(os.path.dirname(out))) else module_source(c.module),
             "mangled": {v: r[v]["kernel"] for v in c.variants}, "variants": c.variants,
             "description": c.desc, "grid": c.grid, "block": c.block, "dynamic_shared_bytes": c.dyn_smem,
             "pairs": c.pairs, "prio": c.prio, "spec": {v: r[v]["spec"] for v in c.variants},
             "status": {v: r[v]["error"] or ("dry-run" if dry else "compiled" if args.compile_only else "pending")
                        for v in c.variants}}
        if not dry:
            e["ptxas"] = {}
            for v in c.variants:
                pi = ptxas_info.get((c.module, v), {})
                if r[v]["kernel"] in pi:
                    e["ptxas"][v] = pi[r[v]["kernel"]]
                funcs = ptx_info.get((c.module, v))
                if v == "O3" and funcs and r[v]["kernel"] in funcs:
                    e["opcodes_O3"] = sorted(NG.kernel_opcodes(funcs, r[v]["kernel"]))
        manifest["cases"].append(e)
        for v in c.variants:
            entries_by[(c.name, v)] = {"case": c.name, "variant": v, "spec": os.path.join(out, r[v]["spec"]),
                                       "kernel": r[v]["kernel"], "plain": c.kernel, "prio": c.prio}
    save()
    case_of = {e["name"]: e for e in manifest["cases"]}

    if dry or args.compile_only:
        if micro_thread:
            micro_thread.join()
            manifest["micro"] = micro_status
        finish(out, manifest, args, timings, merge)
        return 0

    with Phase("run", timings):
        todo = [(e, v) for e in manifest["cases"] for v in e["variants"] if e["status"][v] == "pending"]
        res = runspec.run_batch([entries_by[(e["name"], v)]["spec"] for e, v in todo], write=True,
                                timeout=120, log=lambda s: None)
        for e, v in todo:
            st = res.get(os.path.abspath(entries_by[(e["name"], v)]["spec"]), "not run")
            e["status"][v] = st
            if st != "ok":
                log(f"  FAIL {e['name']} [{v}]: {st[:300]}")
        log(f"  {sum(1 for x in res.values() if x == 'ok')}/{len(todo)} specs ok")
    save()

    if micro_thread:
        with Phase("micro", timings):
            micro_thread.join(timeout=max(1.0, deadline - time.time() - 200))
            if micro_status["compile"] == "ok":
                micro_status.update(run_micro(out, build, deadline - 150))
            n, ne = micro_results(out, tool, micro_status)
            micro_status["results"], micro_status["errors"] = n, ne
            log(f"  micro: compile {micro_status['compile'][:200]}, {n} results, {ne} errors")
        manifest["micro"] = micro_status
        save()

    ncu = Ncu(out, deadline)
    ninfo = {"flags": NCU_BASE_FLAGS, "settings": "--clock-control none; default --cache-control all "
             "(caches flushed before each replay pass); --replay-mode kernel",
             "sets": {}, "errors": {}}
    ok_entries = lambda grp, v: sorted(  # noqa: E731
        [entries_by[(e["name"], v)] for e in manifest["cases"]
         if e["group"] == grp and v in e["variants"] and e["status"][v] == "ok"],
        key=lambda x: x["prio"])
    calib_o3, calib_g, access_o3 = ok_entries("calib", "O3"), ok_entries("calib", "G"), ok_entries("access", "O3")
    # Each phase stops this many seconds before the deadline, leaving the
    # time to the phases after it (order = priority).
    stop_before = {"calib": 230, "access": 105, "repeat": 85, "source": 45, "calibG": 20, "events": 5}
    sets = {}
    timing_flags = ["--print-metric-instances", "values"]

    def profile(key, name, ents, setname, extra):
        if key in skip or not ents or sets.get(setname) is None:
            return
        # Merging: the rows go to ncu/only.<name>, then into ncu/<name>.
        tname = "only." + name if merge else name
        launches, errors = ncu.collect(tname, ents, sets[setname], extra, deadline - stop_before[key],
                                       chunk_max=100)
        rowmap = merge.table(tname, name) if merge else None
        ninfo["errors"][name] = errors
        for en in ents:
            if "row" in en:
                row = en.pop("row")
                row = rowmap.get(row) if rowmap is not None else row
                if row is not None:
                    case_of[en["case"]].setdefault("ncu", {})[en["variant"]] = {
                        "csv": f"ncu/{name}.csv", "launch": row, "metrics": setname}
        save()

    with Phase("ncu", timings):
        if calib_o3 or access_o3:
            probe_spec = (access_o3 or calib_o3)[0]["spec"]
            sets["TIMING"] = ncu.accept("TIMING", M.TIMING, probe_spec, timing_flags)
            if sets["TIMING"] is not None:
                ok_names = set(sets["TIMING"])
                sets["HIER"] = [m for m in M.HIER if m in ok_names]
                sets["REPEAT"] = [m for m in M.REPEAT if m in ok_names]
            for k, lst in sets.items():
                ninfo["sets"][k] = {"requested": len(getattr(M, k)), "used": lst}
            if known is not None:
                ninfo["not_in_query"] = sorted(m for m in M.TIMING if M.base_name(m) not in known
                                               and not m.startswith(M.UNLISTED_PREFIXES))
        if sets.get("TIMING") is None:
            ninfo["fatal"] = ncu.fatal or "ncu did not produce rows on the probe launch"
            log(f"  ncu unusable: {ninfo['fatal']}")
        profile("calib", "calib.O3", calib_o3, "TIMING", timing_flags)
        profile("access", "access.O3", access_o3, "HIER", [])
        if "repeat" not in skip and calib_o3 and sets.get("REPEAT"):
            rep = []
            for r in range(3):
                for en in calib_o3:
                    x = dict(en)
                    x["repeat"] = r
                    rep.append(x)
            tname = "only.repeat.O3" if merge else "repeat.O3"
            launches, errors = ncu.collect(tname, rep, sets["REPEAT"], [],
                                           deadline - stop_before["repeat"], chunk_max=120)
            rowmap = merge.table(tname, "repeat.O3") if merge else None
            ninfo["errors"]["repeat.O3"] = errors
            for x in rep:
                if "row" in x:
                    row = rowmap.get(x["row"]) if rowmap is not None else x["row"]
                    if row is not None:
                        case_of[x["case"]].setdefault("ncu_repeat", {}).setdefault("O3", []).append(row)
    with Phase("source", timings):
        if "source" not in skip and sets.get("TIMING") is not None:
            src = {}
            for v in ("O3", "G"):
                ents = [entries_by[(e["name"], v)] for e in manifest["cases"]
                        if v in C_SOURCE.get(e["name"], ()) and e["status"].get(v) == "ok"]
                if ents and deadline - stop_before["source"] - time.time() > 20:
                    src[v] = ncu.source(v, ents, deadline - stop_before["source"])
            ninfo["source"] = src
    with Phase("ncu G", timings):
        profile("calibG", "calib.G", calib_g, "HIER", [])
    with Phase("events", timings):
        if "events" not in skip and calib_o3 and deadline - stop_before["events"] - time.time() > 15:
            tdir = os.path.join(out, "timing")
            os.makedirs(tdir, exist_ok=True)
            listf = os.path.join(tdir, ".list")
            with open(listf, "w") as f:
                f.write("\n".join(e["spec"] for e in calib_o3 + calib_g) + "\n")
            evout = os.path.join(tdir, "events.only.json" if merge else "events.json")
            rc, o = run([sys.executable, os.path.join(HERE, "timing.py"), "--list", listf, "--reps", "10",
                         "--out", evout, "--root", out,
                         "--budget", str(deadline - stop_before["events"] - time.time() - 3)],
                        timeout=max(10.0, deadline - stop_before["events"] - time.time()))
            os.remove(listf)
            with open(os.path.join(tdir, "events.log"), "w") as f:
                f.write(o)
            log(f"  events: exit {rc}")
            ninfo["events_exit"] = rc
            if merge:
                merge.events(evout, os.path.join(tdir, "events.json"))
    ninfo["dropped"] = ncu.dropped
    ninfo["fatal"] = ninfo.get("fatal") or ncu.fatal
    with open(os.path.join(out, "ncu", "ncu.log"), "a") as f:
        f.write("\n".join(ncu.logs) + "\n")
    shutil.rmtree(os.path.join(out, "ncu", ".tmp"), ignore_errors=True)
    manifest["ncu"] = ninfo
    rc, o = run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,clocks.mem,power.draw,pstate,temperature.gpu",
                 "--format=csv"], timeout=30)
    manifest["toolchain"]["nvidia_smi_end"] = o.strip()
    if args.reports_tar:
        reps = [os.path.join(out, "ncu", "source", f) for f in os.listdir(os.path.join(out, "ncu", "source"))
                if f.endswith(".ncu-rep")] if os.path.isdir(os.path.join(out, "ncu", "source")) else []
        if reps and sum(os.path.getsize(p) for p in reps) < TAR_LIMIT:
            with tarfile.open(args.reports_tar, "w:gz") as tf:
                for p in reps:
                    tf.add(p, arcname=os.path.basename(p))
    finish(out, manifest, args, timings, merge)
    return 0


C_SOURCE = {c.name: tuple(c.source_counters) for c in C.CASES}


# Outputs above this many bytes are recorded as expected/<name>.sha256 in this
# corpus (runspec's own threshold is 256 KiB): the counters are what the perf
# corpus is for, the nvcc corpus holds element-level outputs, and the working
# tree that travels to the GPU machine must stay small.
HASH_ABOVE = 8 * 1024


def compact(out):
    """Shrink the generated tree without losing information the tests need:
    expected outputs above HASH_ABOVE bytes become .sha256 files; the suffix
    query keeps one metric name a line; micro.sass loses its encoding
    comments; ncu/source keeps the cuda,sass view (it holds every SASS row of
    the sass view, under its CUDA line) and drops the sass view."""
    n = 0
    for root, _, files in os.walk(os.path.join(out, "cases")):
        if os.path.basename(root) != "expected":
            continue
        for f in files:
            p = os.path.join(root, f)
            if f.endswith(".bin") and os.path.getsize(p) > HASH_ABOVE:
                with open(p, "rb") as fh:
                    data = fh.read()
                with open(p[:-4] + ".sha256", "w") as fh:
                    fh.write(runspec.sha256_line(data))
                os.remove(p)
                n += 1
    q = os.path.join(out, "query", "metrics_gh100_suffix.txt")
    if os.path.exists(q):
        lines = open(q).read().splitlines()
        names = [ln.split()[0] for ln in lines if re.match(r"^[a-z0-9_]+__[a-z0-9_]+\.\S+\s", ln + " ")]
        if names:
            with open(q, "w") as fh:
                fh.write((lines[0] if lines and lines[0].startswith("$") else "") +
                         "\n# every metric name the query listed, one a line (its unit and description "
                         "columns dropped)\n" + "\n".join(names) + "\n")
    ms = os.path.join(out, "micro", "micro.sass")
    if os.path.exists(ms):
        txt = open(ms).read()
        txt = re.sub(r"[ \t]*/\* 0x[0-9a-f]{16} \*/", "", txt)
        txt = "\n".join(ln.rstrip() for ln in txt.splitlines() if ln.strip()) + "\n"
        with open(ms, "w") as fh:
            fh.write(txt)
    for f in ("ncu_launch.log",):
        p = os.path.join(out, "micro", f)
        if os.path.exists(p):
            os.remove(p)
    sdir = os.path.join(out, "ncu", "source")
    if os.path.isdir(sdir):
        for f in os.listdir(sdir):
            if f.endswith(".sass.csv"):
                cs = os.path.join(sdir, f[:-len(".sass.csv")] + ".cuda_sass.csv")
                if os.path.exists(cs) and os.path.getsize(cs) > os.path.getsize(os.path.join(sdir, f)):
                    os.remove(os.path.join(sdir, f))
    # Bulky secondary text goes in gzip (the working tree sent to the GPU
    # machine has a size limit): per-instruction tables, the metric queries,
    # the microbenchmarks' SASS. zcat/zgrep read them; so does Go's compress/gzip.
    for pat in (("ncu", "source", ".cuda_sass.csv"), ("ncu", "source", ".details.csv"),
                ("ncu", ".csv"), ("query", ".txt"), ("micro", "micro.sass"), ("micro", "ncu_ops.csv"),
                ("micro", "ncu_launch.csv")):
        d = os.path.join(out, *pat[:-1])
        if not os.path.isdir(d):
            continue
        for f in os.listdir(d):
            if f.endswith(pat[-1]):
                gzip_file(os.path.join(d, f))
    return n


def gzip_file(path):
    import gzip
    with open(path, "rb") as fi, gzip.GzipFile(path + ".gz", "wb", compresslevel=9, mtime=0) as fo:
        shutil.copyfileobj(fi, fo)
    os.remove(path)


def read_text(path):
    """A text file, or its .gz."""
    import gzip
    if os.path.exists(path):
        return open(path, errors="replace").read()
    if os.path.exists(path + ".gz"):
        with gzip.open(path + ".gz", "rt", errors="replace") as f:
            return f.read()
    return None


def fix_paths(obj, out):
    """Point manifest file references ("file", "csv", "jsonl") at the .gz a
    file became (or mark them when the file is gone)."""
    if isinstance(obj, dict):
        for k, v in list(obj.items()):
            if k == "csv" and isinstance(v, str):
                if not os.path.exists(os.path.join(out, v)) and os.path.exists(os.path.join(out, v + ".gz")):
                    obj[k] = v + ".gz"
            elif k == "file" and isinstance(v, str):
                if not os.path.exists(os.path.join(out, v)) and os.path.exists(os.path.join(out, v + ".gz")):
                    obj[k] = v + ".gz"
                elif not os.path.exists(os.path.join(out, v)):
                    obj["removed"] = "by compact()" if v.endswith(".sass.csv") else "missing"
            else:
                fix_paths(v, out)
    elif isinstance(obj, list):
        for v in obj:
            fix_paths(v, out)


def finish(out, manifest, args, timings, merge=None):
    if not manifest.get("dry_run") and not args.compile_only:
        manifest["hashed_outputs_above_bytes"] = HASH_ABOVE
        manifest["compacted_outputs"] = compact(out)
        fix_paths(manifest, out)
    manifest["elapsed_s"] = round(time.time() - T0, 1)
    manifest["phase_seconds"] = timings
    manifest["phase_errors"] = PHASE_ERRORS
    final = manifest
    if merge:
        final = merge.manifest(manifest)
        if not manifest.get("dry_run") and not args.compile_only:
            fix_paths(final, out)
    write_json(os.path.join(out, "manifest.json"), final)
    if args.tar and merge:
        # What an --only run changes: its cases and the corpus-wide files.
        size = make_tar(out, args.tar, only={"manifest.json", "cases", "ptx", "ptxas", "sass", "ncu", "timing",
                                             "logs"}, cases=merge.names)
        log(f"tar {args.tar}: {size / 2**20:.2f} MiB" + ("  ** OVER 16 MiB **" if size > TAR_LIMIT else ""))
    elif args.tar:
        for path, size in write_tars(out, args.tar):
            log(f"tar {path}: {size / 2**20:.2f} MiB" + ("  ** OVER 16 MiB **" if size > TAR_LIMIT else ""))
    cases = manifest["cases"]
    bad = [(e["name"], v, s) for e in cases for v, s in e["status"].items()
           if s not in ("ok", "dry-run", "compiled", "pending")]
    log("")
    for n, v, s in bad[:40]:
        log(f"not ok: {n} [{v}]: {s[:200]}")
    for grp in ("access", "calib"):
        for v in ("O3", "G"):
            sts = [e["status"][v] for e in cases if e["group"] == grp and v in e["status"]]
            if not sts:
                continue
            prof = sum(1 for e in cases if e["group"] == grp and v in e.get("ncu", {}))
            log(f"{grp:7} {v:3} specs {len(sts):4}  ok {sum(1 for s in sts if s == 'ok'):4}  ncu rows {prof:4}")
    n = manifest.get("ncu", {})
    if n:
        log(f"ncu dropped: {len(n.get('dropped', {}))}; fatal: {n.get('fatal')}")
    mi = manifest.get("micro")
    if mi:
        log(f"micro: {mi.get('compile', '')[:80]} results {mi.get('results')} errors {mi.get('errors')}")
    log(f"elapsed {manifest['elapsed_s']}s; phases {timings}")


if __name__ == "__main__":
    sys.exit(main())
