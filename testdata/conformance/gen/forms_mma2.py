"""mma.sync and wmma test vectors for the types beyond .f32.f16.f16.f32
(issue 24, recorded only: testdata/conformance/issue24/mma_vectors2).

    python3 testdata/conformance/gen/gen.py --out testdata/conformance/issue24/mma_vectors2 --only mma2 --run

Each mma form runs one mma.sync per warp (MMA2_WARPS warps, one case each;
the chain forms 64 dependent steps d = a*b + d). The buffers hold the
lanes' registers in order: a[na*t+i], b[nb*t+i], c[nc*t+i], d likewise
(u64 words for f64, u32 otherwise). The fragments are the PTX ISA's
("Matrix Fragments for mma.m16n8k*", "mma.m8n8k4 .f64"); FRAG below gives,
for each register and each element in it (lowest bits first), the (row,
column) it holds as a function of g = lane >> 2 and q = lane & 3.

The wmma forms load A (16x16 f16, stride 24 elements), B (likewise) and C
(16x16 f32, stride 16) from global memory with wmma.load, multiply with
wmma.mma and store D with wmma.store.d (stride 16), as nvcc 11.8 spells
nvcuda::wmma for sm_90; each warp has its own matrices at w * the size.
The wmma_*_dump forms store the raw fragments that wmma.load.a/b/c give
each lane (d[24*lane + 0..7] the A registers, 8..15 B, 16..23 C) for
A[i][j] = i*16+j, B[i][j] = 0x1000+i*16+j (bit patterns) and C[i][j] =
0x2000+i*16+j, which pins down the fragment layout (see _wmma_case).
"""

import struct

from forms_issue24 import Raw, _bases
from vectors import rng_for

MMA2_WARPS = 32


def _g(l):
    return l >> 2


def _q(l):
    return l & 3


# (row, col) per register and element: lambdas of (g, q, s)
A16_K16 = [lambda g, q, s: (g, 2 * q + s), lambda g, q, s: (g + 8, 2 * q + s),
           lambda g, q, s: (g, 2 * q + 8 + s), lambda g, q, s: (g + 8, 2 * q + 8 + s)]
B16_K16 = [lambda g, q, s: (2 * q + s, g), lambda g, q, s: (2 * q + 8 + s, g)]
C32 = [lambda g, q, s: (g, 2 * q), lambda g, q, s: (g, 2 * q + 1),
       lambda g, q, s: (g + 8, 2 * q), lambda g, q, s: (g + 8, 2 * q + 1)]
C16 = [lambda g, q, s: (g, 2 * q + s), lambda g, q, s: (g + 8, 2 * q + s)]
ATF_K8 = [lambda g, q, s: (g, q), lambda g, q, s: (g + 8, q),
          lambda g, q, s: (g, q + 4), lambda g, q, s: (g + 8, q + 4)]
BTF_K8 = [lambda g, q, s: (q, g), lambda g, q, s: (q + 4, g)]
A8_K32 = [lambda g, q, s: (g, 4 * q + s), lambda g, q, s: (g + 8, 4 * q + s),
          lambda g, q, s: (g, 4 * q + 16 + s), lambda g, q, s: (g + 8, 4 * q + 16 + s)]
B8_K32 = [lambda g, q, s: (4 * q + s, g), lambda g, q, s: (4 * q + 16 + s, g)]
A64 = [lambda g, q, s: (g, q)]
B64 = [lambda g, q, s: (q, g)]
C64 = [lambda g, q, s: (g, 2 * q), lambda g, q, s: (g, 2 * q + 1)]

# float formats: (exponent bits, mantissa bits, storage shift inside the word)
FMT = {'f16': (5, 10, 0), 'bf16': (8, 7, 0), 'tf32': (8, 10, 13), 'f32': (8, 23, 0), 'f64': (11, 52, 0)}
WIDTH = {'f16': 16, 'bf16': 16, 'tf32': 32, 'f32': 32, 'f64': 64, 's8': 8, 's32': 32}

