#!/usr/bin/env python3
"""Local checks of the public-code corpus generator (no GPU needed).

    python3 testdata/public/gen/test_public.py        (or: bash check_local.sh)

- recipe.json: every project pinned (URL, 40-hex commit, license, files with
  SHA-256); every file a wrapper includes is in the recipe; .gitignore keeps
  src/, ptx/, sass/ and ptxas/ out of git; the wrappers hold no code of
  their own beyond #include/#define lines and template instantiations;
  with src/ fetched, fetch.py --check finds it exact;
- the dry run writes every case's inputs and spec, each valid (fill rules
  included); corpus shape: >= 40 kernels from >= 4 projects, a launch with a
  working set of 1 GiB or more and one of a few MiB at most, families and
  sizes on every case, pairs naming cases, nothing held out (PolyBench,
  Rodinia, llm.c);
- the Nsight Compute list is perf's TIMING set with --print-metric-instances;
- runspec's real CuPy backend, driven through the CuPy stand-in of
  testdata/nvcc/gen/test_gen.py, runs every spec up to 256 MiB (fills
  generated, output sizes right);
- with nvcc on PATH and src/ fetched: --compile-only resolves every kernel
  and checks each case's arguments against its .param list, and the whole
  pipeline runs for three cases with the fake runner and a stand-in ncu
  (gzip'd table, manifest fields, a tarball without src/).
"""

import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
PUBLIC = os.path.dirname(HERE)
TESTDATA = os.path.dirname(PUBLIC)
NVCC_GEN = os.path.join(TESTDATA, "nvcc", "gen")
sys.path.insert(0, NVCC_GEN)
sys.path.insert(0, HERE)

import runspec  # noqa: E402
import test_gen  # noqa: E402  (for its CuPy and ncu stand-ins)

GEN = os.path.join(HERE, "gen.py")
SRC = os.path.join(PUBLIC, "src")
HAVE_SRC = os.path.isdir(SRC)


def load(name, path):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PC = load("public_cases_t", os.path.join(HERE, "public_cases.py"))
with open(os.path.join(HERE, "recipe.json")) as _f:
    RECIPE = json.load(_f)
HELD_OUT = re.compile(
    r"(?i:polybench|rodinia|llm\.c|karpathy)|"
    r"/src/(layernorm|groupnorm|rmsnorm|softmax-online|permute|qkv|bfs|hotspot\w*|nw|srad|lud|pathfinder|"
    r"backprop|b\+tree|heartwall|kmeans|lavaMD|leukocyte|myocyte|particlefilter|streamcluster|cfd|gaussian|"
    r"hybridsort|dwt2d|huffman|nn|2mm|3mm|atax|bicg|gemm|gesummv|mvt|syrk|syr2k|fdtd2d|jacobi\w*|covariance|"
    r"correlation|convolution[23]D|adi|doitgen|gramschmidt|lu)-cuda/")


