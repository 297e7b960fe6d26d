#!/usr/bin/env python3
"""grad3d.py LAUNCHDIR... — checks 3D tex.grad's level of detail on recorded
launches of constant-level 3D textures (gen/mip.cu's grad3dprobe*,
grad3dconst_ll, gradsweep3d_ll: coords.bin of (c, dx, dy) per sample,
out.bin = the level of detail, ../launches.<group>.txt) against two rules
for the driver's quad c, c+dx, c+dy (f32 sums): 'f32' differences the sums
exactly; 'pair' (ptxvm's, vm/texture_mip.go pairFixed) first truncates c
and the lane toward zero to one bit below the f32 last bit of the larger
magnitude of the two; 'block' does so for the three lanes together. numpy; the length rule is cubegrad.py's."""
import math, os, re, sys
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cubegrad as cg

F = np.float32

def lanes(c, j, rule):
    l0 = float(F(c[j]))
    l1, l2 = float(F(c[j]) + F(c[3 + j])), float(F(c[j]) + F(c[6 + j]))
    if rule == 'block':
        l0, l1, l2 = block(l0, l1, l2)
    return l0, l1, l2

def block(*ls):
    m = max(abs(x) for x in ls)
    if not m:
        return ls
    _, e = math.frexp(m)
    u = 2.0 ** (e - 25)
    return tuple(math.trunc(x / u) * u for x in ls)

def lod(c, dims, bias, levels, rule):
    a, b = [0.0] * 3, [0.0] * 3
    for j in range(3):
        l0, l1, l2 = lanes(c, j, 'f32' if rule == 'pair' else rule)
        if rule == 'pair':
            (p0, l1), (q0, l2) = block(l0, l1), block(l0, l2)
            a[j], b[j] = (l1 - p0) * dims[j], (l2 - q0) * dims[j]
            continue
        a[j], b[j] = (l1 - l0) * dims[j], (l2 - l0) * dims[j]
    return cg.lod_from_grads(a, b, True, bias, levels)

def main():
    print('launch  samples  differing(block, f32, pair)')
    for d in sys.argv[1:]:
        g = os.path.basename(d.rstrip('/'))
        txt = open(os.path.join(os.path.dirname(d.rstrip('/')), 'launches.%s.txt' % g)).read()
        m = re.search(r'dims=3 size=(\d+)x(\d+)x(\d+) levels=(\d+) content=(\w+) .*bias=(\S+)', txt)
        if not m or m.group(5) != 'constant':
            print(d, 'not a constant-level 3D texture')
            continue
        dims = [int(m.group(i)) for i in (1, 2, 3)]
        levels, bias = int(m.group(4)), float(m.group(6))
        c = np.fromfile(os.path.join(d, 'coords.bin'), '<f4').reshape(-1, 9)
        L = np.round(np.fromfile(os.path.join(d, 'out.bin'), '<f4').astype(np.float64) * 256).astype(int)
        bad = [sum(lod(c[i], dims, bias, levels, r) != L[i] for i in range(len(c))) for r in ('block', 'f32', 'pair')]
        print(d, len(c), bad)

if __name__ == '__main__':
    main()
