#!/usr/bin/env python3
"""make_cases.py RESULTS — turn the GPU's recording of cluster.cu (run.sh's
output folder) into ptxvm test cases under testdata/clusters:

  ptx/cluster.{O3,G}.ptx        the PTX nvcc emitted on the GPU machine (the
                                source's .file path made relative to the repository)
  sass/cluster.{O3,G}.sass.gz   cuobjdump -sass of the binaries that ran
  inputs/<launch>.<buffer>.bin  the inputs main() generated (the same for both builds)
  cases/<launch>/<build>/spec.json and expected/<output>.bin (.sha256 above 16 KiB)
  log/launches.{O3,G}.txt       main()'s launch list and clock64 latencies

Standard library only (no numpy)."""
import gzip, hashlib, json, os, re, shutil, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEADBEEF = {"kind": "const", "value": 0xDEADBEEF}
MINUS1 = {"kind": "const", "value": -1}

def regs(grid, block, cluster):
    n = 21
    for d in grid + block:
        n *= d
    spec = {"kernel": "cluster_regs", "grid": grid, "block": block,
            "buffers": [{"name": "out", "type": "u32", "count": n, "fill": DEADBEEF}],
            "args": [{"buffer": "out"}], "outputs": ["out"]}
    if cluster:
        spec["cluster"] = cluster
    return spec

# launch -> (spec without module, inputs written by main()); the shapes and
# buffers are main()'s in cluster.cu.
LAUNCHES = {
    "regs_2x2x1": (regs([4, 4, 2], [8, 4, 1], [2, 2, 1]), []),
    "regs_3x1x2": (regs([6, 2, 2], [32, 1, 1], [3, 1, 2]), []),
    "regs_none": (regs([3, 2, 1], [64, 1, 1], None), []),
    "regs_1x1x1": (regs([3, 2, 1], [64, 1, 1], [1, 1, 1]), []),
    "reduce": ({"kernel": "cluster_reduce", "grid": [32, 1, 1], "block": [256, 1, 1],
                "buffers": [{"name": "in", "type": "f32", "count": 8192},
                            {"name": "out_cluster", "type": "f32", "count": 8, "fill": MINUS1},
                            {"name": "out_block", "type": "f32", "count": 32 + 32 * 32, "fill": MINUS1}],
                "args": [{"buffer": "in"}, {"buffer": "out_cluster"}, {"buffer": "out_block"}, {"u32": 32 * 256 - 100}],
                "outputs": ["out_cluster", "out_block"]}, ["in"]),
    "ring": ({"kernel": "ring_exchange", "grid": [16, 1, 1], "block": [128, 1, 1],
              "buffers": [{"name": "in", "type": "u32", "count": 2048},
                          {"name": "out", "type": "u32", "count": 2048, "fill": DEADBEEF},
                          {"name": "out2", "type": "u32", "count": 4096, "fill": DEADBEEF}],
              "args": [{"buffer": "in"}, {"buffer": "out"}, {"buffer": "out2"}],
              "outputs": ["out", "out2"]}, ["in"]),
    "atomics": ({"kernel": "cluster_atomics", "grid": [8, 1, 1], "block": [256, 1, 1],
                 "buffers": [{"name": "in", "type": "u32", "count": 2048},
                             {"name": "out", "type": "u32", "count": 8 * 82, "fill": DEADBEEF}],
                 "args": [{"buffer": "in"}, {"buffer": "out"}], "outputs": ["out"]}, ["in"]),
    "mbarrier": ({"kernel": "mbarrier_cluster", "grid": [6, 1, 1], "block": [64, 1, 1],
                  "buffers": [{"name": "in", "type": "u32", "count": 384},
                              {"name": "out", "type": "u32", "count": 384, "fill": DEADBEEF}],
                  "args": [{"buffer": "in"}, {"buffer": "out"}], "outputs": ["out"]}, ["in"]),
    "mapa": ({"kernel": "mapa_values", "grid": [8, 1, 1], "block": [32, 1, 1],
              "buffers": [{"name": "out32", "type": "u32", "count": 128, "fill": DEADBEEF},
                          {"name": "out64", "type": "u64", "count": 64}],
              "args": [{"buffer": "out32"}, {"buffer": "out64"}], "outputs": ["out32"]}, []),
}
DESCRIPTIONS = {
    "regs_2x2x1": "cluster_regs: every %cluster_* register (and cooperative groups' cluster queries) of every thread, clusters of (2,2,1) given by the launch",
    "regs_3x1x2": "cluster_regs with clusters of (3,1,2) given by the launch",
    "regs_none": "cluster_regs launched without clusters (every block a cluster of one)",
    "regs_1x1x1": "cluster_regs launched with clusters of (1,1,1) named (%is_explicit_cluster)",
    "reduce": "cluster_reduce: a reduction through distributed shared memory (cooperative groups' map_shared_rank, cluster.sync), clusters of 4",
    "ring": "ring_exchange: mapa.shared::cluster, st/ld.shared::cluster and barrier.cluster arrive/wait (.release/.acquire/.relaxed/.aligned), clusters of 8",
    "atomics": "cluster_atomics: atom/red.shared::cluster (add, or, 64-bit add) and atomicAdd/atomicMax through map_shared_rank, clusters of 4",
    "mbarrier": "mbarrier_cluster: stores into the peer block's shared memory and an mbarrier arrive (release, cluster scope) on the peer's object, clusters of 2",
    "mapa": "mapa_values: the shared::cluster addresses mapa returns and getctarank (out64, generic addresses, is informative and not compared)",
}

