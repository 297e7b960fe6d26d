#!/usr/bin/env python3
"""Local checks of the generator that need no GPU and no CUDA toolkit.

    python3 testdata/nvcc/gen/test_gen.py        (or: bash check_local.sh)

- the dry run writes every case's inputs and specs, and each spec is valid:
  every argument names an existing buffer/texture, every input file holds
  count x size bytes, the outputs are buffers, textures fit their buffers;
- the launch shapes cover the data the kernels index (n <= threads where the
  kernel takes n);
- runspec's batch driver survives a poisoned context and a hung kernel
  (RUNSPEC_FAKE stand-in for CuPy) and writes expected/;
- the PTX helpers find entries, .param sizes, opcodes and calls;
- with nvcc on PATH (any version with sm_90), --compile-only resolves every
  kernel and checks every case's arguments against the .param list.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases as C  # noqa: E402
import gen  # noqa: E402
import runspec  # noqa: E402


class DryRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="nvcc-dry.")
        p = subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), "--out", cls.out,
                            "--dry-run"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        cls.log = p.stdout
        cls.rc = p.returncode
        with open(os.path.join(cls.out, "manifest.json")) as f:
            cls.manifest = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def test_ran(self):
        self.assertEqual(self.rc, 0, self.log)
        self.assertEqual(len(self.manifest["cases"]), len(C.CASES))

    def test_counts(self):
        n2 = sum(1 for c in C.CASES if c.issue == 2)
        n3 = sum(1 for c in C.CASES if c.issue == 3)
        self.assertGreaterEqual(n2, 40)
        self.assertGreaterEqual(n3, 20)
        kernels = {(c.module, c.kernel) for c in C.CASES if c.issue == 2}
        self.assertGreaterEqual(len(kernels), 40)

    def test_specs_valid(self):
        for e in self.manifest["cases"]:
            for v, sp in e["spec"].items():
                path = os.path.join(self.out, sp)
                spec = runspec.load_spec(path)
                problems = runspec.validate_spec(spec, os.path.dirname(path), check_files=True)
                self.assertEqual(problems, [], f"{e['name']} {v}")
                self.assertEqual(spec["module"], f"../../../ptx/{e['module']}.{v}.ptx")
                names = {b["name"] for b in spec["buffers"]}
                for o in spec["outputs"]:
                    self.assertIn(o, names)

    def test_sizes(self):
        for c in C.CASES:
            for b in c.buffers + c.symbols:
                nbytes = b.count * runspec.SIZES[b.type]
                self.assertLessEqual(nbytes, 256 * 1024, f"{c.name}.{b.name}")

    def test_launch_covers_n(self):
        # Kernels whose last argument is n must have at least n threads,
        # unless they loop (grid-stride).
        loops = {"saxpy_grid_stride", "hist_global_atomic", "hist_shared_atomic", "dot_product",
                 "reduce_sum_f32", "stencil_1d", "atomic_float_exact", "recursion"}
        for c in C.CASES:
            if not c.args or c.args[-1][0] != "u32" or c.name in loops:
                continue
            threads = 1
            for g, b in zip(c.grid, c.block):
                threads *= g * b
            n = c.args[-1][1]
            if c.kernel in ("mandelbrot", "dynamic_shared"):
                continue
            self.assertGreaterEqual(threads, n, c.name)

    def test_f32_args_exact(self):
        for c in C.CASES:
            for k, v in c.args:
                if k == "f32":
                    import numpy as np
                    self.assertEqual(float(np.float32(v)), v, c.name)

    def test_every_case_has_description_and_families(self):
        for c in C.CASES:
            self.assertTrue(c.desc and c.families, c.name)
            self.assertTrue(os.path.isfile(os.path.join(HERE, "kernels", c.module + ".cu")), c.module)


class FakeBatch(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="runspec-fake.")
        self.env = dict(os.environ)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.environ.clear()
        os.environ.update(self.env)

    def _spec(self, name, kernel):
        d = os.path.join(self.dir, name)
        os.makedirs(d)
        import numpy as np
        np.arange(8, dtype="<u4").tofile(os.path.join(d, "in.bin"))
        spec = {"module": "m.ptx", "kernel": kernel, "grid": [1, 1, 1], "block": [8, 1, 1],
                "buffers": [{"name": "out", "type": "u32", "count": 8, "file": "in.bin"}],
                "args": [{"buffer": "out"}, {"u32": 8}], "outputs": ["out"]}
        p = os.path.join(d, "spec.json")
        with open(p, "w") as f:
            json.dump(spec, f)
        return p

    def test_restart_after_fatal_and_hang(self):
        os.environ["RUNSPEC_FAKE"] = "1"
        os.environ["RUNSPEC_FAKE_FATAL"] = "boom"
        os.environ["RUNSPEC_FAKE_HANG"] = "hang"
        specs = [self._spec("a", "k1"), self._spec("b", "boom"), self._spec("c", "k2"),
                 self._spec("d", "hang"), self._spec("e", "k3")]
        bad = os.path.join(self.dir, "bad.json")
        with open(bad, "w") as f:
            f.write('{"module": "x"}')
        specs.insert(1, bad)
        lines = []
        res = runspec.run_batch(specs, write=True, timeout=3, log=lines.append)
        st = {os.path.basename(os.path.dirname(p)) if p != bad else "bad": s for p, s in res.items()}
        self.assertEqual(st["a"], "ok")
        self.assertTrue(st["bad"].startswith("spec:"), st["bad"])
        self.assertIn("fatal", st["b"])
        self.assertEqual(st["c"], "ok")
        self.assertIn("timeout", st["d"])
        self.assertEqual(st["e"], "ok")
        with open(os.path.join(self.dir, "e", "expected", "out.bin"), "rb") as f:
            self.assertEqual(len(f.read()), 32)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "b", "expected")))

    def test_record_errors_and_fill(self):
        import numpy as np
        os.environ["RUNSPEC_FAKE"] = "1"
        os.environ["RUNSPEC_FAKE_FATAL"] = "boom"
        os.environ["RUNSPEC_FAKE_HANG"] = "hang"
        specs = [self._spec("a", "boom"), self._spec("b", "hang"), self._spec("c", "k")]
        # c: a filled output of 2^17 u32 (512 KiB) is recorded as a digest
        with open(specs[2]) as f:
            spec = json.load(f)
        spec["buffers"] = [{"name": "out", "type": "u32", "count": 1 << 17,
                            "fill": {"kind": "iota", "start": 3}}]
        with open(specs[2], "w") as f:
            json.dump(spec, f)
        res = runspec.run_batch(specs, write=True, timeout=3, log=lambda s: None, record_errors=True)
        st = {os.path.basename(os.path.dirname(p)): s for p, s in res.items()}
        self.assertEqual(st["a"], "expected-error cudaErrorIllegalAddress")
        self.assertEqual(st["b"], "expected-error hang")
        self.assertEqual(st["c"], "ok")
        with open(os.path.join(self.dir, "a", "expected", "ERROR")) as f:
            self.assertEqual(f.readline().strip(), "cudaErrorIllegalAddress")
        with open(os.path.join(self.dir, "b", "expected", "ERROR")) as f:
            self.assertEqual(f.readline().strip(), "hang")
        want = np.arange(3, 3 + (1 << 17), dtype="<u4").tobytes()
        with open(os.path.join(self.dir, "c", "expected", "out.sha256")) as f:
            self.assertEqual(f.read(), runspec.sha256_line(want))

    def test_cli(self):
        env = dict(os.environ, RUNSPEC_FAKE="1")
        p1 = self._spec("x", "k")
        lst = os.path.join(self.dir, "list.txt")
        with open(lst, "w") as f:
            f.write(p1 + "\n")
        r = subprocess.run([sys.executable, os.path.join(HERE, "runspec.py"), "--list", lst,
                            "--no-write"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("1 ok, 0 failed", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "x", "expected")))


def _splitmix64_scalar(seed, i):
    """An independent scalar splitmix64 (Python integers), as FILL.md words it."""
    m = 2**64 - 1
    s = (seed + (i + 1) * 0x9E3779B97F4A7C15) & m
    z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


class Fill(unittest.TestCase):
    """The "fill" buffer field and hashed expected outputs (FILL.md)."""

    # Computed with a separate C program (uint64_t arithmetic) for this test.
    KNOWN = [(0, 0, 0xe220a8397b1dcdaf), (0, 1, 0x6e789e6aa1b965f4), (0, 2, 0x06c45d188009454f),
             (7, 0, 0x63cbe1e459320dd7), (7, 2, 0xe6984080bab12a02),
             (2**64 - 1, 0, 0xe4d971771b652c20), (2**64 - 1, 1, 0xe99ff867dbf682c9),
             (12345, 1, 0x346edce5f713f8ed), (7, 1000000, 0xa266b3da0c52b8bc)]

    def test_splitmix64_known(self):
        import numpy as np
        for seed, i, want in self.KNOWN:
            self.assertEqual(_splitmix64_scalar(seed, i), want, (seed, i))
            got = int(runspec.splitmix64(seed, np.array([i], dtype=np.uint64))[0])
            self.assertEqual(got, want, (seed, i))

    def test_splitmix64_matches_scalar(self):
        import numpy as np
        for seed in (1, 99, 2**63 + 5, 0xDEADBEEFCAFEBABE):
            z = runspec.splitmix64(seed, np.arange(300, dtype=np.uint64))
            self.assertEqual([int(x) for x in z], [_splitmix64_scalar(seed, i) for i in range(300)])

    def test_float_rand(self):
        import numpy as np
        a = runspec.fill_array({"kind": "rand", "seed": 7, "lo": -1, "hi": 1}, "f32", 3)
        self.assertEqual(a.dtype, np.dtype("<f4"))
        self.assertEqual([int(x) for x in a.view("<u4")], [0xbe61a0f1, 0xbf776786, 0x3f4d3081])
        d = runspec.fill_array({"kind": "rand", "seed": 7, "lo": -1, "hi": 1}, "f64", 2)
        self.assertEqual(float(d[0]), -0.22034050321745702)
        for i in range(2):
            u = (_splitmix64_scalar(7, i) >> 11) * 2.0**-53
            self.assertEqual(float(d[i]), -1.0 + 2.0 * u)
        h = runspec.fill_array({"kind": "rand", "seed": 3, "lo": 0, "hi": 1000}, "f16", 64)
        for i in range(64):
            u = (_splitmix64_scalar(3, i) >> 11) * 2.0**-53
            self.assertEqual(h[i].tobytes(), np.float16(0.0 + 1000.0 * u).tobytes())

    def test_int_rand(self):
        import numpy as np
        a = runspec.fill_array({"kind": "rand", "seed": 3, "lo": 10, "hi": 20}, "u32", 3)
        self.assertEqual(a.tolist(), [14, 19, 16])
        full = runspec.fill_array({"kind": "rand", "seed": 5}, "u64", 4)
        self.assertEqual(full.tolist(), [_splitmix64_scalar(5, i) for i in range(4)])
        s64 = runspec.fill_array({"kind": "rand", "seed": 5}, "s64", 4)
        def signed(v, bits):
            v %= 2**bits
            return v - 2**bits if v >= 2**(bits - 1) else v
        self.assertEqual(s64.tolist(), [signed(-2**63 + _splitmix64_scalar(5, i), 64) for i in range(4)])
        s8 = runspec.fill_array({"kind": "rand", "seed": 9, "lo": -3, "hi": 3}, "s8", 200)
        self.assertEqual(s8.dtype, np.dtype("i1"))
        self.assertEqual(s8.tolist(), [-3 + _splitmix64_scalar(9, i) % 7 for i in range(200)])
        u8 = runspec.fill_array({"kind": "rand", "seed": 9}, "u8", 50)
        self.assertEqual(u8.tolist(), [_splitmix64_scalar(9, i) % 256 for i in range(50)])
        # lo beyond the type: wrapped to the element's width
        w = runspec.fill_array({"kind": "rand", "seed": 1, "lo": 250, "hi": 260}, "u8", 20)
        self.assertEqual(w.tolist(), [(250 + _splitmix64_scalar(1, i) % 11) % 256 for i in range(20)])

    def test_iota_const(self):
        import numpy as np
        self.assertEqual(runspec.fill_array({"kind": "iota", "start": 5, "step": -2}, "u16", 4).tolist(),
                         [5, 3, 1, 65535])
        self.assertEqual(runspec.fill_array({"kind": "iota"}, "s32", 3).tolist(), [0, 1, 2])
        f = runspec.fill_array({"kind": "iota", "start": 0.5, "step": 0.1}, "f32", 3)
        self.assertEqual(f.tolist(), [float(np.float32(0.5 + i * 0.1)) for i in range(3)])
        c = runspec.fill_array({"kind": "const", "value": 0.1}, "f16", 2)
        self.assertEqual(c.view("<u2").tolist(), [0x2E66, 0x2E66])
        self.assertEqual(runspec.fill_array({"kind": "const", "value": -1}, "u32", 2).tolist(),
                         [0xFFFFFFFF] * 2)

    def test_validate(self):
        base = {"module": "m.ptx", "kernel": "k", "grid": [1], "block": [1],
                "args": [{"buffer": "a"}], "outputs": ["a"]}
        ok = dict(base, buffers=[{"name": "a", "type": "f32", "count": 1 << 20,
                                  "fill": {"kind": "rand", "seed": 7, "lo": -1, "hi": 1}}])
        self.assertEqual(runspec.validate_spec(ok, "/nonexistent"), [])
        bad = [
            {"name": "a", "type": "f32", "count": 4, "fill": {"kind": "rand", "seed": 1}},
            {"name": "a", "type": "f32", "count": 4, "file": "x.bin", "fill": {"kind": "iota"}},
            {"name": "a", "type": "u32", "count": 4, "fill": {"kind": "gauss", "seed": 1}},
            {"name": "a", "type": "u32", "count": 4, "fill": {"kind": "rand", "seed": -1}},
            {"name": "a", "type": "u32", "count": 4, "fill": {"kind": "rand", "seed": 1, "lo": 5, "hi": 2}},
            {"name": "a", "type": "u32", "count": 4, "fill": {"kind": "const", "value": 0.5}},
            {"name": "a", "type": "bf16", "count": 4, "fill": {"kind": "iota"}},
            {"name": "a", "type": "u32", "count": 4, "fill": {"kind": "iota", "stride": 2}},
        ]
        for b in bad:
            self.assertNotEqual(runspec.validate_spec(dict(base, buffers=[b]), "/nonexistent",
                                                      check_files=False), [], b)

    def test_write_expected_hash_and_error(self):
        import hashlib
        d = tempfile.mkdtemp(prefix="fill.")
        try:
            sp = os.path.join(d, "spec.json")
            big, small = bytes(range(256)) * 1025, b"\x01\x02"
            runspec.write_expected(sp, {"big": big, "small": small})
            e = os.path.join(d, "expected")
            self.assertEqual(sorted(os.listdir(e)), ["big.sha256", "small.bin"])
            with open(os.path.join(e, "big.sha256")) as f:
                self.assertEqual(f.read(), hashlib.sha256(big).hexdigest() + " 262400\n")
            name = runspec.write_error(sp, "CUDARuntimeError: cudaErrorIllegalInstruction: an "
                                           "illegal instruction was encountered")
            self.assertEqual(name, "cudaErrorIllegalInstruction")
            self.assertEqual(os.listdir(e), ["ERROR"])
            with open(os.path.join(e, "ERROR")) as f:
                self.assertEqual(f.readline(), "cudaErrorIllegalInstruction\n")
            runspec.write_expected(sp, {"small": small})
            self.assertEqual(os.listdir(e), ["small.bin"])
            self.assertEqual(runspec.error_name("timeout after 5s"), "hang")
            self.assertEqual(runspec.error_name("CUDADriverError: CUDA_ERROR_ILLEGAL_ADDRESS: x"),
                             "CUDA_ERROR_ILLEGAL_ADDRESS")
        finally:
            shutil.rmtree(d, ignore_errors=True)


PTX = r"""
.version 8.0
.target sm_90
.address_size 64
.global .align 4 .b8 tab[16];
.func  (.param .b32 func_retval0) _Z3fibj(
	.param .b32 _Z3fibj_param_0
)
{
	.reg .b32 	%r<3>;
	ld.param.u32 	%r1, [_Z3fibj_param_0];
	st.param.b32 	[func_retval0+0], %r1;
	ret;
}
.visible .entry _Z4kernPfPKfhj(
	.param .u64 .ptr .global .align 4 _Z4kernPfPKfhj_param_0,
	.param .u64 _Z4kernPfPKfhj_param_1,
	.param .u8 _Z4kernPfPKfhj_param_2,
	.param .align 8 .b8 _Z4kernPfPKfhj_param_3[16]
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.loc	1 10 3
	mov.u32 	%r1, %tid.x;
	setp.ge.u32 	%p1, %r1, 8;
	@%p1 bra 	$L__BB0_2;
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0),
	_Z3fibj,
	(
	param0
	);
	ld.param.b32 	%r2, [retval0+0];
	} // callseq 0
