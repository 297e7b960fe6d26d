#!/usr/bin/env python3
"""Run launch specs (launch spec v1, see docs/launch-spec.md) on a real GPU through CuPy.

Library interface (shared with the conformance-suite generator):

    run_spec(spec_path) -> dict[str, bytes]      # output buffer name -> bytes
    write_expected(spec_path, outputs)           # <spec dir>/expected/<name>.bin
    load_spec(spec_path) -> dict
    validate_spec(spec, spec_dir, check_files=True) -> list[str]   # no CuPy needed
    run_batch(spec_paths, write=True, ...) -> dict[str, str]       # "ok" or an error

Command line:

    python3 runspec.py SPEC.json [SPEC.json ...] [--list FILE] [--no-write]

prints one line per spec ("ok  PATH" or "FAIL PATH: error") and keeps going
after a failing spec. A kernel fault (illegal address, ...) poisons the CUDA
context; the batch driver therefore runs the specs in a worker subprocess and
starts a fresh worker for the remaining specs when one dies.

Only our own kernels are launched: buffers are moved with cudaMemcpy /
cudaMemset (no CuPy elementwise kernel), so under Nsight Compute every
profiled kernel is one spec's kernel, in spec order.

Extensions to the v1 contract (optional fields; specs without them mean what
v1 says):
  - scalar args also accept u8 s8 u16 s16 (and f16);
  - textures: "channels" (1, 2 or 4; default 1), "read" ("element" or
    "normalized"; default element), "gather" (true: the CUDA array is created
    with cudaArrayTextureGather, needed by tex2Dgather); border colour is 0;
    "dims" is [width, height, depth] (x first); the buffer holds
    width*height*depth*channels elements, x fastest, channels interleaved;
  - "stack_bytes": raise cudaLimitStackSize to at least this many bytes per
    thread before the launch (recursion);
  - "tolerance" (read by the comparison, ignored here);
  - buffers and symbols may carry "fill" instead of "file": contents
    generated from a rule (rand: splitmix64; iota; const), see fill_array();
  - outputs larger than HASH_ABOVE bytes are recorded as
    expected/<name>.sha256 (lowercase hex SHA-256, a space, the byte count)
    instead of expected/<name>.bin (write_expected);
  - a launch that fails with a CUDA error can be recorded as the expected
    result: expected/ERROR (write_error), see ERROR_FILE below.

Set RUNSPEC_FAKE=1 to run without a GPU: a host-memory stand-in for CuPy that
launches nothing and returns the output buffers' initial contents (for
testing the batch machinery). RUNSPEC_FAKE_FATAL=<kernel> makes that kernel
behave like a poisoned context; RUNSPEC_FAKE_HANG=<kernel> makes it hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import traceback

# ---------------------------------------------------------------------------
# Types

# Buffer element types: numpy dtype strings (little-endian).
DTYPES = {
    "u8": "<u1", "s8": "<i1", "u16": "<u2", "s16": "<i2",
    "u32": "<u4", "s32": "<i4", "u64": "<u8", "s64": "<i8",
    "f16": "<f2", "f32": "<f4", "f64": "<f8",
    "bf16": "<u2",  # raw bfloat16 bits (numpy has no bf16 type)
}
SIZES = {k: int(v[-1]) for k, v in DTYPES.items()}
SCALAR_TYPES = ("u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "f16", "f32", "f64")
INT_RANGES = {
    "u8": (0, 2**8 - 1), "s8": (-2**7, 2**7 - 1),
    "u16": (0, 2**16 - 1), "s16": (-2**15, 2**15 - 1),
    "u32": (0, 2**32 - 1), "s32": (-2**31, 2**31 - 1),
    "u64": (0, 2**64 - 1), "s64": (-2**63, 2**63 - 1),
}
TEX_FORMATS = ("u8", "s8", "u16", "s16", "u32", "s32", "f16", "f32")
TEX_ADDRESS = ("clamp", "wrap", "mirror", "border")
TEX_FILTER = ("point", "linear")
TEX_READ = ("element", "normalized")

STICKY_ERRORS = (
    "IllegalAddress", "ILLEGAL_ADDRESS", "LaunchFailure", "LAUNCH_FAILED",
    "IllegalInstruction", "ILLEGAL_INSTRUCTION", "MisalignedAddress",
    "MISALIGNED_ADDRESS", "InvalidAddressSpace", "INVALID_ADDRESS_SPACE",
    "InvalidPc", "INVALID_PC", "HardwareStackError", "HARDWARE_STACK_ERROR",
    "Assert", "ASSERT", "LaunchTimeout", "LAUNCH_TIMEOUT", "ECCUncorrectable",
    "ECC_UNCORRECTABLE", "Unknown", "UNKNOWN", "ContextIsDestroyed",
    "CONTEXT_IS_DESTROYED",
)


# Outputs above this many bytes are recorded as a digest (expected/<name>.sha256).
HASH_ABOVE = 256 * 1024
FILL_KINDS = ("rand", "iota", "const")
FLOAT_TYPES = ("f16", "f32", "f64")
# expected/ERROR: the launch failed, and that failure is the expected result.
# Line 1: the error's name exactly as CUDA reported it (e.g.
# cudaErrorIllegalInstruction, CUDA_ERROR_ILLEGAL_INSTRUCTION) or "hang" (the
# kernel did not finish within the runner's timeout and was killed); the rest
# is the full message, for people only.
ERROR_FILE = "ERROR"


class SpecError(Exception):
    """A spec that is malformed or cannot be run."""


class FatalGPUError(Exception):
    """The CUDA context is unusable after this error; a new process is needed."""


# ---------------------------------------------------------------------------
# Loading and validating (no CuPy needed)

def load_spec(spec_path: str) -> dict:
    with open(spec_path) as f:
        spec = json.load(f)
    if not isinstance(spec, dict):
        raise SpecError(f"{spec_path}: top level is not an object")
    return spec


def _dims3(v, what):
    if not isinstance(v, list) or not 1 <= len(v) <= 3 or not all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in v):
        raise SpecError(f"{what}: want a list of 1 to 3 positive integers, got {v!r}")
    return tuple(v) + (1,) * (3 - len(v))


def validate_spec(spec: dict, spec_dir: str, check_files: bool = True) -> list:
    """Return a list of problems (empty when the spec is well-formed)."""
    errs = []

    def err(msg):
        errs.append(msg)

    for key in ("module", "kernel", "grid", "block", "buffers", "args", "outputs"):
        if key not in spec:
            err(f"missing field {key!r}")
    if errs:
        return errs
    if not isinstance(spec["module"], str) or not spec["module"]:
        err("module: want a path")
    if not isinstance(spec["kernel"], str) or not spec["kernel"]:
        err("kernel: want a name")
    for key in ("grid", "block"):
        try:
            _dims3(spec[key], key)
        except SpecError as e:
            errs.append(str(e))
    if not errs:
        b = _dims3(spec["block"], "block")
        if b[0] * b[1] * b[2] > 1024:
            err(f"block: {b} has more than 1024 threads")
    dsm = spec.get("dynamic_shared_bytes", 0)
    if not isinstance(dsm, int) or isinstance(dsm, bool) or dsm < 0:
        err(f"dynamic_shared_bytes: want a non-negative integer, got {dsm!r}")
    sb = spec.get("stack_bytes", 0)
    if not isinstance(sb, int) or isinstance(sb, bool) or sb < 0:
        err(f"stack_bytes: want a non-negative integer, got {sb!r}")

    bufs = {}
    for kind in ("buffers", "symbols"):
        items = spec.get(kind, [])
        if not isinstance(items, list):
            err(f"{kind}: want a list")
            continue
        seen = set()
        for j, b in enumerate(items):
            where = f"{kind}[{j}]"
            if not isinstance(b, dict):
                err(f"{where}: want an object")
                continue
            name = b.get("name")
            if not isinstance(name, str) or not name:
                err(f"{where}: missing name")
                continue
            where = f"{kind} {name!r}"
            if name in seen:
                err(f"{where}: duplicate name")
            seen.add(name)
            t = b.get("type")
            if t not in DTYPES:
                err(f"{where}: type {t!r} is not one of {' '.join(DTYPES)}")
                continue
            cnt = b.get("count")
            if not isinstance(cnt, int) or isinstance(cnt, bool) or cnt < 1:
                err(f"{where}: count must be a positive integer, got {cnt!r}")
                continue
            if kind == "buffers":
                bufs[name] = b
            if "fill" in b:
                if "file" in b:
                    err(f"{where}: fill and file are exclusive")
                for msg in fill_problems(b["fill"], t):
                    err(f"{where}: fill: {msg}")
            if "file" in b:
                if not isinstance(b["file"], str):
                    err(f"{where}: file must be a path")
                elif check_files:
                    p = os.path.join(spec_dir, b["file"])
                    if not os.path.isfile(p):
                        err(f"{where}: file {b['file']!r} does not exist")
                    else:
                        want = cnt * SIZES[t]
                        got = os.path.getsize(p)
                        if got != want:
                            err(f"{where}: file {b['file']!r} has {got} bytes, want {want} "
                                f"({cnt} x {t})")

    texs = {}
    for j, t in enumerate(spec.get("textures", []) or []):
        where = f"textures[{j}]"
        if not isinstance(t, dict) or not isinstance(t.get("name"), str):
            err(f"{where}: want an object with a name")
            continue
        name = t["name"]
        where = f"texture {name!r}"
        if name in texs:
            err(f"{where}: duplicate name")
        texs[name] = t
        b = bufs.get(t.get("buffer"))
        if b is None:
            err(f"{where}: buffer {t.get('buffer')!r} is not a buffer")
            continue
        fmt = t.get("format")
        if fmt not in TEX_FORMATS:
            err(f"{where}: format {fmt!r} is not one of {' '.join(TEX_FORMATS)}")
            continue
        if fmt != b["type"]:
            err(f"{where}: format {fmt} differs from buffer type {b['type']}")
        ch = t.get("channels", 1)
        if ch not in (1, 2, 4):
            err(f"{where}: channels must be 1, 2 or 4")
            continue
        dims = t.get("dims")
        if not isinstance(dims, list) or not 1 <= len(dims) <= 3 or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims):
            err(f"{where}: dims must be 1 to 3 positive integers")
            continue
        linear = bool(t.get("linear", False))
        n = ch
        for d in dims:
            n *= d
        if linear:
            if len(dims) != 1:
                err(f"{where}: a linear texture has one dimension")
            if n > b["count"]:
                err(f"{where}: needs {n} elements, buffer has {b['count']}")
            if t.get("normalized"):
                err(f"{where}: a linear texture takes no normalized coordinates")
        elif n != b["count"]:
            err(f"{where}: dims x channels = {n} elements, buffer has {b['count']}")
        addr = t.get("address", "clamp")
        filt = t.get("filter", "point")
        read = t.get("read", "element")
        if addr not in TEX_ADDRESS:
            err(f"{where}: address {addr!r} is not one of {' '.join(TEX_ADDRESS)}")
        if filt not in TEX_FILTER:
            err(f"{where}: filter {filt!r} is not one of {' '.join(TEX_FILTER)}")
        if read not in TEX_READ:
            err(f"{where}: read {read!r} is not one of {' '.join(TEX_READ)}")
        if read == "normalized" and fmt not in ("u8", "s8", "u16", "s16"):
            err(f"{where}: normalized reads need an 8- or 16-bit integer format")
        if filt == "linear" and fmt not in ("f16", "f32") and read != "normalized":
            err(f"{where}: linear filtering needs a float format or normalized reads")
        if addr in ("wrap", "mirror") and not t.get("normalized") and not linear:
            err(f"{where}: {addr} addressing needs normalized coordinates")

    args = spec.get("args")
    if not isinstance(args, list):
        err("args: want a list")
    else:
        for j, a in enumerate(args):
            where = f"args[{j}]"
            if not isinstance(a, dict) or len(a) != 1:
                err(f"{where}: want an object with exactly one key")
                continue
            (k, v), = a.items()
            if k == "buffer":
                if v not in bufs:
                    err(f"{where}: buffer {v!r} is not a buffer")
            elif k == "texture":
                if v not in texs:
                    err(f"{where}: texture {v!r} is not a texture")
            elif k in INT_RANGES:
                lo, hi = INT_RANGES[k]
                if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                    err(f"{where}: {k} value {v!r} out of range")
            elif k in ("f16", "f32", "f64"):
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    err(f"{where}: {k} value {v!r} is not a number")
            else:
                err(f"{where}: unknown argument kind {k!r}")

    outs = spec.get("outputs")
    if not isinstance(outs, list) or not outs:
        err("outputs: want a non-empty list of buffer names")
    else:
        for o in outs:
            if o not in bufs:
                err(f"outputs: {o!r} is not a buffer")
    return errs


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def fill_problems(fill, t):
    """Problems with a buffer's "fill" object for element type t (empty: fine)."""
    if not isinstance(fill, dict):
        return ["want an object"]
    kind = fill.get("kind")
    if kind not in FILL_KINDS:
        return [f"kind {kind!r} is not one of {' '.join(FILL_KINDS)}"]
    if t not in FLOAT_TYPES and t not in INT_RANGES:
        return [f"not defined for type {t}"]
    allowed = {"rand": {"kind", "seed", "lo", "hi"}, "iota": {"kind", "start", "step"},
               "const": {"kind", "value"}}[kind]
    errs = [f"unknown field {k!r}" for k in fill if k not in allowed]
    isf = t in FLOAT_TYPES
    if kind == "rand":
        seed = fill.get("seed")
        if not _is_int(seed) or not 0 <= seed < 2**64:
            errs.append(f"seed {seed!r} is not an unsigned 64-bit integer")
        if isf:
            for k in ("lo", "hi"):
                if not _is_num(fill.get(k)):
                    errs.append(f"{k} {fill.get(k)!r}: a float fill needs numbers lo and hi")
        else:
            lo, hi = INT_RANGES[t]
            lo, hi = fill.get("lo", lo), fill.get("hi", hi)
            if not _is_int(lo) or not _is_int(hi):
                errs.append(f"lo/hi {lo!r}/{hi!r}: an integer fill needs integers")
            elif not (-2**63 <= lo <= hi < 2**64) or hi - lo >= 2**64:
                errs.append(f"lo/hi {lo}/{hi}: want -2^63 <= lo <= hi < 2^64, hi - lo < 2^64")
    elif kind == "iota":
        for k in ("start", "step"):
            v = fill.get(k, 0)
            if not (_is_num(v) if isf else _is_int(v)):
                errs.append(f"{k} {v!r} is not a{' number' if isf else 'n integer'}")
    else:
        v = fill.get("value")
        if not (_is_num(v) if isf else _is_int(v)):
            errs.append(f"value {v!r} is not a{' number' if isf else 'n integer'}")
    return errs