def main():
    res = sys.argv[1]
    for d in ("ptx", "sass", "inputs", "cases", "log"):
        os.makedirs(os.path.join(ROOT, d), exist_ok=True)
    for b in ("O3", "G"):
        # The source's path as the repository's other corpora record it
        # (relative to its root: report/html.FindSources finds it there).
        ptx = open(os.path.join(res, f"cluster.{b}.ptx")).read()
        ptx = re.sub(r'(\.file\s+\d+\s+)"[^"]*/cluster\.cu"', r'\1"testdata/clusters/gen/cluster.cu"', ptx)
        open(os.path.join(ROOT, "ptx", f"cluster.{b}.ptx"), "w").write(ptx)
        with open(os.path.join(res, f"cluster.{b}.sass"), "rb") as f, gzip.GzipFile(os.path.join(ROOT, "sass", f"cluster.{b}.sass.gz"), "wb", mtime=0) as g:
            g.write(f.read())
        shutil.copy(os.path.join(res, b, "launches.txt"), os.path.join(ROOT, "log", f"launches.{b}.txt"))
    for name, (spec, inputs) in LAUNCHES.items():
        for inp in inputs:
            a = open(os.path.join(res, "O3", name, inp + ".bin"), "rb").read()
            g = open(os.path.join(res, "G", name, inp + ".bin"), "rb").read()
            assert a == g, f"{name}: input {inp} differs between builds"
            open(os.path.join(ROOT, "inputs", f"{name}.{inp}.bin"), "wb").write(a)
        for b in ("O3", "G"):
            src = os.path.join(res, b, name)
            if not os.path.isdir(src):
                print(f"{name}/{b}: not recorded", file=sys.stderr)
                continue
            case = os.path.join(ROOT, "cases", name, b)
            exp = os.path.join(case, "expected")
            os.makedirs(exp, exist_ok=True)
            s = json.loads(json.dumps(spec))
            s = {"description": DESCRIPTIONS[name], "module": f"../../../ptx/cluster.{b}.ptx", **s}
            for buf in s["buffers"]:
                if buf["name"] in inputs:
                    buf["file"] = f"../../../inputs/{name}.{buf['name']}.bin"
            with open(os.path.join(case, "spec.json"), "w") as f:
                json.dump(s, f, indent=1)
                f.write("\n")
            for out in s["outputs"]:
                data = open(os.path.join(src, out + ".bin"), "rb").read()
                if len(data) > 16384:
                    with open(os.path.join(exp, out + ".sha256"), "w") as f:
                        f.write(f"{hashlib.sha256(data).hexdigest()} {len(data)}\n")
                else:
                    open(os.path.join(exp, out + ".bin"), "wb").write(data)

if __name__ == "__main__":
    main()