$L__BB0_2: ret;
}
.visible .entry plain_c()
{
	exit;
}
"""


class PtxHelpers(unittest.TestCase):
    def test_parse(self):
        f = gen.parse_ptx(PTX)
        self.assertEqual(set(f), {"_Z3fibj", "_Z4kernPfPKfhj", "plain_c"})
        self.assertEqual(f["_Z4kernPfPKfhj"]["params"], [8, 8, 1, 16])
        self.assertEqual(f["_Z4kernPfPKfhj"]["calls"], {"_Z3fibj"})
        self.assertEqual(gen.resolve_kernel(f, "kern"), "_Z4kernPfPKfhj")
        self.assertEqual(gen.resolve_kernel(f, "plain_c"), "plain_c")
        ops = gen.kernel_opcodes(f, "_Z4kernPfPKfhj")
        self.assertEqual(ops, {"mov.u32", "setp.ge.u32", "bra", "st.param.b32", "call.uni",
                               "ld.param.b32", "ret", "ld.param.u32"})
        with self.assertRaises(ValueError):
            gen.resolve_kernel(f, "missing")

    def test_ptxas(self):
        text = """ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'
ptxas info    : Function properties for _Z1kPf
    16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 30 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]
"""
        d = gen.parse_ptxas(text)["_Z1kPf"]
        self.assertEqual(d, {"stack_frame": 16, "spill_stores": 4, "spill_loads": 8,
                             "registers": 30, "barriers": 1, "smem": 1024, "cmem0": 368})

    def test_ncu_csv(self):
        text = ('==PROF== Connected to process 1\n"ID","Process ID","Kernel Name","m1"\n'
                '"","","","byte"\n"0","1","_Z1kPf","12"\n==PROF== Disconnected\n')
        hdr, rows = gen._ncu_csv_rows(text)
        self.assertEqual(hdr, ["ID", "Process ID", "Kernel Name", "m1"])
        self.assertEqual(rows[0][0], "")
        self.assertEqual(rows[1][2], "_Z1kPf")
        self.assertEqual(gen._bad_metrics("==ERROR== Failed to find metric m1.sum\n", ["m1.sum", "m2"]),
                         {"m1.sum"})
        self.assertTrue(gen._same_kernel("_Z1kPf", ("c", "p", "_Z1kPf", "k")))
        self.assertTrue(gen._same_kernel("k(float *)", ("c", "p", "_Z1kPf", "k")))
        self.assertFalse(gen._same_kernel("k2", ("c", "p", "_Z1kPf", "k")))

    def test_configure_ncu_lists(self):
        """configure() can give a corpus its own ncu metrics and extra flags,
        and a configure() without them restores the defaults."""
        saved = (gen.C, gen.KERNELS_DIR, gen.VARIANTS, gen.CORPUS, gen.DEFAULT_OUT, gen.SASS_GZIP,
                 gen.NCU_METRICS, gen.NCU_FLAGS)
        try:
            default_metrics, default_flags = list(gen.NCU_METRICS), list(gen.NCU_FLAGS)
            gen.configure("x", C, gen.KERNELS_DIR, {"O3": ["-O3"]}, "/tmp/x",
                          ncu_metrics=["a.sum", "b.max"], ncu_extra_flags=["--print-metric-instances", "values"])
            self.assertEqual(gen.NCU_METRICS, ["a.sum", "b.max"])
            self.assertEqual(gen.NCU_FLAGS, default_flags + ["--print-metric-instances", "values"])
            with tempfile.TemporaryDirectory(prefix="ncu-cfg.") as d:
                self.assertEqual(gen.Ncu(d, 0, 1).metrics, ["a.sum", "b.max"])
            gen.configure("x", C, gen.KERNELS_DIR, {"O3": ["-O3"]}, "/tmp/x")
            self.assertEqual((gen.NCU_METRICS, gen.NCU_FLAGS), (default_metrics, default_flags))
        finally:
            (gen.C, gen.KERNELS_DIR, gen.VARIANTS, gen.CORPUS, gen.DEFAULT_OUT, gen.SASS_GZIP,
             gen.NCU_METRICS, gen.NCU_FLAGS) = saved



# A minimal stand-in for the CuPy API surface runspec uses (checked against
# CuPy's sources: cupy/_core/raw.pyx, cupy/cuda/{function,memory,texture}.pyx):
# enough to drive runspec's real backend (_Backend) without a GPU and catch
# mistakes in how it calls CuPy. Memory lives in host bytearrays.
FAKE_CUPY = r"""
import numpy
_mem = {}
_next = [0x7f0000000000]
LAUNCHES = []