_SM_GAMMA = 0x9E3779B97F4A7C15
_SM_M1 = 0xBF58476D1CE4E5B9
_SM_M2 = 0x94D049BB133111EB


def splitmix64(seed, index):
    """z = splitmix64(seed, i) for a numpy array of indices (uint64 array out)."""
    import numpy as np
    u = np.uint64
    i = np.asarray(index, dtype=np.uint64)
    s = (i + u(1)) * u(_SM_GAMMA) + u(seed & (2**64 - 1))   # wraps mod 2^64
    z = (s ^ (s >> u(30))) * u(_SM_M1)
    z = (z ^ (z >> u(27))) * u(_SM_M2)
    return z ^ (z >> u(31))


def _wrap_int(v_u64, t):
    """uint64 values -> element type t, keeping the low bits (two's complement)."""
    import numpy as np
    bits = SIZES[t] * 8
    raw = v_u64.astype(np.dtype(f"<u{bits // 8}"))      # C cast: keeps the low bits
    return raw.view(np.dtype(DTYPES[t]))


def fill_array(fill, t, n):
    """The n elements of type t that a "fill" object describes (see FILL in
    the README): rand = splitmix64(seed, i) mapped to [lo, hi); iota =
    start + i*step; const = value. Floats are computed in float64 and rounded
    to the type with round-to-nearest-even; integers wrap to the type."""
    import numpy as np
    problems = fill_problems(fill, t)
    if problems:
        raise SpecError("fill: " + "; ".join(problems))
    dt = np.dtype(DTYPES[t])
    kind = fill["kind"]
    idx = np.arange(n, dtype=np.uint64)
    if t in FLOAT_TYPES:
        if kind == "rand":
            z = splitmix64(fill["seed"], idx)
            u = (z >> np.uint64(11)).astype(np.float64) * 2.0**-53   # exact: < 2^53
            lo, hi = float(fill["lo"]), float(fill["hi"])
            v = lo + (hi - lo) * u
        elif kind == "iota":
            v = float(fill.get("start", 0)) + idx.astype(np.float64) * float(fill.get("step", 1))
        else:
            v = np.full(n, float(fill["value"]), dtype=np.float64)
        return v.astype(dt)
    mod = 2**64
    if kind == "rand":
        z = splitmix64(fill["seed"], idx)
        lo_t, hi_t = INT_RANGES[t]
        lo, hi = fill.get("lo", lo_t), fill.get("hi", hi_t)
        width = (hi - lo + 1) % mod
        off = z if width == 0 else z % np.uint64(width)
        v = off + np.uint64(lo % mod)
    elif kind == "iota":
        start, step = fill.get("start", 0), fill.get("step", 1)
        v = idx * np.uint64(step % mod) + np.uint64(start % mod)
    else:
        v = np.full(n, fill["value"] % mod, dtype=np.uint64)
    return _wrap_int(v, t)