class Recipe(unittest.TestCase):
    def test_projects(self):
        names = set()
        for p in RECIPE["projects"]:
            names.add(p["name"])
            self.assertRegex(p["commit"], r"^[0-9a-f]{40}$", p["name"])
            self.assertTrue(p["url"].startswith("https://github.com/" + p["repo"]), p["name"])
            self.assertTrue(p["license"] and p["license_file"] in p["files"], p["name"])
            for path, digest in p["files"].items():
                self.assertRegex(digest, r"^[0-9a-f]{64}$", path)
                self.assertIsNone(HELD_OUT.search("/" + path), path)
        self.assertGreaterEqual(len(names), 4)

    def test_wrapper_includes_are_in_recipe(self):
        files = {f"{p['name']}/{f}" for p in RECIPE["projects"] for f in p["files"]}
        kdir = os.path.join(HERE, "kernels")
        used = set()
        for fn in sorted(os.listdir(kdir)):
            with open(os.path.join(kdir, fn)) as f:
                text = f.read()
            for inc in re.findall(r'#include "\.\./\.\./src/([^"]+)"', text):
                self.assertIn(inc, files, fn)
                used.add(inc)
        # every fetched .cu/.cuh is included by a wrapper or by a file a wrapper includes
        if HAVE_SRC:
            texts = []
            for u in used:
                with open(os.path.join(SRC, u), errors="replace") as f:
                    texts.append(f.read())
            for f in files:
                if f.endswith((".cu", ".cuh")) and f not in used:
                    base = os.path.basename(f)
                    self.assertTrue(any(base in t for t in texts), f"{f} is fetched but unused")

    def test_wrappers_hold_no_code(self):
        """Our kernels/*.cu and forwarding headers: comments, #include,
        #define, #pragma once, toolkit-version #if and explicit template
        instantiations only."""
        kdir = os.path.join(HERE, "kernels")
        for fn in sorted(os.listdir(kdir)):
            with open(os.path.join(kdir, fn)) as f:
                text = f.read()
            self.assertNotIn("{", text, fn)
            stmt = ""
            for line in text.splitlines():
                s = line.strip()
                if not s or s.startswith("//"):
                    continue
                if stmt or s.startswith("template "):
                    stmt += " " + s
                    if s.endswith(";"):
                        self.assertRegex(stmt.strip(), r"^template __global__ void \w+<[^;]*>\([^;]*\);$", fn)
                        stmt = ""
                    continue
                self.assertRegex(s, r"^#(include [<\"]|include_next <|define \w+|pragma once|endif$|"
                                    r"if (__CUDACC_VER_MAJOR__ >= \d+|__has_include_next\(<[\w.]+>\))$)",
                                 f"{fn}: {s}")
            self.assertEqual(stmt, "", fn)

    def test_gitignore(self):
        with open(os.path.join(PUBLIC, ".gitignore")) as f:
            lines = {ln.strip() for ln in f if ln.strip() and not ln.startswith("#")}
        for d in ("/src/", "/ptx/", "/sass/", "/ptxas/"):
            self.assertIn(d, lines)

    @unittest.skipUnless(HAVE_SRC, "src/ not fetched (fetch.py)")
    def test_src_exact(self):
        r = subprocess.run([sys.executable, os.path.join(HERE, "fetch.py"), "--check"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:])

    def test_fetch_from_a_mirror(self):
        """fetch.py against a local bare repository holding a pinned commit."""
        root = tempfile.mkdtemp(prefix="public-fetch.")
        try:
            work = os.path.join(root, "w")
            os.makedirs(os.path.join(work, "d"))
            with open(os.path.join(work, "d", "a.cu"), "w") as f:
                f.write("__global__ void k() {}\n")

            def git(*a, cwd=work):
                return subprocess.run(["git", *a], cwd=cwd, check=True, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True).stdout.strip()
            git("init", "-q")
            git("add", ".")
            git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
            commit = git("rev-parse", "HEAD")
            mirror = os.path.join(root, "m")
            os.makedirs(mirror)
            git("clone", "-q", "--bare", work, os.path.join(mirror, "o+r", "repo"), cwd=root)
            gdir = os.path.join(root, "gen")
            os.makedirs(gdir)
            shutil.copy(os.path.join(HERE, "fetch.py"), gdir)
            digest = hashlib.sha256(b"__global__ void k() {}\n").hexdigest()
            bare = os.path.join(mirror, "o+r", "repo")
            with open(os.path.join(gdir, "recipe.json"), "w") as f:
                json.dump({"projects": [{"name": "p", "repo": "o/r", "url": "file://" + bare,
                                         "commit": commit, "license": "x", "license_file": "d/a.cu",
                                         "files": {"d/a.cu": digest}}]}, f)
            dest = os.path.join(root, "src")
            os.makedirs(os.path.join(dest, "p"))
            open(os.path.join(dest, "p", "stale.h"), "w").close()
            r = subprocess.run([sys.executable, os.path.join(gdir, "fetch.py"), "--mirror", mirror, "--dest", dest],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout)
            self.assertEqual(sorted(os.listdir(os.path.join(dest, "p"))), ["d"])
            r = subprocess.run([sys.executable, os.path.join(gdir, "fetch.py"), "--check", "--dest", dest],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout)
            with open(os.path.join(dest, "p", "d", "a.cu"), "a") as f:
                f.write("// changed\n")
            r = subprocess.run([sys.executable, os.path.join(gdir, "fetch.py"), "--check", "--dest", dest],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertIn("differs p/d/a.cu", r.stdout)
            # without --mirror: git fetch of the pinned commit from the recipe's URL
            dest2 = os.path.join(root, "src2")
            r = subprocess.run([sys.executable, os.path.join(gdir, "fetch.py"), "--dest", dest2],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout)
            with open(os.path.join(dest2, "p", "d", "a.cu"), "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), digest)
        finally:
            shutil.rmtree(root, ignore_errors=True)


class Cases(unittest.TestCase):
    def test_shape(self):
        kernels = {(c.module, c.kernel) for c in PC.CASES}
        self.assertGreaterEqual(len(kernels), 40)
        self.assertGreaterEqual(len({c.project for c in PC.CASES}), 4)
        self.assertEqual({c.project for c in PC.CASES}, {p["name"] for p in RECIPE["projects"]})
        self.assertTrue(any(c.working_set >= 1 << 30 for c in PC.CASES))
        self.assertTrue(any(c.working_set <= 2 << 20 for c in PC.CASES))
        for c in PC.CASES:
            self.assertTrue(c.desc and c.family and c.size and c.source and c.size_class, c.name)
            self.assertIn(c.prio, (1, 2, 3), c.name)
            self.assertTrue(c.family.startswith(c.project + "/"), c.name)
            self.assertTrue(os.path.isfile(os.path.join(HERE, "kernels", c.module + ".cu")), c.module)
            self.assertIsNone(HELD_OUT.search("/" + c.source), c.name)
            for b in c.buffers + c.symbols:
                if b.data is not None:
                    self.assertLessEqual(b.count * runspec.SIZES[b.type], 256 * 1024, f"{c.name}.{b.name}")
            if c.tolerance:
                self.assertTrue(c.note and "tolerance" in c.note, c.name)

    def test_priority_order(self):
        self.assertEqual([c.prio for c in PC.CASES], sorted(c.prio for c in PC.CASES))

    def test_pairs(self):
        names = {c.name for c in PC.CASES}
        self.assertGreaterEqual(len(PC.PAIRS), 8)
        for k, (a, b) in PC.PAIRS.items():
            self.assertIn(a, names, k)
            self.assertIn(b, names, k)
        pairs = set(map(tuple, PC.PAIRS.values()))
        self.assertIn(("blog_transpose_naive_4096", "blog_transpose_nobank_4096"), pairs)
        self.assertIn(("blog_transpose_coalesced_4096", "blog_transpose_nobank_4096"), pairs)

    def test_ncu_metrics_are_perfs_timing_set(self):
        g = load("public_gen_t", GEN)
        perf = load("perf_metrics_t", os.path.join(TESTDATA, "perf", "gen", "metrics.py"))
        self.assertEqual(g.timing_metrics(), list(perf.TIMING))
        for m in ("sm__cycles_elapsed.max", "smsp__inst_executed.sum", "dram__bytes_read.sum",
                  "lts__t_sector_hit_rate.pct", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"):
            self.assertIn(m, perf.TIMING)
        self.assertEqual(g.NCU_EXTRA_FLAGS, ["--print-metric-instances", "values"])
        self.assertEqual(g.VARIANTS, {"O3": ["-O3", "-lineinfo"]})


class DryRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="public-dry.")
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
        self.assertEqual(len(self.manifest["cases"]), len(PC.CASES))
        self.assertEqual(self.manifest["corpus"], "public")
        self.assertEqual(list(self.manifest["variants"]), ["O3"])
        self.assertEqual(self.manifest["variants"]["O3"], "nvcc -ptx -arch=sm_90 -O3 -lineinfo -std=c++17")
        self.assertEqual(self.manifest["pairs"], {k: list(v) for k, v in PC.PAIRS.items()})
        self.assertEqual(set(self.manifest["projects"]), {p["name"] for p in RECIPE["projects"]})
        for e in self.manifest["cases"]:
            for k in ("family", "project", "source", "size", "size_class", "working_set_bytes", "priority"):
                self.assertIn(k, e, e["name"])

    def test_specs_valid(self):
        nfill = 0
        for e in self.manifest["cases"]:
            path = os.path.join(self.out, e["spec"]["O3"])
            spec = runspec.load_spec(path)
            self.assertEqual(runspec.validate_spec(spec, os.path.dirname(path)), [], e["name"])
            self.assertEqual(spec["module"], f"../../../ptx/{e['module']}.O3.ptx")
            nfill += sum(1 for b in spec["buffers"] if "fill" in b)
        self.assertGreater(nfill, 50)

    def test_no_large_files(self):
        for root, _, files in os.walk(os.path.join(self.out, "cases")):
            for fn in files:
                self.assertLessEqual(os.path.getsize(os.path.join(root, fn)), 256 * 1024, fn)


class FakeCupyBackend(unittest.TestCase):
    LIMIT = 256 << 20     # host memory: the stand-in holds every buffer in host RAM

    def test_specs_run(self):
        root = tempfile.mkdtemp(prefix="public-fakecupy.")
        try:
            pkg = os.path.join(root, "py", "cupy")
            os.makedirs(os.path.join(pkg, "cuda"))
            with open(os.path.join(pkg, "__init__.py"), "w") as f:
                f.write(test_gen.FAKE_CUPY)
            with open(os.path.join(pkg, "cuda", "__init__.py"), "w") as f:
                f.write("import cupy as _c\nruntime = _c.runtime\ndriver = _c.cuda.driver\n"
                        "texture = _c.cuda.texture\nalloc = _c.cuda.alloc\n")
            out = os.path.join(root, "public")
            subprocess.run([sys.executable, GEN, "--out", out, "--dry-run"], check=True, stdout=subprocess.DEVNULL)
            os.makedirs(os.path.join(out, "ptx"))
            for c in PC.CASES:
                open(os.path.join(out, "ptx", f"{c.module}.O3.ptx"), "w").close()
            small = [c.name for c in PC.CASES if c.working_set <= self.LIMIT]
            script = (
                "import sys, os\n"
                "sys.path.insert(0, %r)\n"
                "import runspec, cupy\n"
                "n = 0\n"
                "for c in %r:\n"
                "    p = os.path.join(%r, 'cases', c, 'O3', 'spec.json')\n"
                "    out = runspec.run_spec(p)\n"
                "    spec = runspec.load_spec(p)\n"
                "    sizes = {b['name']: b['count'] * runspec.SIZES[b['type']] for b in spec['buffers']}\n"
                "    assert set(out) == set(spec['outputs']), p\n"
                "    for k, v in out.items():\n"
                "        assert len(v) == sizes[k], (p, k)\n"
                "    n += 1\n"
                "print(n, len(cupy.LAUNCHES))\n"
            ) % (NVCC_GEN, small, out)
            env = dict(os.environ, PYTHONPATH=os.path.join(root, "py"))
            env.pop("RUNSPEC_FAKE", None)
            r = subprocess.run([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:])
            self.assertEqual(r.stdout.split()[-2:], [str(len(small))] * 2)
            self.assertGreater(len(small), len(PC.CASES) // 2)
        finally:
            shutil.rmtree(root, ignore_errors=True)


NVCC = bool(shutil.which("nvcc") and shutil.which("ptxas"))


@unittest.skipUnless(NVCC and HAVE_SRC, "nvcc not on PATH or src/ not fetched")
class CompileOnly(unittest.TestCase):
    def test_compile_only(self):
        out = tempfile.mkdtemp(prefix="public-cc.")
        try:
            p = subprocess.run([sys.executable, GEN, "--out", out, "--compile-only"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.assertEqual(p.returncode, 0, p.stdout[-3000:])
            with open(os.path.join(out, "manifest.json")) as f:
                m = json.load(f)
            bad = [(e["name"], s) for e in m["cases"] for s in e["status"].values() if s != "compiled"]
            self.assertEqual(bad, [])
            for e in m["cases"]:
                self.assertTrue(e["mangled"]["O3"], e["name"])
                self.assertIn("registers", e["ptxas"].get("O3", {}), e["name"])
                # ptxvm runs none of these (README): no tensor cores, async copies, clusters
                for op in e["opcodes_O3"]:
                    self.assertFalse(op.startswith(("wmma", "mma", "cp.async", "mbarrier", "barrier.cluster",
                                                    "suld", "sust", "griddepcontrol")), (e["name"], op))
            for mod in {c.module for c in PC.CASES}:
                self.assertTrue(os.path.isfile(os.path.join(out, "sass", f"{mod}.O3.sass.gz")), mod)
        finally:
            shutil.rmtree(out, ignore_errors=True)


@unittest.skipUnless(NVCC and HAVE_SRC, "nvcc not on PATH or src/ not fetched")
class PipelineWithFakes(unittest.TestCase):
    """gen.py end to end for three cases with real nvcc/ptxas, the
    RUNSPEC_FAKE runner and the stand-in ncu of test_gen.py."""

    def test_pipeline(self):
        root = tempfile.mkdtemp(prefix="public-pipe.")
        try:
            bindir = os.path.join(root, "bin")
            os.makedirs(bindir)
            ncu = os.path.join(bindir, "ncu")
            with open(ncu, "w") as f:
                f.write("#!" + sys.executable + "\n" + test_gen.FAKE_NCU.split("\n", 1)[1])
            os.chmod(ncu, 0o755)
            out = os.path.join(root, "public")
            env = dict(os.environ, RUNSPEC_FAKE="1", PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
            only = "cs_vectoradd_50000,blog_fd_z_lpencils,cs_scalarprod_256x4096"
            tar = os.path.join(root, "public.tgz")
            r = subprocess.run([sys.executable, GEN, "--out", out, "--only", only, "--tar", tar], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:])
            with open(os.path.join(out, "manifest.json")) as f:
                m = json.load(f)
            self.assertEqual(len(m["cases"]), 3)
            for e in m["cases"]:
                self.assertEqual(e["status"], {"O3": "ok"}, e["name"])
                self.assertIn("sm__cycles_elapsed.max", e["ncu"]["O3"], e["name"])
                self.assertTrue(e["family"], e["name"])
            self.assertEqual(m["ncu"]["requested_metrics"][:3], PC_TIMING[:3])
            self.assertIn("--print-metric-instances", m["ncu"]["requested_flags"])
            self.assertFalse(os.path.exists(os.path.join(out, "ncu", "O3.csv")))
            with gzip.open(os.path.join(out, "ncu", "O3.csv.gz"), "rt") as f:
                rows = f.read().splitlines()
            self.assertEqual(len(rows), 2 + 3)          # header, units, three launches
            with open(os.path.join(out, "ncu", "O3.launches.json")) as f:
                self.assertEqual(sorted(x["case"] for x in json.load(f)), sorted(only.split(",")))
            with tarfile.open(tar) as tf:
                names = tf.getnames()
            self.assertIn("public/ncu/O3.csv.gz", names)
            self.assertIn("public/manifest.json", names)
            self.assertFalse([n for n in names if n.startswith(("public/src", "public/gen"))])
            self.assertTrue([n for n in names if n.startswith("public/ptx/")])
        finally:
            shutil.rmtree(root, ignore_errors=True)


PC_TIMING = load("perf_metrics_t2", os.path.join(TESTDATA, "perf", "gen", "metrics.py")).TIMING

if __name__ == "__main__":
    unittest.main(verbosity=2)