class MemoryPointer:
    def __init__(self, n):
        self.ptr = _next[0]; _next[0] += ((n + 511) // 512) * 512 + 512
        _mem[self.ptr] = bytearray(n)
    def copy_from_host(self, mem, size):
        assert isinstance(mem, int)
        import ctypes
        _mem[self.ptr][:size] = ctypes.string_at(mem, size)
    def copy_to_host(self, mem, size):
        import ctypes
        ctypes.memmove(mem, bytes(_mem[self.ptr][:size]), size)
    def memset(self, value, size):
        _mem[self.ptr][:size] = bytes([value]) * size

class _Cuda:
    pass
cuda = _Cuda()
def _alloc(n):
    return MemoryPointer(n)
cuda.alloc = _alloc

class _RT:
    cudaLimitStackSize = 0
    cudaChannelFormatKindSigned, cudaChannelFormatKindUnsigned, cudaChannelFormatKindFloat = 0, 1, 2
    cudaResourceTypeArray, cudaResourceTypeLinear = 0, 2
    cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror, cudaAddressModeBorder = 0, 1, 2, 3
    cudaFilterModePoint, cudaFilterModeLinear = 0, 1
    cudaReadModeElementType, cudaReadModeNormalizedFloat = 0, 1
    limit = 1024
    def deviceSynchronize(self): pass
    def deviceGetLimit(self, l): assert l == 0; return self.limit
    def deviceSetLimit(self, l, v): assert l == 0; self.limit = v
runtime = _RT()
cuda.runtime = runtime
cuda.driver = object()

class _Tex:
    class ChannelFormatDescriptor:
        def __init__(self, x, y, z, w, f):
            self.d = dict(x=x, y=y, z=z, w=w, f=f)
        def get_channel_format(self): return self.d
    class CUDAarray:
        def __init__(self, desc, width, height=0, depth=0, flags=0):
            assert width > 0 and not (height == 0 and depth > 0)
            self.desc, self.width, self.height, self.depth, self.flags = desc, width, height, depth, flags
            self.ndim = 3 if depth > 0 else 2 if height > 0 else 1
            self.ptr = 1
        def copy_from(self, arr, stream=None):
            ch = self.desc.d
            nch = sum(1 for k in "xyzw" if ch[k] > 0)
            want = {3: (self.depth, self.height, nch * self.width),
                    2: (self.height, nch * self.width), 1: (nch * self.width,)}[self.ndim]
            if arr.shape != want:
                raise ValueError("shape mismatch %r != %r" % (arr.shape, want))
            ok = {0: (numpy.int8, numpy.int16, numpy.int32), 1: (numpy.uint8, numpy.uint16, numpy.uint32),
                  2: (numpy.float16, numpy.float32)}[ch["f"]]
            if arr.dtype not in ok:
                raise ValueError("dtype mismatch")
            bits = {numpy.dtype(t).itemsize * 8 for t in ok if numpy.dtype(t) == arr.dtype}
            assert ch["x"] in bits, (ch, arr.dtype)
    class ResourceDescriptor:
        def __init__(self, restype, cuArr=None, arr=None, chDesc=None, sizeInBytes=0, width=0,
                     height=0, pitchInBytes=0):
            if restype == 0:
                assert isinstance(cuArr, _Tex.CUDAarray)
            else:
                assert restype == 2 and isinstance(arr, ndarray) and chDesc is not None
                assert 0 < sizeInBytes <= arr.nbytes
            self.restype = restype
    class TextureDescriptor:
        def __init__(self, addressModes=None, filterMode=0, readMode=0, sRGB=None,
                     borderColors=None, normalizedCoords=None, maxAnisotropy=None):
            assert len(addressModes) <= 3 and len(borderColors) <= 4
            self.normalized = normalizedCoords
    class TextureObject:
        n = [100]
        def __init__(self, res, tex):
            self.ptr = _Tex.TextureObject.n[0]; _Tex.TextureObject.n[0] += 1
cuda.texture = _Tex()

class _Pool:
    def free_all_blocks(self): pass
def get_default_memory_pool():
    return _Pool()

uint8 = numpy.uint8
class ndarray:
    def __init__(self, shape, dtype=float, memptr=None):
        assert memptr is not None
        self.nbytes = shape[0] * numpy.dtype(dtype).itemsize
        self.data = memptr

class RawKernel:
    def __init__(self, name):
        self.name = name
        self._dsm = 48 * 1024
    @property
    def max_dynamic_shared_size_bytes(self): return self._dsm
    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, v): self._dsm = v
    def __call__(self, grid, block, args, **kw):
        assert isinstance(grid, tuple) and isinstance(block, tuple) and len(grid) == len(block) == 3
        assert set(kw) <= {"shared_mem", "stream"}
        assert kw.get("shared_mem", 0) <= self._dsm
        for a in args:
            assert isinstance(a, numpy.ndarray) and a.size == 1, a
        LAUNCHES.append((self.name, grid, block, [a.dtype.str for a in args]))