def _read_array(spec_dir, item):
    """The host contents of a buffer or symbol: from its file or fill rule, or zeros."""
    import numpy as np
    dt = np.dtype(DTYPES[item["type"]])
    n = item["count"]
    if "fill" in item:
        return fill_array(item["fill"], item["type"], n)
    if "file" in item:
        a = np.fromfile(os.path.join(spec_dir, item["file"]), dtype=dt)
        if a.size != n:
            raise SpecError(f"{item['name']}: file has {a.size} elements, want {n}")
        return a
    return np.zeros(n, dtype=dt)


def sha256_line(data: bytes) -> str:
    """The contents of an expected/<name>.sha256 file for these bytes."""
    import hashlib
    return f"{hashlib.sha256(data).hexdigest()} {len(data)}\n"


def write_expected(spec_path: str, outputs: dict, hash_above: int = HASH_ABOVE) -> None:
    """Write <spec dir>/expected/<name>.bin for each output, or
    expected/<name>.sha256 for an output of more than hash_above bytes (a
    stale file of the other kind, and a stale expected/ERROR, are removed)."""
    d = os.path.join(os.path.dirname(os.path.abspath(spec_path)), "expected")
    os.makedirs(d, exist_ok=True)
    _remove(os.path.join(d, ERROR_FILE))
    for name, data in outputs.items():
        binp, shap = os.path.join(d, name + ".bin"), os.path.join(d, name + ".sha256")
        if len(data) > hash_above:
            _remove(binp)
            with open(shap, "w") as f:
                f.write(sha256_line(data))
        else:
            _remove(shap)
            with open(binp, "wb") as f:
                f.write(data)