# id: (instruction, M, N, K, atype, ctype, A frag, B frag, C frag)
SHAPES = {
    'm16n8k8_f32_f16': ('mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32', 16, 8, 8, 'f16', 'f32',
                        A16_K16[:2], B16_K16[:1], C32),
    'm16n8k16_f16_f16': ('mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16', 16, 8, 16, 'f16', 'f16',
                         A16_K16, B16_K16, C16),
    'm16n8k16_f32_bf16': ('mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32', 16, 8, 16, 'bf16', 'f32',
                          A16_K16, B16_K16, C32),
    'm16n8k8_f32_bf16': ('mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32', 16, 8, 8, 'bf16', 'f32',
                         A16_K16[:2], B16_K16[:1], C32),
    'm16n8k8_f32_tf32': ('mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32', 16, 8, 8, 'tf32', 'f32',
                         ATF_K8, BTF_K8, C32),
    'm16n8k4_f32_tf32': ('mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32', 16, 8, 4, 'tf32', 'f32',
                         ATF_K8[:2], BTF_K8[:1], C32),
    'm8n8k4_f64': ('mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64', 8, 8, 4, 'f64', 'f64', A64, B64, C64),
    'm16n8k32_s32_s8': ('mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32', 16, 8, 32, 's8', 's32',
                        A8_K32, B8_K32, C32),
    'm16n8k32_s32_s8_satfinite': ('mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32', 16, 8, 32,
                                  's8', 's32', A8_K32, B8_K32, C32),
}

FLOAT_KINDS = ('random', 'extreme', 'cancel', 'subnormal', 'special', 'order', 'chain')
INT_KINDS = ('random', 'extreme', 'chain')


def fbits(t, sign, e, mant):
    """Bits of a float of format t: sign, unbiased exponent e (normal) and
    mantissa field mant; tf32 in the upper 19 bits of a word."""
    eb, mb, sh = FMT[t]
    bias = (1 << (eb - 1)) - 1
    ef = max(0, min(e + bias, (1 << eb) - 2))
    return ((sign << (eb + mb)) | (ef << mb) | (mant & ((1 << mb) - 1))) << sh


def fspecial(t, R):
    eb, mb, sh = FMT[t]
    top = (1 << eb) - 1
    v = R.choice(((0, top, 0), (1, top, 0), (0, top, 1 << (mb - 1)), (0, top, 1), (1, top, 1 << (mb - 1)),
                  (0, 0, 0), (1, 0, 0)))
    return ((v[0] << (eb + mb)) | (v[1] << mb) | v[2]) << sh


def fsub(t, R):
    eb, mb, sh = FMT[t]
    return ((R.getrandbits(1) << (eb + mb)) | R.randrange(1, 1 << mb)) << sh


def emax(t):
    return (1 << (FMT[t][0] - 1)) - 1