class RawModule:
    def __init__(self, *, code=None, path=None, options=()):
        assert path is not None and code is None
        self.path = path
        self.globals = {}
    def get_function(self, name):
        return RawKernel(name)
    def get_global(self, name):
        if name not in self.globals:
            self.globals[name] = MemoryPointer(4096)
        return self.globals[name]
"""


class FakeCupyBackend(unittest.TestCase):
    """runspec's real CuPy backend against the stand-in above."""

    def test_every_dry_spec_runs(self):
        root = tempfile.mkdtemp(prefix="fakecupy.")
        try:
            pkg = os.path.join(root, "py", "cupy")
            os.makedirs(pkg)
            with open(os.path.join(pkg, "__init__.py"), "w") as f:
                f.write(FAKE_CUPY)
            # "from cupy.cuda import runtime, driver, texture" needs submodules.
            os.makedirs(os.path.join(pkg, "cuda"))
            with open(os.path.join(pkg, "cuda", "__init__.py"), "w") as f:
                f.write("import cupy as _c\nruntime = _c.runtime\ndriver = _c.cuda.driver\n"
                        "texture = _c.cuda.texture\nalloc = _c.cuda.alloc\n")
            out = os.path.join(root, "out")
            subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), "--out", out, "--dry-run"],
                           check=True, stdout=subprocess.DEVNULL)
            # Placeholder modules so that the module-exists check passes.
            os.makedirs(os.path.join(out, "ptx"))
            for c in C.CASES:
                for v in ("O3", "G"):
                    open(os.path.join(out, "ptx", f"{c.module}.{v}.ptx"), "w").close()
            script = (
                "import sys, json, glob, os\n"
                "sys.path.insert(0, %r)\n"
                "import runspec, cupy\n"
                "for p in sorted(glob.glob(os.path.join(%r, 'cases', '*', 'O3', 'spec.json'))):\n"
                "    out = runspec.run_spec(p)\n"
                "    spec = runspec.load_spec(p)\n"
                "    sizes = {b['name']: b['count'] * runspec.SIZES[b['type']] for b in spec['buffers']}\n"
                "    assert set(out) == set(spec['outputs']), p\n"
                "    for k, v in out.items():\n"
                "        assert len(v) == sizes[k], (p, k)\n"
                "print(len(cupy.LAUNCHES))\n"
            ) % (HERE, out)
            env = dict(os.environ, PYTHONPATH=os.path.join(root, "py"))
            env.pop("RUNSPEC_FAKE", None)
            r = subprocess.run([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:])
            self.assertEqual(int(r.stdout.strip().splitlines()[-1]), len(C.CASES))
        finally:
            shutil.rmtree(root, ignore_errors=True)