def _remove(path):
    if os.path.exists(path):
        os.remove(path)


_ERR_NAME_RE = None


def error_name(message: str) -> str:
    """The CUDA error name in an exception text (cudaErrorX or CUDA_ERROR_X),
    or "hang" for a timeout, or "unknown"."""
    global _ERR_NAME_RE
    import re
    if _ERR_NAME_RE is None:
        _ERR_NAME_RE = re.compile(r"\b(cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+)\b")
    m = _ERR_NAME_RE.search(message)
    if m:
        return m.group(1)
    if message.startswith("timeout") or "hang" in message:
        return "hang"
    return "unknown"


def write_error(spec_path: str, message: str) -> str:
    """Record that this spec's launch failed, as its expected result:
    expected/ERROR holds the error's name on the first line (error_name) and
    the message after it; expected output files are removed. Returns the name."""
    d = os.path.join(os.path.dirname(os.path.abspath(spec_path)), "expected")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        _remove(os.path.join(d, f))
    name = error_name(message)
    with open(os.path.join(d, ERROR_FILE), "w") as f:
        f.write(name + "\n" + " ".join(message.split()) + "\n")
    return name


# ---------------------------------------------------------------------------
# The GPU side

class _Backend:
    """CuPy objects, imported lazily so that validation works without CuPy."""

    def __init__(self):
        import numpy as np
        import cupy
        from cupy.cuda import runtime, driver
        from cupy.cuda import texture as ctex
        self.np = np
        self.cupy = cupy
        self.rt = runtime
        self.drv = driver
        self.tex = ctex
        self.modules = {}        # absolute path -> cupy.RawModule
        self.kernels = {}        # (path, name) -> cupy.RawKernel
        self.stack_limit = None

    def module(self, path):
        m = self.modules.get(path)
        if m is None:
            m = self.cupy.RawModule(path=path)   # cuModuleLoad: the driver JITs the PTX
            self.modules[path] = m
        return m

    def kernel(self, path, name):
        k = self.kernels.get((path, name))
        if k is None:
            k = self.module(path).get_function(name)
            self.kernels[(path, name)] = k
        return k

    def ensure_stack(self, nbytes):
        limit = getattr(self.rt, "cudaLimitStackSize", 0)
        if self.stack_limit is None:
            self.stack_limit = self.rt.deviceGetLimit(limit)
        if nbytes > self.stack_limit:
            self.rt.deviceSetLimit(limit, nbytes)
            self.stack_limit = nbytes

    def alloc(self, host):
        """Device copy of a host numpy array (1-D); returns a MemoryPointer."""
        nbytes = host.nbytes
        mp = self.cupy.cuda.alloc(max(nbytes, 1))
        if nbytes:
            mp.copy_from_host(host.ctypes.data, nbytes)
        return mp

    def channel_desc(self, fmt, channels):
        rt = self.rt
        bits = SIZES[fmt] * 8
        kind = (rt.cudaChannelFormatKindFloat if fmt in ("f16", "f32")
                else rt.cudaChannelFormatKindSigned if fmt.startswith("s")
                else rt.cudaChannelFormatKindUnsigned)
        xs = [bits if c < channels else 0 for c in range(4)]
        return self.tex.ChannelFormatDescriptor(xs[0], xs[1], xs[2], xs[3], kind)

    def texture(self, t, host, mp):
        rt, ctex, np = self.rt, self.tex, self.np
        fmt = t["format"]
        ch = t.get("channels", 1)
        dims = list(t["dims"])
        desc = self.channel_desc(fmt, ch)
        mode = {"wrap": rt.cudaAddressModeWrap, "clamp": rt.cudaAddressModeClamp,
                "mirror": rt.cudaAddressModeMirror,
                "border": rt.cudaAddressModeBorder}[t.get("address", "clamp")]
        filt = (rt.cudaFilterModeLinear if t.get("filter", "point") == "linear"
                else rt.cudaFilterModePoint)
        read = (rt.cudaReadModeNormalizedFloat if t.get("read", "element") == "normalized"
                else rt.cudaReadModeElementType)
        keep = []
        if t.get("linear"):
            size = dims[0] * ch * SIZES[fmt]
            view = self.cupy.ndarray((size,), dtype=self.cupy.uint8, memptr=mp)
            res = ctex.ResourceDescriptor(rt.cudaResourceTypeLinear, arr=view, chDesc=desc,
                                          sizeInBytes=size)
            tdesc = ctex.TextureDescriptor(
                addressModes=(rt.cudaAddressModeClamp,) * 3,
                filterMode=rt.cudaFilterModePoint, readMode=read, normalizedCoords=0,
                borderColors=(0.0, 0.0, 0.0, 0.0))
            keep.append(view)
        else:
            w = dims[0]
            h = dims[1] if len(dims) > 1 else 0
            d = dims[2] if len(dims) > 2 else 0
            flags = 8 if t.get("gather") else 0          # cudaArrayTextureGather
            arr = ctex.CUDAarray(desc, w, h, d, flags)
            native = host.astype(host.dtype.newbyteorder("="), copy=False)
            if len(dims) == 1:
                shaped = native.reshape(w * ch)
            elif len(dims) == 2:
                shaped = native.reshape(h, w * ch)
            else:
                shaped = native.reshape(d, h, w * ch)
            arr.copy_from(np.ascontiguousarray(shaped))
            res = ctex.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
            tdesc = ctex.TextureDescriptor(
                addressModes=(mode, mode, mode), filterMode=filt, readMode=read,
                normalizedCoords=1 if t.get("normalized") else 0,
                borderColors=(0.0, 0.0, 0.0, 0.0))
            keep.append(arr)
        obj = ctex.TextureObject(res, tdesc)
        keep.extend([res, tdesc, desc])
        return obj, keep

    def run(self, spec_path):
        np = self.np
        spec = load_spec(spec_path)
        spec_dir = os.path.dirname(os.path.abspath(spec_path))
        problems = validate_spec(spec, spec_dir)
        if problems:
            raise SpecError("; ".join(problems))
        module_path = os.path.abspath(os.path.join(spec_dir, spec["module"]))
        if not os.path.isfile(module_path):
            raise SpecError(f"module {spec['module']!r} does not exist")
        kern = self.kernel(module_path, spec["kernel"])
        if spec.get("stack_bytes"):
            self.ensure_stack(spec["stack_bytes"])

        hosts, ptrs, keep = {}, {}, []
        for b in spec["buffers"]:
            host = _read_array(spec_dir, b)
            hosts[b["name"]] = host
            ptrs[b["name"]] = self.alloc(host)
        mod = self.module(module_path)
        for s in spec.get("symbols", []) or []:
            host = _read_array(spec_dir, s)
            try:
                mp = mod.get_global(s["name"])
            except Exception as e:
                raise SpecError(f"symbol {s['name']!r}: {e}")
            mp.copy_from_host(host.ctypes.data, host.nbytes)
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
                args.append(np.array([v], dtype=np.dtype(DTYPES[k])))

        dsm = spec.get("dynamic_shared_bytes", 0)
        if dsm > 48 * 1024:
            kern.max_dynamic_shared_size_bytes = dsm
        grid = _dims3(spec["grid"], "grid")
        block = _dims3(spec["block"], "block")
        self.rt.deviceSynchronize()
        kern(grid, block, tuple(args), shared_mem=dsm)
        self.rt.deviceSynchronize()

        out = {}
        for name in spec["outputs"]:
            host = np.empty_like(hosts[name])
            ptrs[name].copy_to_host(host.ctypes.data, host.nbytes)
            out[name] = host.tobytes()
        # Give the memory back (cudaFree), so that the next launch starts from
        # the same state and, under ncu, kernel replay saves and restores
        # only this spec's buffers.
        del keep, texobjs, ptrs, args
        self.cupy.get_default_memory_pool().free_all_blocks()
        return out

    def healthy(self):
        try:
            self.rt.deviceSynchronize()
            mp = self.cupy.cuda.alloc(256)
            mp.memset(0, 256)
            self.rt.deviceSynchronize()
            return True
        except Exception:
            return False


