#!/usr/bin/env python3
"""fit.py HOSTMEM.JSONL — the host-link profile's closed-form parameters
(latency F in µs and bandwidth in GB/s for t = F + bytes/bw) from the
recorded transfers, prefetches and managed-memory series, fitted on the
1, 16 and 256 MiB points (minimax relative error) and checked on the 4 and
64 MiB points, which no fit sees. Prints one line per series."""
import json, sys
import numpy as np

TRAIN = {1 << 20, 16 << 20, 256 << 20}
CHECK = {4 << 20, 64 << 20}

def fit(pts):
    B = np.array([b for b, _ in pts], float)
    T = np.array([t for _, t in pts], float)
    best = None
    for bw in np.exp(np.linspace(np.log(0.5), np.log(5000), 4000)):
        base = B / (bw * 1e3)  # µs
        # minimax over F: the F that balances the largest over- and
        # under-estimate, clipped at 0
        lo, hi = 0.0, float(T.max())
        for _ in range(60):
            F = (lo + hi) / 2
            e = (F + base - T) / T
            if e.max() + e.min() > 0:
                hi = F
            else:
                lo = F
        F = max(0.0, (lo + hi) / 2)
        err = np.abs((F + base - T) / T).max()
        if best is None or err < best[0]:
            best = (err, F, bw)
    return best

def main():
    rows = [json.loads(l) for l in open(sys.argv[1])]
    series = {}
    for r in rows:
        if r["group"] in ("copy", "managed", "memset") and r.get("bytes", 0) >= 1 << 20:
            us = r["us"]
            series.setdefault(r["name"], []).append((r["bytes"], us))
    knee = 32 << 20
    for name, pts in sorted(series.items()):
        tr = [p for p in pts if p[0] in TRAIN]
        ck = [p for p in pts if p[0] in CHECK]
        err, F, bw = fit(tr)
        chk = ["%d MiB %+.1f%%" % (b >> 20, 100 * ((F + b / (bw * 1e3)) - t) / t) for b, t in ck]
        print("%-34s F %8.2f us  bw %7.2f GB/s  train max %4.1f%%  check %s" % (name, F, bw, 100 * err, ", ".join(chk)))
        if name in ("h2d_pageable", "first_read_host_resident", "first_write_host_resident", "first_write_untouched", "scale_first_touch_host_resident", "prefetch_to_device", "prefetch_to_host"):
            # two bandwidths: host data within the host's cache (at most
            # knee bytes) and beyond it
            small = [p for p in tr if p[0] <= knee]
            big = [p for p in tr if p[0] > knee]
            err, F, bw = fit(small)
            _, _, bwu = fit([(b, t - F) for b, t in big] + [(b * 2, 2 * (t - F)) for b, t in big])
            chk = []
            for b, t in ck:
                m = F + b / ((bw if b <= knee else bwu) * 1e3)
                chk.append("%d MiB %+.1f%%" % (b >> 20, 100 * (m - t) / t))
            print("%-34s F %8.2f us  bw %7.2f GB/s, beyond %d MiB %.2f GB/s  check %s" % (name + " (knee)", F, bw, knee >> 20, bwu, ", ".join(chk)))

main()