@unittest.skipUnless(shutil.which("nvcc") and shutil.which("ptxas"), "nvcc not on PATH")
class CompileOnly(unittest.TestCase):
    def test_compile_only(self):
        out = tempfile.mkdtemp(prefix="nvcc-cc.")
        try:
            p = subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), "--out", out,
                                "--compile-only", "--no-targets"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.assertEqual(p.returncode, 0, p.stdout[-3000:])
            with open(os.path.join(out, "manifest.json")) as f:
                m = json.load(f)
            bad = [(e["name"], v, s) for e in m["cases"] for v, s in e["status"].items()
                   if s != "compiled"]
            self.assertEqual(bad, [])
            for e in m["cases"]:
                self.assertTrue(e["mangled"]["O3"], e["name"])
        finally:
            shutil.rmtree(out, ignore_errors=True)


FAKE_NCU = r"""#!/usr/bin/env python3
# A stand-in for Nsight Compute: runs the application with RUNSPEC_FAKE=1 and
# writes an ncu-like raw CSV (one row per spec that ran ok) to --log-file.
import json, os, subprocess, sys
a = sys.argv[1:]
if a and a[0] == "--version":
    print("fake ncu 0.0"); sys.exit(0)
metrics, logf, app, i = [], None, [], 0
takes = {"--page", "--print-units", "--print-kernel-base", "--clock-control", "--target-processes", "--metrics", "--log-file", "--print-metric-instances"}
while i < len(a):
    if a[i] == "--metrics": metrics = a[i+1].split(","); i += 2
    elif a[i] == "--log-file": logf = a[i+1]; i += 2
    elif a[i] in takes: i += 2
    elif a[i].startswith("--"): i += 1
    else: app = a[i:]; break
rej = os.environ.get("FAKE_NCU_REJECT", "")
silent = os.environ.get("FAKE_NCU_REJECT_SILENT", "")
out = open(logf, "w")
if os.environ.get("FAKE_NCU_PERM"):
    out.write("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n"); sys.exit(1)
if rej and rej in metrics:
    out.write(f"==ERROR== Failed to find metric {rej}\n"); sys.exit(1)
if silent and silent in metrics:
    out.write("==ERROR== Invalid metric configuration\n"); sys.exit(1)
env = dict(os.environ, RUNSPEC_FAKE="1")
p = subprocess.run(app, env=env)
st = json.load(open(app[app.index("--status-json") + 1]))
lst = app[app.index("--list") + 1]
hdr = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size", "Grid Size", "Device", "CC"] + metrics
q = lambda r: ",".join('"%s"' % x for x in r)
out.write("==PROF== Connected to process 1\n" + q(hdr) + "\n" + q([""] * 11 + ["unit"] * len(metrics)) + "\n")
n = 0
for path in [l.strip() for l in open(lst) if l.strip()]:
    if st.get(os.path.abspath(path)) != "ok": continue
    k = json.load(open(path))["kernel"]
    out.write(q([str(n), "1", "python3", "h", k, "1", "7", "(1,1,1)", "(1,1,1)", "0", "9.0"] + [str(n * 10 + j) for j in range(len(metrics))]) + "\n")
    n += 1
out.write("==PROF== Disconnected from process 1\n")
sys.exit(p.returncode)
"""


