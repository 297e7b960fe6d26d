#!/usr/bin/env python3
"""Local checks of the application corpus generator (no GPU needed).

    python3 testdata/apps/gen/test_apps.py        (or: bash check_local.sh)

- the dry run writes every case's inputs and four specs, each valid (fill
  rules included), with module paths for the four builds;
- corpus shape: at least 36 kernels, at least 10 calibration-sized launches,
  input files at most 256 KiB, every case described;
- runspec's real CuPy backend, driven through the CuPy stand-in of
  testdata/nvcc/gen/test_gen.py, runs every spec (fills generated, output
  sizes right);
- with nvcc on PATH: --compile-only resolves every kernel at all four builds
  and checks each case's arguments against its .param list.
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
NVCC_GEN = os.path.join(os.path.dirname(os.path.dirname(HERE)), "nvcc", "gen")
sys.path.insert(0, NVCC_GEN)

import runspec  # noqa: E402
import test_gen  # noqa: E402  (for its CuPy stand-in)

GEN = os.path.join(HERE, "gen.py")
VARIANTS = ("O3", "G", "fast", "nofma")


def load_cases():
    import importlib.util
    spec = importlib.util.spec_from_file_location("app_cases", os.path.join(HERE, "app_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


AC = load_cases()


class DryRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="apps-dry.")
        p = subprocess.run([sys.executable, GEN, "--out", cls.out, "--dry-run"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        cls.log, cls.rc = p.stdout, p.returncode
        with open(os.path.join(cls.out, "manifest.json")) as f:
            cls.manifest = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def test_ran(self):
        self.assertEqual(self.rc, 0, self.log)
        self.assertEqual(len(self.manifest["cases"]), len(AC.CASES))
        self.assertEqual(self.manifest["corpus"], "apps")
        self.assertEqual(sorted(self.manifest["variants"]), sorted(VARIANTS))

    def test_shape(self):
        kernels = {(c.module, c.kernel) for c in AC.CASES}
        self.assertGreaterEqual(len(kernels), 36)
        self.assertGreaterEqual(len(AC.BIG), 10)
        for c in AC.CASES:
            self.assertEqual(c.issue, 7)
            self.assertTrue(c.desc and c.families, c.name)
            self.assertTrue(os.path.isfile(os.path.join(HERE, "kernels", c.module + ".cu")), c.module)
            for b in c.buffers + c.symbols:
                if b.data is not None:
                    self.assertLessEqual(b.count * runspec.SIZES[b.type], 256 * 1024, f"{c.name}.{b.name}")

    def test_specs_valid(self):
        nfill = 0
        for e in self.manifest["cases"]:
            self.assertEqual(sorted(e["spec"]), sorted(VARIANTS))
            for v, sp in e["spec"].items():
                path = os.path.join(self.out, sp)
                spec = runspec.load_spec(path)
                self.assertEqual(runspec.validate_spec(spec, os.path.dirname(path)), [], f"{e['name']} {v}")
                self.assertEqual(spec["module"], f"../../../ptx/{e['module']}.{v}.ptx")
                nfill += sum(1 for b in spec["buffers"] if "fill" in b)
        self.assertGreater(nfill, 0)

    def test_launch_covers(self):
        # one-thread-per-element kernels: enough threads for n
        per_elem = {"jacobi2d", "lu_scale", "gauss_fan1", "atax_k1", "atax_k2", "spmv_csr", "bfs_expand",
                    "bfs_update", "sssp_relax", "pagerank_pull", "kmeans_assign", "backprop_output_error",
                    "gelu_tanh", "gelu_erf", "gelu_f16x2", "adam_step", "black_scholes", "conv1d_f16"}
        for c in AC.CASES:
            if c.kernel not in per_elem:
                continue
            threads = 1
            for g, b in zip(c.grid, c.block):
                threads *= g * b
            ns = [v for k, v in c.args if k == "u32"]
            self.assertGreaterEqual(threads, max(ns[:2]) if c.kernel == "jacobi2d" else ns[-1]
                                    if c.kernel not in ("atax_k1", "atax_k2") else ns[0], c.name)


class FakeCupyBackend(unittest.TestCase):
    def test_every_spec_runs(self):
        root = tempfile.mkdtemp(prefix="apps-fakecupy.")
        try:
            pkg = os.path.join(root, "py", "cupy")
            os.makedirs(os.path.join(pkg, "cuda"))
            with open(os.path.join(pkg, "__init__.py"), "w") as f:
                f.write(test_gen.FAKE_CUPY)
            with open(os.path.join(pkg, "cuda", "__init__.py"), "w") as f:
                f.write("import cupy as _c\nruntime = _c.runtime\ndriver = _c.cuda.driver\n"
                        "texture = _c.cuda.texture\nalloc = _c.cuda.alloc\n")
            out = os.path.join(root, "apps")
            subprocess.run([sys.executable, GEN, "--out", out, "--dry-run"], check=True,
                           stdout=subprocess.DEVNULL)
            os.makedirs(os.path.join(out, "ptx"))
            for c in AC.CASES:
                for v in VARIANTS:
                    open(os.path.join(out, "ptx", f"{c.module}.{v}.ptx"), "w").close()
            script = (
                "import sys, glob, os\n"
                "sys.path.insert(0, %r)\n"
                "import runspec, cupy\n"
                "n = 0\n"
                "for p in sorted(glob.glob(os.path.join(%r, 'cases', '*', 'nofma', 'spec.json'))):\n"
                "    out = runspec.run_spec(p)\n"
                "    spec = runspec.load_spec(p)\n"
                "    sizes = {b['name']: b['count'] * runspec.SIZES[b['type']] for b in spec['buffers']}\n"
                "    assert set(out) == set(spec['outputs']), p\n"
                "    for k, v in out.items():\n"
                "        assert len(v) == sizes[k], (p, k)\n"
                "    n += 1\n"
                "print(n, len(cupy.LAUNCHES))\n"
            ) % (NVCC_GEN, out)
            env = dict(os.environ, PYTHONPATH=os.path.join(root, "py"))
            env.pop("RUNSPEC_FAKE", None)
            r = subprocess.run([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:])
            self.assertEqual(r.stdout.split()[-2:], [str(len(AC.CASES))] * 2)
        finally:
            shutil.rmtree(root, ignore_errors=True)


@unittest.skipUnless(shutil.which("nvcc") and shutil.which("ptxas"), "nvcc not on PATH")
class CompileOnly(unittest.TestCase):
    def test_compile_only(self):
        out = tempfile.mkdtemp(prefix="apps-cc.")
        try:
            p = subprocess.run([sys.executable, GEN, "--out", out, "--compile-only"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.assertEqual(p.returncode, 0, p.stdout[-3000:])
            with open(os.path.join(out, "manifest.json")) as f:
                m = json.load(f)
            bad = [(e["name"], v, s) for e in m["cases"] for v, s in e["status"].items() if s != "compiled"]
            self.assertEqual(bad, [])
            for e in m["cases"]:
                for v in VARIANTS:
                    self.assertTrue(e["mangled"][v], (e["name"], v))
                    self.assertIn("registers", e["ptxas"].get(v, {}), (e["name"], v))
            for mod in AC.modules():
                for v in VARIANTS:
                    self.assertTrue(os.path.isfile(os.path.join(out, "sass", f"{mod}.{v}.sass.gz")), (mod, v))
        finally:
            shutil.rmtree(out, ignore_errors=True)


@unittest.skipUnless(shutil.which("nvcc") and shutil.which("ptxas"), "nvcc not on PATH")
class PipelineWithFakes(unittest.TestCase):
    """gen.py end to end for a few cases with real nvcc/ptxas, the
    RUNSPEC_FAKE runner and the stand-in ncu of test_gen.py: four variants,
    fills, a digest for a large output, the cycle column in the manifest."""

    def test_pipeline(self):
        root = tempfile.mkdtemp(prefix="apps-pipe.")
        try:
            bindir = os.path.join(root, "bin")
            os.makedirs(bindir)
            ncu = os.path.join(bindir, "ncu")
            with open(ncu, "w") as f:
                f.write("#!" + sys.executable + "\n" + test_gen.FAKE_NCU.split("\n", 1)[1])
            os.chmod(ncu, 0o755)
            out = os.path.join(root, "apps")
            env = dict(os.environ, RUNSPEC_FAKE="1", PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
            only = "heat1d_block,adam_big,nw_tile_diag"
            r = subprocess.run([sys.executable, GEN, "--out", out, "--only", only, "--ncu-chunk", "5",
                                "--tar", os.path.join(root, "apps.tgz")], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:])
            with open(os.path.join(out, "manifest.json")) as f:
                m = json.load(f)
            for e in m["cases"]:
                self.assertEqual(set(e["status"].values()), {"ok"}, e["name"])
                self.assertEqual(sorted(e["ncu"]), sorted(VARIANTS), e["name"])
                self.assertIn("sm__cycles_elapsed.max", e["ncu"]["O3"], e["name"])
            exp = os.path.join(out, "cases", "adam_big", "G", "expected")
            self.assertEqual(sorted(os.listdir(exp)), ["m.sha256", "p.sha256", "v.sha256"])
            self.assertTrue(os.path.isfile(os.path.join(out, "cases", "heat1d_block", "fast", "expected",
                                                        "out.bin")))
            self.assertIn("launches >= 30000 cycles", r.stdout)
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