class _FakeBackend:
    """Host-only stand-in (RUNSPEC_FAKE=1): validates, loads inputs, launches
    nothing, returns the outputs' initial contents."""

    def run(self, spec_path):
        spec = load_spec(spec_path)
        spec_dir = os.path.dirname(os.path.abspath(spec_path))
        problems = validate_spec(spec, spec_dir)
        if problems:
            raise SpecError("; ".join(problems))
        k = spec["kernel"]
        if os.environ.get("RUNSPEC_FAKE_FATAL") == k:
            raise FatalGPUError("cudaErrorIllegalAddress: an illegal memory access was "
                                "encountered (fake)")
        if os.environ.get("RUNSPEC_FAKE_HANG") == k:
            time.sleep(3600)
        out = {}
        for b in spec["buffers"]:
            if b["name"] in spec["outputs"]:
                out[b["name"]] = _read_array(spec_dir, b).tobytes()
        return out

    def healthy(self):
        return True


_backend = None


def _get_backend():
    global _backend
    if _backend is None:
        _backend = _FakeBackend() if os.environ.get("RUNSPEC_FAKE") else _Backend()
    return _backend


def _is_sticky(e: BaseException) -> bool:
    s = f"{type(e).__name__}: {e}"
    return any(tok in s for tok in STICKY_ERRORS)