@unittest.skipUnless(shutil.which("nvcc") and shutil.which("ptxas"), "nvcc not on PATH")
class PipelineWithFakes(unittest.TestCase):
    """gen.py end to end with real nvcc/ptxas, the RUNSPEC_FAKE runner and a
    stand-in ncu that rejects one metric."""

    def test_pipeline(self):
        root = tempfile.mkdtemp(prefix="nvcc-pipe.")
        try:
            bindir = os.path.join(root, "bin")
            os.makedirs(bindir)
            ncu = os.path.join(bindir, "ncu")
            with open(ncu, "w") as f:
                f.write("#!" + sys.executable + "\n" + FAKE_NCU.split("\n", 1)[1])
            os.chmod(ncu, 0o755)
            out = os.path.join(root, "nvcc")
            env = dict(os.environ, RUNSPEC_FAKE="1", FAKE_NCU_REJECT="lts__t_sector_hit_rate.pct",
                       PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
            only = "matmul_tiled,int_carry_asm,recursion,warp_vote,tex2d_gather,elect_sync"
            r = subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), "--out", out, "--only",
                                only, "--no-targets", "--ncu-chunk", "4", "--tar",
                                os.path.join(root, "nvcc.tgz")], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:])
            with open(os.path.join(out, "manifest.json")) as f:
                m = json.load(f)
            self.assertEqual({e["status"]["O3"] for e in m["cases"]}, {"ok"}, r.stdout[-3000:])
            self.assertIn("lts__t_sector_hit_rate.pct", m["ncu"]["dropped"])
            for e in m["cases"]:
                self.assertIn("O3", e.get("ncu", {}), e["name"])
                with open(os.path.join(out, e["spec"]["O3"])) as f:
                    first_output = json.load(f)["outputs"][0]
                self.assertTrue(os.path.isfile(os.path.join(
                    out, "cases", e["name"], "O3", "expected", first_output + ".bin")), e["name"])
            self.assertTrue(os.path.isfile(os.path.join(root, "nvcc.tgz")))
            last = r.stdout.strip().splitlines()[-3:]
            self.assertTrue(last[0].startswith("variant"), last)
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
