#!/usr/bin/env python3
"""Write vm/internal/sfu/testdata/golden.json: reference predictions,
classes and input recipes computed by sfuspec.py, which the Go package
must reproduce bit for bit (TestGolden) even when no GPU data exists.

    python3 testdata/sfu/gen/golden.py      # numpy only
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sfuspec as S  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def inputs32():
    sp = [0, 0x80000000, 1, 0x807FFFFF, 0x00800000, 0x3F800000, 0xBF800000, 0x3F800001, 0x3FFFFFFF,
          0x40490FDB, 0x42FC0000, 0xC2FC0000, 0xC2FE0001, 0x43000000, 0xC3160000, 0x7F7FFFFF, 0xFF7FFFFF,
          0x7F800000, 0xFF800000, 0x7FC00000, 0x7FFFFFFF, 0x3E22F983, 0x4B000001, 0x5F000000, 0x3A000000]
    r = S.segment_values({"kind": "random", "mode": "exp", "seed": 7, "count": 96, "elo": 90, "ehi": 160}, 32)
    b = S.segment_values({"kind": "random", "mode": "bits", "seed": 8, "count": 32}, 32)
    return np.concatenate((np.array(sp, dtype=np.uint32), r, b))


def inputs64():
    sp = [0, 1 << 63, 0x000FFFFF00000000, 0x0010000000000000, 0x3FF0000000000000, 0x3FF0000012345678,
          0x3FEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
          0xBFF0000000000000, 0x7FD0000000000000]
    r = S.segment_values({"kind": "random", "mode": "exp", "seed": 9, "count": 64, "elo": 0, "ehi": 2047}, 64)
    return np.concatenate((np.array(sp, dtype=np.uint64), r))


def main():
    out = {"refs": [], "recipes": []}
    x32 = inputs32()
    x64 = inputs64()
    for fn in S.VALUE_FUNCS + ("mulrz", "ident"):
        for ftz in (False, True):
            p = S.ref_predict(fn, x32, ftz)
            rec = {"fn": fn, "ftz": ftz, "x": [int(v) for v in x32], "pred": [int(v) for v in p]}
            if fn in S.VALUE_FUNCS:
                rec["class"] = [int(v) for v in S.ref_classes(fn, x32, ftz)]
            out["refs"].append(rec)
    for fn in ("rcp64h", "rsqrt64h"):
        p = S.ref_predict(fn, x64, True)
        out["refs"].append({"fn": fn, "ftz": True, "x": [int(v) for v in x64], "pred": [int(v) for v in p]})
    segs = [
        ("u32", {"kind": "range", "start": 0x3F800000, "count": 1000, "step": 3}),
        ("u32", {"kind": "grid", "shift": -23, "count": 1000, "j0": 8000000}),
        ("u32", {"kind": "grid", "shift": -30, "count": 100, "sign": 1}),
        ("u32", {"kind": "sincos", "shift": -25, "count": 3000, "j0": 0, "step": 11171}),
        ("u32", {"kind": "random", "mode": "bits", "seed": 123, "count": 1000}),
        ("u32", {"kind": "random", "mode": "exp", "seed": 2 ** 62 + 5, "count": 1000, "elo": 0, "ehi": 255}),
        ("u32", {"kind": "random", "mode": "exp", "seed": 77, "count": 1000, "elo": 100, "ehi": 130, "signs": "neg"}),
        ("u32", {"kind": "random", "mode": "uniform", "seed": 78, "count": 1000, "a": "0xc39d1463", "b": "0x439d1463"}),
        ("u64", {"kind": "random", "mode": "exp", "seed": 79, "count": 1000, "elo": 0, "ehi": 2047, "signs": "pos"}),
        ("u64", {"kind": "hirange", "start": 0x3FF00000, "step": 7, "count": 1000, "lo_seed": 80}),
        ("u64", {"kind": "hirange", "start": 0x40000000, "count": 1000, "lo": 5}),
        ("u64", {"kind": "list", "count": 2, "values": ["0x7ff8000000000000", "0x1"]}),
    ]
    for typ, seg in segs:
        v = S.segment_values(seg, 64 if typ == "u64" else 32)
        out["recipes"].append({"type": typ, "segment": seg, "sha256": S.sha256(v), "first": [int(a) for a in v[:4]]})
    path = os.path.join(REPO, "vm", "internal", "sfu", "testdata", "golden.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