def run_spec(spec_path: str) -> dict:
    """Run one spec in this process; return {output name: bytes}.

    Raises SpecError for a bad spec, FatalGPUError when the CUDA context was
    poisoned (the caller must continue in a new process), and other
    exceptions for other failures."""
    be = _get_backend()
    try:
        return be.run(spec_path)
    except (SpecError, FatalGPUError):
        raise
    except Exception as e:
        if _is_sticky(e) or not be.healthy():
            raise FatalGPUError(f"{type(e).__name__}: {e}") from e
        raise


# ---------------------------------------------------------------------------
# Batches: a worker subprocess, restarted after a fatal error or a crash.

def _worker(list_path, status_path, start, write, record_errors=False):
    with open(list_path) as f:
        paths = [line.rstrip("\n") for line in f if line.strip()]
    with open(status_path, "a", buffering=1) as st:
        for i in range(start, len(paths)):
            st.write(json.dumps({"i": i, "event": "start"}) + "\n")
            st.flush()
            rec = {"i": i, "event": "done", "status": "ok"}
            fatal = False
            try:
                out = run_spec(paths[i])
                if write:
                    write_expected(paths[i], out)
            except FatalGPUError as e:
                rec.update(status="error", error=f"fatal: {e}")
                fatal = True
                if write and record_errors:
                    rec.update(status="expected-error", error=write_error(paths[i], str(e)))
            except SpecError as e:
                rec.update(status="error", error=f"spec: {e}")
            except Exception as e:
                tb = traceback.format_exc(limit=3).strip().splitlines()
                rec.update(status="error",
                           error=f"{type(e).__name__}: {e} [{' | '.join(tb[-3:])}]")
                if write and record_errors and error_name(str(e)) not in ("unknown", "hang"):
                    rec.update(status="expected-error", error=write_error(paths[i], str(e)))
            st.write(json.dumps(rec) + "\n")
            st.flush()
            if fatal:
                return 3
    return 0