def _case(kind, at, ct, M, N, K, R, w):
    A = [[0] * K for _ in range(M)]
    B = [[0] * N for _ in range(K)]
    C = [[0] * N for _ in range(M)]
    mb, cmb = FMT[at][1] if at in FMT else 0, FMT[ct][1] if ct in FMT else 0

    def rnd(t, lo, hi):
        x = fbits(t, R.getrandbits(1), R.randint(lo, hi), R.getrandbits(FMT[t][1]))
        if t == 'tf32' and R.random() < 0.5:
            x |= R.getrandbits(13)     # junk below the tf32 mantissa: does the GPU use it?
        return x

    def fill(X, rows, cols, f):
        for i in range(rows):
            for j in range(cols):
                X[i][j] = f(i, j)

    if at == 's8':
        if kind == 'random' or kind == 'chain':
            fill(A, M, K, lambda i, j: R.randrange(256))
            fill(B, K, N, lambda i, j: R.randrange(256))
            fill(C, M, N, lambda i, j: R.getrandbits(32) if kind == 'random' else R.randrange(1 << 20))
        else:   # extreme: products of -128/127, c near the s32 limits
            fill(A, M, K, lambda i, j: R.choice((0x80, 0x7f, 0x81, R.randrange(256))))
            fill(B, K, N, lambda i, j: R.choice((0x80, 0x7f, 0x81, R.randrange(256))))
            fill(C, M, N, lambda i, j: R.choice((0x7fffffff, 0x80000000, 0x7fff0000, 0x80010000,
                                                  R.getrandbits(32))) & 0xffffffff)
        return A, B, C
    E = emax(at)
    if kind == 'random':
        fill(A, M, K, lambda i, j: rnd(at, -8, 8))
        fill(B, K, N, lambda i, j: rnd(at, -8, 8))
        fill(C, M, N, lambda i, j: rnd(ct, -10, 10) if ct != 'f16' else rnd(ct, -8, 8))
    elif kind == 'extreme':
        lo = 1 - E
        big = (fbits(at, 0, E, -1), fbits(at, 1, E, -1), fbits(at, 0, lo, 0), 1 << FMT[at][2])
        fill(A, M, K, lambda i, j: rnd(at, lo - mb, E) if R.random() < 0.5 else R.choice(big))
        fill(B, K, N, lambda i, j: rnd(at, lo - mb, E))
        CE = emax(ct)
        fill(C, M, N, lambda i, j: rnd(ct, 1 - CE, CE) if R.random() < 0.7 else 0)
    elif kind == 'cancel':
        for i in range(M):
            e = R.randint(4, min(12, E - 2))
            s = R.getrandbits(FMT[at][1])
            pos = R.sample(range(K), 2)
            for k in range(K):
                A[i][k] = rnd(at, -12, -2)
            A[i][pos[0]] = fbits(at, 0, e, s)
            A[i][pos[1]] = fbits(at, 1, e, s)
        one = fbits(at, 0, 0, 0)
        fill(B, K, N, lambda i, j: R.choice((one, one, rnd(at, -2, 2))))
        ce = min(24, emax(ct) - 1) if ct != 'f16' else 11
        fill(C, M, N, lambda i, j: R.choice((0, rnd(ct, -20, 20) if ct != 'f16' else rnd(ct, -10, 10),
                                             fbits(ct, 0, ce, 0), fbits(ct, 1, ce, 0))))
    elif kind == 'subnormal':
        one = fbits(at, 0, 0, 0)
        lo = 1 - E
        fill(A, M, K, lambda i, j: R.choice((fsub(at, R), fsub(at, R), rnd(at, lo, 0))))
        fill(B, K, N, lambda i, j: R.choice((fsub(at, R), rnd(at, lo, 4), one)))
        CE = emax(ct)
        fill(C, M, N, lambda i, j: R.choice((fsub(ct, R), rnd(ct, 1 - CE, 10 - CE), 0,
                                             1 << (WIDTH[ct] - 1))))
    elif kind == 'special':
        fill(A, M, K, lambda i, j: fspecial(at, R) if R.random() < 0.15 else rnd(at, -4, 4))
        fill(B, K, N, lambda i, j: fspecial(at, R) if R.random() < 0.15 else rnd(at, -4, 4))
        fill(C, M, N, lambda i, j: fspecial(ct, R) if R.random() < 0.2 else rnd(ct, -4, 4))
    elif kind == 'order':
        for i in range(M):
            p, p2 = (i + w) % K, (i * 5 + w * 3 + 1) % K
            if p2 == p:
                p2 = (p + 1) % K
            e = min(10 + (w % 6) * (3 if at in ('f64',) else 1), E - 8)
            for k in range(K):
                A[i][k] = fbits(at, 0, 0, 0)
            A[i][p] = fbits(at, 0, e, 0)
            A[i][p2] = fbits(at, 1, e, 0)
        fill(B, K, N, lambda k, j: fbits(at, 0, j + w % 8, 0))
        fill(C, M, N, lambda i, j: R.choice((0, fbits(ct, 0, min(24 + j, emax(ct) - 1), 0),
                                             fbits(ct, 1, min(20 + j, emax(ct) - 1), 0),
                                             fbits(ct, 0, -1, 0))))
    elif kind == 'chain':
        fill(A, M, K, lambda i, j: rnd(at, -6, 0))
        fill(B, K, N, lambda i, j: rnd(at, -6, 0))
        fill(C, M, N, lambda i, j: rnd(ct, -2, 8))
    return A, B, C


