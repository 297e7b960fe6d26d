#!/usr/bin/env python3
"""cubegrad.py — a numpy model of tex.grad's level of detail on a cube map
(ptxvm's vm/texture_mip.go: cubeGradLOD, lodFromGrads), for checking rules
for the unfolded coordinate against recorded outputs (gen/mip.cu's
gradcubeprobe*, gradcube_ll/gradsweepcube_ll on constant levels).
MUFU.RCP comes from a table dumped by ptxvm (rcp_table)."""
import math, os, struct, subprocess, sys, tempfile
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

LOG2 = [0, 2, 4, 5, 6, 8, 9, 11, 12, 13, 15, 16, 18, 19, 20, 22, 23, 24, 26, 27, 28, 30, 31, 32, 34, 35, 36, 38, 39, 40, 42, 43,
        44, 45, 47, 48, 49, 50, 52, 53, 54, 55, 57, 58, 59, 60, 62, 63, 64, 65, 66, 68, 69, 70, 71, 72, 74, 75, 76, 77, 78, 79, 81, 82,
        83, 84, 85, 86, 88, 89, 90, 91, 92, 93, 94, 95, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 109, 110, 111, 112, 113, 114, 115, 116, 117,
        118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 135, 136, 137, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149,
        150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 173, 174, 175, 176, 177, 178, 179,
        180, 181, 181, 182, 183, 184, 185, 186, 187, 188, 188, 189, 190, 191, 192, 193, 194, 195, 195, 196, 197, 198, 199, 200, 200, 201, 202, 203, 204, 205, 205, 206,
        207, 208, 209, 210, 210, 211, 212, 213, 214, 214, 215, 216, 217, 218, 218, 219, 220, 221, 222, 222, 223, 224, 225, 226, 226, 227, 228, 229, 229, 230, 231, 232,
        233, 233, 234, 235, 236, 236, 237, 238, 239, 239, 240, 241, 242, 242, 243, 244, 245, 245, 246, 247, 248, 248, 249, 250, 251, 251, 252, 253, 253, 254, 255, 255]

_rcp = {}

