#!/usr/bin/env python3
"""cubegrad.py — a numpy model of tex.grad's level of detail on a cube map
(ptxvm's vm/texture_mip.go: cubeGradLOD, lodFromGrads), for checking rules
for the unfolded coordinate against recorded outputs (gen/mip.cu's
gradcubeprobe*, gradcube_ll/gradsweepcube_ll on constant levels).
MUFU.RCP comes from ptxvm's tables (vm/rcp_dump_test.go, through go test).
Usage: cubegrad.py LAUNCHDIR... (recorded launches of constant-level cube
maps: coords.bin, out.bin and ../launches.<group>.txt): prints, per launch,
the quads that straddle faces and how many levels each rule misses."""
import math, os, re, struct, subprocess, sys, tempfile
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
        env = dict(os.environ, PTXVM_RCP_IN=fi, PTXVM_RCP_OUT=fo)
        subprocess.run(['go', 'test', './vm/', '-run', 'TestDumpRcp', '-count=1'], cwd=ROOT, env=env, check=True,
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
    """face and coordinates: on the direction's own face (f None or that
    face) its scaled components, not divided by the scaled major one (the
    rule); on another face f, sc/ma and tc/ma (the older rules only)."""
    w, m, r = scaled(v)
    own = face_of(w)
    if f is None:
        f = own
    sc, tc, ma = comps([float(x) for x in w], f)
    if f == own:
        return f, sc, tc
    if ma <= 0:
        return f, 0.0, 0.0
    return f, sc / ma, tc / ma

def lane_grad(q, g, f, s0, t0, h, rule):
    """texel-space gradient from c (face f, at s0, t0) to lane q (own face g);
    None for a lane on the opposite face. rule: 'edge10' (the rule: c's and
    the lane's distances to the shared edge, each truncated to 10 significant
    bits, summed), 'exact' (2 - ma, unfolded exactly), 'grid12' (2 - ma
    truncated to 2^-12, the earlier fit)."""
    if g == f:
        _, s, t = project(q, f)
        return [(s - s0) * h, (t - t0) * h, 0]
    if g // 2 == f // 2:
        if rule == 'edge10':
            return None
        _, s, t = project(q, f)
        return [(s - s0) * h, (t - t0) * h, 0]
    w, m, r = scaled(q)
    w = [float(x) for x in w]
    sc, tc, ma = comps(w, f)
    s_axis = 2 if f // 2 == 0 else 0
    if g // 2 == s_axis:
        across, along, c0, p0, perp_s = sc, tc, s0, t0, True
    else:
        across, along, c0, p0, perp_s = tc, sc, t0, s0, False
    sg = math.copysign(1, across)
    if rule == 'edge10':
        d = sg * (trunc_bits(1 - ma, 9) + trunc_bits(1 - sg * c0, 9)) * h
    elif rule == 'grid12':
        d = (sg * math.floor((2 - ma) * 4096) / 4096 - c0) * h
    else:
        d = (sg * (2 - ma) - c0) * h
    e = (along - p0) * h
    return [d, e, 0] if perp_s else [e, d, 0]

def cube_lod(p, dx, dy, W, bias, levels, rule='edge10'):
    """(level of detail in 1/256, whether the quad straddles faces)."""
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
    a = lane_grad(q1, f1, face, s0, t0, h, rule)
    b = lane_grad(q2, f2, face, s0, t0, h, rule)
    if a is None or b is None:
        return lod_fixed(math.inf, bias, levels), True
    return lod_from_grads(a, b, False, bias, levels), True

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

def compare(c, out, W, bias, levels, rule='edge10'):
    """(differing, straddling, [(index, recorded L, modelled L, straddles)])"""
    L = np.round(out.astype(np.float64) * 256).astype(int)
    bad, cross, rows = 0, 0, []
    for i, row in enumerate(c):
        lod, cr = cube_lod(row[0:3], row[3:6], row[6:9], W, bias, levels, rule)
        cross += cr
        if lod != L[i]:
            bad += 1
            rows.append((i, L[i], lod, cr))
    return bad, cross, rows

def params(d):
    """face width, bias, levels of a recorded launch (its launches.<group>.txt)."""
    g = os.path.basename(d.rstrip('/'))
    txt = open(os.path.join(os.path.dirname(d.rstrip('/')), 'launches.%s.txt' % g)).read()
    if 'content=constant' not in txt:
        return None
    m = re.search(r'size=(\d+)x\d+x\d+ levels=(\d+) .*bias=(\S+)', txt)
    return int(m.group(1)), float(m.group(3)), int(m.group(2))

if __name__ == '__main__':
    rules = ['edge10', 'exact', 'grid12']
    print('launch  samples  straddling  differing(%s)' % ', '.join(rules))
    for d in sys.argv[1:]:
        pr = params(d)
        if pr is None:
            print(d, 'random content: run ptxvm on it instead')
            continue
        c, o = load(d)
        rcp_prepare(c)
        res = [compare(c, o, *pr, rule=r) for r in rules]
        print(d, len(c), res[0][1], [r[0] for r in res])