def _words(X, frag, width, lane):
    g, q = lane >> 2, lane & 3
    out = []
    for f in frag:
        per = max(1, 32 // width) if width < 32 else 1
        v = 0
        for s in range(per):
            r, c = f(g, q, s)
            v |= (X[r][c] & ((1 << width) - 1)) << (width * s)
        out.append(v)
    return out


def _vectors(form):
    inst, M, N, K, at, ct, fa, fb, fc = SHAPES[form.shape]
    R = rng_for('issue24-mma2', form.id)
    a, b, c = [], [], []
    for w in range(MMA2_WARPS):
        A, B, C = _case(form.kind24, at, ct, M, N, K, R, w)
        Bt = B
        for lane in range(32):
            a += _words(A, fa, WIDTH[at], lane)
            b += _words(Bt, fb, WIDTH[at], lane)
            c += _words(C, fc, WIDTH[ct], lane)
    return {'a': a, 'b': b, 'c': c}


def mma2_form(shape, kind, steps=1):
    inst, M, N, K, at, ct, fa, fb, fc = SHAPES[shape]
    fid = 'mma2_%s_%s' % (shape, kind if steps == 1 else 'chain%d' % steps)
    n = 32 * MMA2_WARPS
    na, nb, nc = len(fa), len(fb), len(fc)
    wide = ct == 'f64'
    reg = '%fd' if wide else '%r'
    esz = 8 if wide else 4
    L = ['mov.u32 %r0, %ctaid.x;', 'mov.u32 %r1, %ntid.x;', 'mov.u32 %r2, %tid.x;',
         'mad.lo.s32 %r3, %r0, %r1, %r2;'] + _bases(['d', 'a', 'b', 'c'])

    def load(base, rn, cnt, first):
        out = ['mul.wide.u32 %%rd%d, %%r3, %d;' % (rn, cnt * esz),
               'add.s64 %%rd%d, %%rd%d, %%rd%d;' % (rn, base, rn)]
        for i in range(cnt):
            if wide:
                out.append('ld.global.f64 %%fd%d, [%%rd%d+%d];' % (first + i, rn, 8 * i))
            else:
                out.append('ld.global.u32 %%r%d, [%%rd%d+%d];' % (first + i, rn, 4 * i))
        return out
    L += load(2, 10, na, 10) + load(3, 11, nb, 20) + load(4, 12, nc, 30)

    def lst(first, cnt):
        return '{' + ', '.join('%s%d' % (reg, first + i) for i in range(cnt)) + '}'
    L += ['mov.u32 %%r40, %d;' % steps, '$L_loop:',
          '%s %s, %s, %s, %s;' % (inst, lst(30, nc), lst(10, na), lst(20, nb), lst(30, nc)),
          'sub.u32 %r40, %r40, 1;', 'setp.ne.u32 %p1, %r40, 0;', '@%p1 bra $L_loop;',
          'mul.wide.u32 %%rd13, %%r3, %d;' % (nc * esz), 'add.s64 %rd13, %rd1, %rd13;']
    for i in range(nc):
        if wide:
            L.append('st.global.f64 [%%rd13+%d], %%fd%d;' % (8 * i, 30 + i))
        else:
            L.append('st.global.u32 [%%rd13+%d], %%r%d;' % (4 * i, 30 + i))
    wt = 'u64' if wide else 'u32'
    bufs = [('d', wt, nc * n, 'out'), ('a', wt, na * n, 'in'), ('b', wt, nb * n, 'in'), ('c', wt, nc * n, 'in')]
    f = Raw(fid, 'mma2', L, bufs, None, n=n, shared=['.reg .f64 %fd<48>;'], key=[inst],
            note='recorded only: %d step(s) of %s' % (steps, inst))
    f.shape, f.kind24 = shape, kind
    f.vecgen = _vectors
    return f


# ---------------------------------------------------------------- wmma

WM_LD = 24     # stride (elements) of A and B in memory


def _f16bits(R, lo, hi):
    return fbits('f16', R.getrandbits(1), R.randint(lo, hi), R.getrandbits(10))


def _wmma_case(kind, R, w):
    A = [[0] * 16 for _ in range(16)]
    B = [[0] * 16 for _ in range(16)]
    C = [[0] * 16 for _ in range(16)]
    if kind == 'dump':
        for i in range(16):
            for j in range(16):
                A[i][j], B[i][j], C[i][j] = i * 16 + j, 0x1000 + i * 16 + j, 0x2000 + i * 16 + j
        return A, B, C
    # reuse the mma cases: two 16x8 halves of B and C
    for half in range(2):
        a, b, c = _case(kind, 'f16', 'f32', 16, 8, 16, R, 2 * w + half)
        if half == 0:
            A = a
        for k in range(16):
            for j in range(8):
                B[k][8 * half + j] = b[k][j]
        for i in range(16):
            for j in range(8):
                C[i][8 * half + j] = c[i][j]
    return A, B, C


def _wmma_vectors(form):
    R = rng_for('issue24-wmma', form.id)
    al, bl, cl = form.layouts
    a, b, c = [], [], []
    for w in range(MMA2_WARPS):
        A, B, C = _wmma_case(form.kind24, R, w)
        ma = [0] * (16 * WM_LD)
        mb = [0] * (16 * WM_LD)
        for i in range(16):
            for j in range(16):
                ma[(i * WM_LD + j) if al == 'row' else (j * WM_LD + i)] = A[i][j]
                mb[(i * WM_LD + j) if bl == 'row' else (j * WM_LD + i)] = B[i][j]
        for k in range(0, len(ma), 2):
            a.append(ma[k] | ma[k + 1] << 16)
            b.append(mb[k] | mb[k + 1] << 16)
        for i in range(16):
            for j in range(16):
                c.append(C[i][j] if cl == 'row' else C[j][i])
    return {'a': a, 'b': b, 'c': c}


def wmma_form(kind, al, bl, cl):
    fid = 'wmma_m16n16k16_f32_f16_%s_%s_%s_%s' % (al, bl, cl, kind)
    n = 32 * MMA2_WARPS
    aw = 16 * WM_LD // 2    # words of A (and B) per warp
    L = ['mov.u32 %r0, %ctaid.x;', 'mov.u32 %r1, %ntid.x;', 'mov.u32 %r2, %tid.x;',
         'mad.lo.s32 %r3, %r0, %r1, %r2;', 'shr.u32 %r4, %r3, 5;', 'and.b32 %r5, %r3, 31;'] + \
        _bases(['d', 'a', 'b', 'c']) + [
        'mul.wide.u32 %%rd10, %%r4, %d;' % (4 * aw), 'add.s64 %rd11, %rd2, %rd10;', 'add.s64 %rd12, %rd3, %rd10;',
        'mul.wide.u32 %rd13, %r4, 1024;', 'add.s64 %rd14, %rd4, %rd13;', 'add.s64 %rd15, %rd1, %rd13;',
        'mov.u32 %%r6, %d;' % WM_LD, 'mov.u32 %r7, 16;']
    ra = '{' + ', '.join('%%r%d' % (10 + i) for i in range(8)) + '}'
    rb = '{' + ', '.join('%%r%d' % (20 + i) for i in range(8)) + '}'
    rc = '{' + ', '.join('%%f%d' % (1 + i) for i in range(8)) + '}'
    rd = '{' + ', '.join('%%f%d' % (9 + i) for i in range(8)) + '}'
    lda = 'wmma.load.a.sync.aligned.%s.m16n16k16.global.f16 %s, [%%rd11], %%r6;' % (al, ra)
    ldb = 'wmma.load.b.sync.aligned.%s.m16n16k16.global.f16 %s, [%%rd12], %%r6;' % (bl, rb)
    ldc = 'wmma.load.c.sync.aligned.%s.m16n16k16.global.f32 %s, [%%rd14], %%r7;' % (cl, rc)
    L += [lda, ldb, ldc]
    if kind == 'dump':
        # the raw fragments: d[24*lane + 0..7] = a regs, 8..15 b regs, 16..23 c regs
        L += ['mul.wide.u32 %rd16, %r3, 96;', 'add.s64 %rd16, %rd1, %rd16;']
        for i in range(8):
            L.append('st.global.u32 [%%rd16+%d], %%r%d;' % (4 * i, 10 + i))
            L.append('st.global.u32 [%%rd16+%d], %%r%d;' % (32 + 4 * i, 20 + i))
            L.append('st.global.f32 [%%rd16+%d], %%f%d;' % (64 + 4 * i, 1 + i))
        key = [lda, ldb, ldc]
        dn = 24 * n
    else:
        mm = 'wmma.mma.sync.aligned.%s.%s.m16n16k16.f32.f32 %s, %s, %s, %s;' % (al, bl, rd, ra, rb, rc)
        st = 'wmma.store.d.sync.aligned.%s.m16n16k16.global.f32 [%%rd15], %s, %%r7;' % (cl, rd)
        L += [mm, st]
        key = [lda, ldb, ldc, mm, st]
        dn = 8 * n
    bufs = [('d', 'u32', dn, 'out'), ('a', 'u32', aw * MMA2_WARPS, 'in'), ('b', 'u32', aw * MMA2_WARPS, 'in'),
            ('c', 'u32', 256 * MMA2_WARPS, 'in')]
    f = Raw(fid, 'mma2', L, bufs, None, n=n, shared=['.reg .f32 %f<24>;'], key=key,
            note='recorded only: wmma m16n16k16 f16 x f16 -> f32, A %s, B %s, C/D %s, stride %d' % (al, bl, cl, WM_LD))
    f.kind24, f.layouts = kind, (al, bl, cl)
    f.vecgen = _wmma_vectors
    return f


def mma2_forms():
    F = []
    for shape in SHAPES:
        kinds = INT_KINDS if SHAPES[shape][4] == 's8' else FLOAT_KINDS
        for k in kinds:
            F.append(mma2_form(shape, k, steps=64 if k == 'chain' else 1))
    for al, bl, cl in (('row', 'col', 'row'), ('col', 'row', 'col'), ('row', 'row', 'row'), ('col', 'col', 'col')):
        for k in ('random', 'extreme', 'cancel', 'subnormal', 'special', 'order'):
            F.append(wmma_form(k, al, bl, cl))
        F.append(wmma_form('dump', al, bl, cl))
    return F