def _one_line(s, limit=400):
    s = " ".join(str(s).split())
    return s if len(s) <= limit else s[:limit] + "..."


def run_batch(spec_paths, write=True, timeout=120.0, log=None, python=None, record_errors=False):
    """Run specs in order in worker subprocesses; return {path: "ok" | error}.

    A worker that dies (fatal CUDA error, crash) or hangs (no progress for
    `timeout` seconds on one spec) is replaced by a fresh one that continues
    with the next spec. This process never touches CUDA.

    record_errors (with write): a launch that fails with a CUDA error, or
    hangs, has that failure recorded as its expected result (expected/ERROR,
    see write_error); its status is then "expected-error <name>"."""
    paths = [os.path.abspath(p) for p in spec_paths]
    result = {}
    if not paths:
        return result
    log = log or (lambda s: print(s, flush=True))
    python = python or sys.executable
    tmp = tempfile.mkdtemp(prefix="runspec.")
    list_path = os.path.join(tmp, "list.txt")
    with open(list_path, "w") as f:
        f.write("\n".join(paths) + "\n")
    status_path = os.path.join(tmp, "status.jsonl")
    open(status_path, "w").close()
    start = 0
    consumed = 0          # bytes of the status file already read
    while start < len(paths):
        first = start
        cmd = [python, os.path.abspath(__file__), "--worker", list_path, status_path,
               str(start), "1" if write else "0", "1" if record_errors else "0"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        out_chunks = []

        def pump(p=proc, acc=out_chunks):
            for line in p.stdout:
                acc.append(line)
        th = threading.Thread(target=pump, daemon=True)
        th.start()
        current, started_at, any_started = None, time.time(), False
        while True:
            rc = proc.poll()
            with open(status_path) as f:
                f.seek(consumed)
                data = f.read()
            lines = data.split("\n")
            complete, rest = lines[:-1], lines[-1]
            consumed += len(data) - len(rest)
            for line in complete:
                if not line.strip():
                    continue
                rec = json.loads(line)
                i = rec["i"]
                if rec["event"] == "start":
                    current, started_at, any_started = i, time.time(), True
                elif rec["status"] == "expected-error":
                    st = "expected-error " + rec["error"]
                    result[paths[i]] = st
                    log("err  " + paths[i] + ": " + st)
                    current = None
                    start = i + 1
                else:
                    st = "ok" if rec["status"] == "ok" else _one_line(rec.get("error", "error"))
                    result[paths[i]] = st
                    log(("ok   " if st == "ok" else "FAIL ") + paths[i] +
                        ("" if st == "ok" else ": " + st))
                    current = None
                    start = i + 1
            if rc is not None:
                break
            if current is not None and time.time() - started_at > timeout:
                try:
                    os.killpg(proc.pid, 9)
                except OSError:
                    pass
                proc.wait()
                result[paths[current]] = f"timeout after {timeout:.0f}s"
                if write and record_errors:
                    result[paths[current]] = "expected-error " + write_error(
                        paths[current], f"timeout after {timeout:.0f}s: the kernel did not finish "
                        "(hang); the runner killed it")
                log(f"FAIL {paths[current]}: timeout after {timeout:.0f}s")
                start = current + 1
                current = None
                break
            time.sleep(0.05)
        th.join(timeout=5)
        try:
            proc.stdout.close()
        except OSError:
            pass
        tail = _one_line("".join(out_chunks)[-800:])
        if current is not None:
            # The worker died inside this spec without reporting it (a crash).
            msg = f"worker died (exit {proc.returncode}) while running it: {tail}"
            result[paths[current]] = msg
            log(f"FAIL {paths[current]}: {msg}")
            start = current + 1
        elif not any_started and start == first and start < len(paths):
            # The worker could not even start (import error, no GPU): report
            # every remaining spec instead of retrying forever.
            msg = f"worker failed to start (exit {proc.returncode}): {tail}"
            for p in paths[start:]:
                result[p] = msg
                log(f"FAIL {p}: {msg}")
            break
    return result


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--worker":
        _, list_path, status_path, start, write, *rest = argv
        sys.exit(_worker(list_path, status_path, int(start), write == "1",
                         bool(rest) and rest[0] == "1"))
    import argparse
    ap = argparse.ArgumentParser(description="Run launch specs on the GPU and write "
                                             "<spec dir>/expected/<output>.bin.")
    ap.add_argument("specs", nargs="*", help="spec.json files")
    ap.add_argument("--list", action="append", default=[],
                    help="file with one spec path per line (may repeat)")
    ap.add_argument("--no-write", action="store_true",
                    help="run without writing expected/ (e.g. under ncu)")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds one spec may run before its worker is killed")
    ap.add_argument("--status-json", help="write {spec: status} here")
    ap.add_argument("--record-errors", action="store_true",
                    help="record a launch's CUDA error or hang as its expected result "
                         "(expected/ERROR)")
    args = ap.parse_args(argv)
    paths = list(args.specs)
    for lf in args.list:
        with open(lf) as f:
            paths += [line.strip() for line in f if line.strip() and not line.startswith("#")]
    if not paths:
        ap.error("no specs given")
    res = run_batch(paths, write=not args.no_write, timeout=args.timeout,
                    record_errors=args.record_errors)
    if args.status_json:
        with open(args.status_json, "w") as f:
            json.dump(res, f, indent=1)
    nok = sum(1 for v in res.values() if v == "ok")
    nerr = sum(1 for v in res.values() if v.startswith("expected-error"))
    print(f"{nok} ok, {len(res) - nok - nerr} failed"
          + (f", {nerr} expected errors recorded" if nerr else ""), flush=True)
    return 0 if nok + nerr == len(res) else 1


if __name__ == "__main__":
    sys.exit(main())