def rcp_table(vals):
    """MUFU.RCP of each f32 in vals (ptxvm's tables, through go test)."""
    need = sorted({struct.unpack('<I', struct.pack('<f', float(v)))[0] for v in vals} - set(_rcp))
    if need:
        d = tempfile.mkdtemp()
        fi, fo = os.path.join(d, 'in'), os.path.join(d, 'out')
        open(fi, 'wb').write(struct.pack('<%dI' % len(need), *need))
        env = dict(os.environ, H28_RCP_IN=fi, H28_RCP_OUT=fo)
        subprocess.run(['go', 'test', './vm/', '-run', 'TestH28DumpRcp', '-count=1'], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        out = struct.unpack('<%dI' % len(need), open(fo, 'rb').read())
        for a, b in zip(need, out):
            _rcp[a] = b

def rcp(m):
    b = _rcp[struct.unpack('<I', struct.pack('<f', float(m)))[0]]
    return np.float32(struct.unpack('<f', struct.pack('<I', b))[0])

def f32(x):
    return np.float32(x)

def trunc_bits(x, k):
    if x == 0 or not math.isfinite(x):
        return x
    fr, e = math.frexp(x)
    return math.ldexp(math.trunc(math.ldexp(fr, k + 1)), e - k - 1)

def ulp10(x):
    _, e = math.frexp(abs(x))
    return math.ldexp(1, e - 10)

def sort_abs(v):
    return sorted((abs(x) for x in v), reverse=True)

def grad_len(v):
    x, y, z = sort_abs(v)
    if y == 0:
        return x
    fr, e = math.frexp(y)
    sm, p = math.floor(math.ldexp(fr, 10)), e - 10
    mn = math.floor(math.ldexp(z, -p))
    if 11 * sm >= 32 * 256:
        mn = 2 * math.floor(mn / 2)
    return x + math.ldexp(math.floor((11 * sm + 8 * mn + 4) / 32), p)

def aligned_add(a, b):
    if abs(a) < abs(b):
        a, b = b, a
    if a == 0:
        return a + b
    g = ulp10(a) / 2
    return trunc_bits(a + math.trunc(b / g) * g, 9)

def diag_len(v):
    x, y, z = sort_abs(v)
    if x == 0:
        return x
    r = trunc_bits(11 * x / 16 + ulp10(x) / 4, 9)
    if y:
        r += trunc_bits(121 * y / 512 + ulp10(y) / 16, 9)
    if z:
        r += 11 * z / 64 + ulp10(z) / 16
    return r

def lod_fixed(x, bias, levels, minc=0.0, maxc=None):
    if maxc is None:
        maxc = levels - 1
    x = x + bias
    last = levels - 1
    lo = min(max(0, minc), last)
    hi = min(last, maxc)
    x = max(min(x, hi), lo)
    return math.floor(x * 256)

def lod_from_grads(a, b, diag, bias, levels):
    a = [trunc_bits(x, 9) for x in a]
    b = [trunc_bits(x, 9) for x in b]
    rho = max(grad_len(a), grad_len(b))
    if diag:
        s = [aligned_add(x, y) for x, y in zip(a, b)]
        d = [aligned_add(x, -y) for x, y in zip(a, b)]
        rho = max(rho, diag_len(s), diag_len(d))
    if rho == 0:
        return lod_fixed(-math.inf, bias, levels)
    fr, e = math.frexp(rho)
    q = int(fr * 512) - 256
    return lod_fixed(((e - 1) * 256 + LOG2[q]) / 256, bias, levels)

def comps(v, f):
    x, y, z = v
    return [(-z, -y, x), (z, -y, -x), (x, z, y), (x, -z, -y), (x, -y, z), (-x, -y, -z)][f]

def scaled(v):
    """(scaled components as f32, major magnitude m, rcp)."""
    m = max(abs(v[0]), abs(v[1]), abs(v[2]))
    r = rcp(m)
    return [f32(x) * r for x in v], m, r

def face_of(w):
    ax, ay, az = abs(w[0]), abs(w[1]), abs(w[2])
    if az >= ay and az >= ax:
        return 4 if w[2] >= 0 else 5
    if ay >= ax:
        return 2 if w[1] >= 0 else 3
    return 0 if w[0] >= 0 else 1

def project(v, f=None):
    w, m, r = scaled(v)
    if f is None:
        f = face_of(w)
    sc, tc, ma = comps([float(x) for x in w], f)
    if ma <= 0:
        return f, 0.0, 0.0
    return f, sc / ma, tc / ma

def unfold_exact(v, g, f, info):
    return 2 - info['ma']

def unfold(v, g, f, ucoord=unfold_exact):
    """coordinates on face f of lane v whose face is g."""
    if g // 2 == f // 2:
        _, s, t = project(v, f)
        return s, t
    w, m, r = scaled(v)
    w = [float(x) for x in w]
    sc, tc, ma = comps(w, f)
    s_axis = 2 if f // 2 == 0 else 0
    info = dict(ma=ma, m=m, r=r, v=v, w=w, sc=sc, tc=tc, g=g, f=f)
    u = ucoord(v, g, f, info)
    if g // 2 == s_axis:
        return math.copysign(u, sc), tc
    return sc, math.copysign(u, tc)

def cube_lod(p, dx, dy, W, bias, levels, ucoord=unfold_exact, diag_cross=False):
    p = [f32(x) for x in p]
    q1 = [p[i] + f32(dx[i]) for i in range(3)]
    q2 = [p[i] + f32(dy[i]) for i in range(3)]
    face, s0, t0 = project(p)
    f1 = face_of(scaled(q1)[0])
    f2 = face_of(scaled(q2)[0])
    h = W / 2
    if f1 == face and f2 == face:
        _, s1, t1 = project(q1, face)
        _, s2, t2 = project(q2, face)
        return lod_from_grads([(s1 - s0) * h, (t1 - t0) * h, 0], [(s2 - s0) * h, (t2 - t0) * h, 0], True, bias, levels), False
    s1, t1 = unfold(q1, f1, face, ucoord)
    s2, t2 = unfold(q2, f2, face, ucoord)
    return lod_from_grads([(s1 - s0) * h, (t1 - t0) * h, 0], [(s2 - s0) * h, (t2 - t0) * h, 0], diag_cross, bias, levels), True

def load(d):
    """a recorded launch dir (coords.bin, out.bin, launches line) → (coords [n,9] f32, out L in 1/256, params)."""
    c = np.fromfile(os.path.join(d, 'coords.bin'), dtype='<f4').reshape(-1, 9)
    o = np.fromfile(os.path.join(d, 'out.bin'), dtype='<f4')
    return c, o

def rcp_prepare(c):
    vals = []
    for row in c:
        p = row[0:3].astype(np.float32)
        for q in (p, p + row[3:6].astype(np.float32), p + row[6:9].astype(np.float32)):
            vals.append(max(abs(q[0]), abs(q[1]), abs(q[2])))
    rcp_table(vals)

def compare(c, out, W, bias, levels, ucoord=unfold_exact, diag_cross=False, verbose=0):
    L = np.round(out.astype(np.float64) * 256).astype(int)
    bad, cross, rows = 0, 0, []
    for i, row in enumerate(c):
        lod, cr = cube_lod(row[0:3], row[3:6], row[6:9], W, bias, levels, ucoord, diag_cross)
        cross += cr
        if lod != L[i]:
            bad += 1
            rows.append((i, L[i], lod, cr))
    return bad, cross, rows
