"""mma.sync, mma.sp and wmma test vectors for the forms beyond
forms_mma2.py (issue 24 items 1-3; testdata/conformance/issue24/mma_vectors3).

    python3 testdata/conformance/gen/gen.py --out testdata/conformance/issue24/mma_vectors3 --only mma3 --run

Families (one PTX module each, so a form ptxas or the driver refuses spoils
only its own family):

  mma3_int8   u8 and mixed s8/u8 m16n8k32, s8/u8 m16n8k16 and m8n8k16, +-.satfinite
  mma3_int4   s4/u4 m16n8k32, m16n8k64, m8n8k32, +-.satfinite
  mma3_b1     b1 .and.popc/.xor.popc m16n8k128, m16n8k256, m8n8k128
  mma3_fp8    e4m3/e5m2 m16n8k32 with an f32 accumulator
  mma3_fp8h   e4m3/e5m2 with an f16 accumulator and m16n8k16 (PTX 8.7)
  mma3_f16    m16n8k8 f16 accumulator, f16/f32 mixed accumulators (k8, k16)
  mma3_m884   m8n8k4 .f16 (every layout, f16 and f32 accumulators)
  mma3_sp     mma.sp and mma.sp::ordered_metadata f16/bf16/tf32, every selector
  mma3_spi    mma.sp s8/u8/s4/u4
  mma3_spf8   mma.sp e4m3/e5m2
  wmma3_*     wmma shapes and types beyond .m16n16k16 f16->f32 (f16, bf16,
              tf32, f64 with rounding modifiers, s8/u8, s4/u4, b1)

mma forms: one mma per warp (the chain forms 64 dependent steps d = a*b + d),
MMA3_WARPS warps, one case each. Buffers hold the lanes' registers in order:
a[na*t+i], b, c, d likewise (u64 words for f64, u32 otherwise); e (mma.sp)
one metadata word per lane. FRAG gives, per register and element (lowest
bits first), the (row, column) it holds as a function of g = lane >> 2 and
q = lane & 3 (PTX ISA, "Matrix Fragments for mma.m16n8k*"); forms without a
fragment table (m8n8k4 .f16, mma.sp) draw each register element from the
kind's distribution directly.

wmma forms: A, B, C in global memory (each warp its own, row or column
major, a padded stride), wmma.load a/b/c, wmma.mma, wmma.store.d; the dump
kinds store the raw registers each load gives (d[nregs*lane + i]: A's, then
B's, then C's) for index patterns, which pins the (opaque) fragment layout.
"""

from forms_issue24 import Raw, _bases
from forms_mma2 import FMT, WIDTH, fbits, fsub, emax, _case as _fcase, _words
from vectors import rng_for

FMT.update({'e4m3': (4, 3, 0), 'e5m2': (5, 2, 0)})
WIDTH.update({'u8': 8, 's4': 4, 'u4': 4, 'b1': 1, 'e4m3': 8, 'e5m2': 8})
INT = ('s8', 'u8', 's4', 'u4', 'b1')

MMA3_WARPS = 8
VERSION = '.version 8.7\n'


def _fr(f):
    return f


# fragments (row, col) = f(g, q, s)
def A_k(kb, nreg_half):
    """A of m16n8k*: registers alternate rows g, g+8; each holds e elements
    of consecutive columns; kb = elements per register per thread-in-group."""
    out = []
    for r in range(nreg_half * 2):
        hi = r & 1
        blk = r >> 1
        out.append((lambda hi, blk: lambda g, q, s: (g + 8 * hi, kb * q + 4 * kb * blk + s))(hi, blk))
    return out


def B_k(kb, nreg):
    return [(lambda blk: lambda g, q, s: (kb * q + 4 * kb * blk + s, g))(blk) for blk in range(nreg)]


def A_m8(kb):
    return [lambda g, q, s: (g, kb * q + s)]


def B_m8(kb):
    return [lambda g, q, s: (kb * q + s, g)]


C32 = [lambda g, q, s: (g, 2 * q), lambda g, q, s: (g, 2 * q + 1),
       lambda g, q, s: (g + 8, 2 * q), lambda g, q, s: (g + 8, 2 * q + 1)]
C16 = [lambda g, q, s: (g, 2 * q + s), lambda g, q, s: (g + 8, 2 * q + s)]
C8x8 = [lambda g, q, s: (g, 2 * q), lambda g, q, s: (g, 2 * q + 1)]


def nwords(t, per_thread_elems):
    return per_thread_elems * WIDTH[t] // 32


# ---------------------------------------------------------------- shapes
# id -> dict(inst, M, N, K, at, bt, ct, dt, fa, fb, fc, fd, na, nb, nc, nd)

SHAPES = {}


def _shape(sid, inst, M, N, K, at, bt, ct, dt, fa=None, fb=None, fc=None, fd=None, na=None, nb=None, nc=None,
           nd=None, fam=None, kinds=None, sp=None, warps=MMA3_WARPS):
    S = dict(inst=inst, M=M, N=N, K=K, at=at, bt=bt, ct=ct, dt=dt, fa=fa, fb=fb, fc=fc, fd=fd,
             na=na if na is not None else len(fa), nb=nb if nb is not None else len(fb),
             nc=nc if nc is not None else len(fc), nd=nd if nd is not None else len(fd), fam=fam,
             kinds=kinds, sp=sp, warps=warps)
    SHAPES[sid] = S


def _cfrag(t, M):
    if M == 8:
        return C8x8
    return C16 if t == 'f16' else C32


def _int_shapes():
    # int8: m16n8k32, m16n8k16, m8n8k16
    for at, bt in (('u8', 'u8'), ('s8', 'u8'), ('u8', 's8'), ('s8', 's8')):
        for shp, M, K in (('m16n8k32', 16, 32), ('m16n8k16', 16, 16), ('m8n8k16', 8, 16)):
            if shp == 'm16n8k32' and at == bt == 's8':
                continue   # forms_mma2
            if M == 16:
                fa = A_k(4, 2) if K == 32 else A_k(4, 1)
                fb = B_k(4, 2) if K == 32 else B_k(4, 1)
            else:
                fa, fb = A_m8(4), B_m8(4)
            for sat in ('', '.satfinite'):
                inst = 'mma.sync.aligned.%s.row.col%s.s32.%s.%s.s32' % (shp, sat, at, bt)
                sid = '%s_s32_%s_%s%s' % (shp, at, bt, sat.replace('.', '_'))
                _shape(sid, inst, M, 8, K, at, bt, 's32', 's32', fa, fb, _cfrag('s32', M), _cfrag('s32', M),
                       fam='mma3_int8', kinds=('extreme', 'chain') if sat else ('random', 'extreme', 'chain'))
    # int4: m16n8k32, m16n8k64, m8n8k32
    for at, bt in (('s4', 's4'), ('u4', 'u4'), ('s4', 'u4'), ('u4', 's4')):
        for shp, M, K in (('m16n8k32', 16, 32), ('m16n8k64', 16, 64), ('m8n8k32', 8, 32)):
            if M == 16:
                fa = A_k(8, 2) if K == 64 else A_k(8, 1)
                fb = B_k(8, 2) if K == 64 else B_k(8, 1)
            else:
                fa, fb = A_m8(8), B_m8(8)
            for sat in ('', '.satfinite'):
                inst = 'mma.sync.aligned.%s.row.col%s.s32.%s.%s.s32' % (shp, sat, at, bt)
                sid = '%s_s32_%s_%s%s' % (shp, at, bt, sat.replace('.', '_'))
                _shape(sid, inst, M, 8, K, at, bt, 's32', 's32', fa, fb, _cfrag('s32', M), _cfrag('s32', M),
                       fam='mma3_int4', kinds=('extreme', 'chain') if sat else ('random', 'extreme', 'chain'))
    # b1
    for op in ('and', 'xor'):
        for shp, M, K in (('m16n8k128', 16, 128), ('m16n8k256', 16, 256), ('m8n8k128', 8, 128)):
            if M == 16:
                fa = A_k(32, 2) if K == 256 else A_k(32, 1)
                fb = B_k(32, 2) if K == 256 else B_k(32, 1)
            else:
                fa, fb = A_m8(32), B_m8(32)
            inst = 'mma.sync.aligned.%s.row.col.s32.b1.b1.s32.%s.popc' % (shp, op)
            sid = '%s_s32_b1_%s' % (shp, op)
            _shape(sid, inst, M, 8, K, 'b1', 'b1', 's32', 's32', fa, fb, _cfrag('s32', M), _cfrag('s32', M),
                   fam='mma3_b1', kinds=('random', 'extreme', 'chain'))


FKINDS = ('random', 'extreme', 'cancel', 'subnormal', 'special', 'order', 'align', 'chain')


def _float_shapes():
    f8 = ('e4m3', 'e5m2')
    for at in f8:
        for bt in f8:
            inst = 'mma.sync.aligned.m16n8k32.row.col.f32.%s.%s.f32' % (at, bt)
            _shape('m16n8k32_f32_%s_%s' % (at, bt), inst, 16, 8, 32, at, bt, 'f32', 'f32', A_k(4, 2), B_k(4, 2),
                   C32, C32, fam='mma3_fp8', kinds=FKINDS, warps=16)
            inst = 'mma.sync.aligned.m16n8k32.row.col.f16.%s.%s.f16' % (at, bt)
            _shape('m16n8k32_f16_%s_%s' % (at, bt), inst, 16, 8, 32, at, bt, 'f16', 'f16', A_k(4, 2), B_k(4, 2),
                   C16, C16, fam='mma3_fp8h', kinds=FKINDS, warps=16)
            for dt in ('f32', 'f16'):
                inst = 'mma.sync.aligned.m16n8k16.row.col.%s.%s.%s.%s' % (dt, at, bt, dt)
                _shape('m16n8k16_%s_%s_%s' % (dt, at, bt), inst, 16, 8, 16, at, bt, dt, dt, A_k(4, 1), B_k(4, 1),
                       _cfrag(dt, 16), _cfrag(dt, 16), fam='mma3_fp8h', kinds=('random', 'extreme', 'special'))
    # f16 multiplicands, f16 or mixed accumulators
    A16 = A_k(2, 2)
    B16 = B_k(2, 2)
    for shp, K, fa, fb in (('m16n8k8', 8, A16[:2], B16[:1]), ('m16n8k16', 16, A16, B16)):
        for dt, ct in (('f16', 'f16'), ('f16', 'f32'), ('f32', 'f16')):
            if shp == 'm16n8k16' and dt == ct:
                continue   # forms_mma2
            inst = 'mma.sync.aligned.%s.row.col.%s.f16.f16.%s' % (shp, dt, ct)
            kinds = FKINDS if dt == ct else ('random', 'extreme', 'cancel', 'subnormal', 'special', 'order')
            _shape('%s_%s_f16_%s' % (shp, dt, ct), inst, 16, 8, K, 'f16', 'f16', ct, dt, fa, fb,
                   _cfrag(ct, 16), _cfrag(dt, 16), fam='mma3_f16', kinds=kinds)
    # m8n8k4 .f16: layouts from the ISA are per quad pair; registers drawn directly
    for al in ('row', 'col'):
        for bl in ('row', 'col'):
            for dt, ct in (('f16', 'f16'), ('f32', 'f32'), ('f32', 'f16'), ('f16', 'f32')):
                inst = 'mma.sync.aligned.m8n8k4.%s.%s.%s.f16.f16.%s' % (al, bl, dt, ct)
                nc = 4 if ct == 'f16' else 8
                nd = 4 if dt == 'f16' else 8
                kinds = ('random', 'extreme', 'subnormal', 'special', 'chain') if dt == ct else ('random', 'special')
                if (al, bl) != ('row', 'col') and dt == ct:
                    kinds = ('random', 'special')
                _shape('m8n8k4_%s_%s_%s_f16_%s' % (al, bl, dt, ct), inst, 8, 8, 4, 'f16', 'f16', ct, dt,
                       na=2, nb=2, nc=nc, nd=nd, fam='mma3_m884', kinds=kinds)


def _sp_shapes():
    # (shape, K, type, ctype, na, nb, nc, selectors)
    rows = []
    for t in ('f16', 'bf16'):
        for K, na, nb in ((16, 2, 2), (32, 4, 4)):
            rows.append(('m16n8k%d' % K, t, 'f32', na, nb, 4, (0, 1, 2, 3)))
            if t == 'f16':
                rows.append(('m16n8k%d' % K, t, 'f16', na, nb, 2, (0, 1, 2, 3)))
    rows.append(('m16n8k8', 'tf32', 'f32', 2, 2, 4, (0, 1, 2, 3)))
    rows.append(('m16n8k16', 'tf32', 'f32', 4, 4, 4, (0, 1, 2, 3)))
    for ordered in ('', '::ordered_metadata'):
        for shp, t, ct, na, nb, nc, sels in rows:
            for sel in sels:
                if t == 'f16' and ct == 'f32':
                    kinds = ('random', 'meta', 'metaany', 'special', 'extreme', 'subnormal', 'chain')
                else:
                    kinds = ('random', 'meta', 'special')
                if sel >= 2 or ordered == '':
                    kinds = ('random', 'metaany')
                inst = 'mma.sp%s.sync.aligned.%s.row.col.%s.%s.%s.%s' % (ordered, shp, ct, t, t, ct)
                sid = 'sp%s_%s_%s_%s_sel%d' % ('o' if ordered else '', shp, ct, t, sel)
                _shape(sid, inst, 16, 8, int(shp.split('k')[1]), t, t, ct, ct, na=na, nb=nb, nc=nc, nd=nc,
                       fam='mma3_sp', kinds=kinds, sp=sel)
    for ordered in ('', '::ordered_metadata'):
        for t, K, na in (('s8', 32, 2), ('s8', 64, 4), ('u8', 32, 2), ('s4', 64, 2), ('s4', 128, 4), ('u4', 64, 2)):
            for sel in (0, 1):
                for sat in ('', '.satfinite'):
                    if sat and (sel or ordered == ''):
                        continue
                    inst = 'mma.sp%s.sync.aligned.m16n8k%d.row.col%s.s32.%s.%s.s32' % (ordered, K, sat, t, t)
                    sid = 'sp%s_m16n8k%d_s32_%s%s_sel%d' % ('o' if ordered else '', K, t, sat.replace('.', '_'), sel)
                    kinds = ('random', 'meta', 'metaany', 'extreme') if ordered and sel == 0 and not sat \
                        else ('random', 'metaany')
                    _shape(sid, inst, 16, 8, K, t, t, 's32', 's32', na=na, nb=na, nc=4, nd=4, fam='mma3_spi',
                           kinds=kinds, sp=sel)
        for at in ('e4m3', 'e5m2'):
            for sel in (0, 1):
                inst = 'mma.sp%s.sync.aligned.m16n8k64.row.col.f32.%s.%s.f32' % (ordered, at, at)
                sid = 'sp%s_m16n8k64_f32_%s_sel%d' % ('o' if ordered else '', at, sel)
                kinds = ('random', 'meta', 'metaany', 'special', 'extreme') if ordered and sel == 0 \
                    else ('random', 'metaany')
                _shape(sid, inst, 16, 8, 64, at, at, 'f32', 'f32', na=4, nb=4, nc=4, nd=4, fam='mma3_spf8',
                       kinds=kinds, sp=sel)


_int_shapes()
_float_shapes()
_sp_shapes()


# ---------------------------------------------------------------- values

def _irange(t):
    w = WIDTH[t]
    return w, (t.startswith('s'))


def _ival(t, R, kind):
    w = WIDTH[t]
    if t == 'b1':
        return R.getrandbits(1) if kind != 'extreme' else (1 if R.random() < 0.9 else 0)
    if kind == 'extreme':
        if t[0] == 's':
            lo, hi = 1 << (w - 1), (1 << (w - 1)) - 1
            return R.choice((lo, hi, lo + 1, (1 << w) - 1, R.getrandbits(w)))
        return R.choice(((1 << w) - 1, (1 << w) - 2, 1 << (w - 1), 0, R.getrandbits(w)))
    return R.getrandbits(w)


C_EXT = (0x7fffffff, 0x80000000, 0x7fff0000, 0x80010000, 0x7ffffff0, 0x80000010)


def _int_case(kind, S, R):
    M, N, K = S['M'], S['N'], S['K']
    A = [[_ival(S['at'], R, kind) for _ in range(K)] for _ in range(M)]
    B = [[_ival(S['bt'], R, kind) for _ in range(N)] for _ in range(K)]
    if kind == 'random':
        C = [[R.getrandbits(32) for _ in range(N)] for _ in range(M)]
    elif kind == 'extreme':
        C = [[R.choice(C_EXT + (R.getrandbits(32),)) for _ in range(N)] for _ in range(M)]
    else:
        C = [[R.randrange(1 << 20) for _ in range(N)] for _ in range(M)]
    return A, B, C


def _fp8_extra(t):
    if t == 'e4m3':
        return (0x7e, 0xfe, 0x7f, 0xff, 0x01, 0x81, 0x08, 0x80, 0x00)
    return (0x7b, 0xfb, 0x7c, 0xfc, 0x7d, 0x7e, 0xff, 0x01, 0x81, 0x04, 0x80, 0x00)


def _fspecial(t, R):
    eb, mb, sh = FMT[t]
    if t == 'e4m3':
        return R.choice((0x7f, 0xff, 0x7e, 0xfe, 0x00, 0x80, 0x78))
    top = (1 << eb) - 1
    v = R.choice(((0, top, 0), (1, top, 0), (0, top, 1 << (mb - 1)), (0, top, 1), (1, top, 1 << (mb - 1)),
                  (0, 0, 0), (1, 0, 0)))
    return ((v[0] << (eb + mb)) | (v[1] << mb) | v[2]) << sh


def _frnd(t, R, lo, hi):
    return fbits(t, R.getrandbits(1), R.randint(lo, hi), R.getrandbits(FMT[t][1]))


def _float_case(kind, S, R, w):
    at, bt, ct, M, N, K = S['at'], S['bt'], S['ct'], S['M'], S['N'], S['K']
    if at not in ('e4m3', 'e5m2'):
        return _fcase(kind if kind != 'align' else 'extreme', at, ct, M, N, K, R, w)
    A = [[0] * K for _ in range(M)]
    B = [[0] * N for _ in range(K)]
    C = [[0] * N for _ in range(M)]
    Ea, Eb, Ec = emax(at), emax(bt), emax(ct)
    if kind == 'random' or kind == 'chain':
        sp = 3 if kind == 'chain' else 6
        for i in range(M):
            for k in range(K):
                A[i][k] = _frnd(at, R, -sp, min(sp, Ea))
        for k in range(K):
            for j in range(N):
                B[k][j] = _frnd(bt, R, -sp, min(sp, Eb))
        for i in range(M):
            for j in range(N):
                C[i][j] = _frnd(ct, R, -4, 8)
    elif kind == 'extreme':
        xa, xb = _fp8_extra(at) if at in ('e4m3', 'e5m2') else (), _fp8_extra(bt) if bt in ('e4m3', 'e5m2') else ()
        for i in range(M):
            for k in range(K):
                A[i][k] = R.choice(xa) if xa and R.random() < 0.3 else _frnd(at, R, 1 - Ea - FMT[at][1], Ea)
        for k in range(K):
            for j in range(N):
                B[k][j] = R.choice(xb) if xb and R.random() < 0.3 else _frnd(bt, R, 1 - Eb - FMT[bt][1], Eb)
        for i in range(M):
            for j in range(N):
                C[i][j] = _frnd(ct, R, 1 - Ec, Ec) if R.random() < 0.7 else 0
        for i in range(M):      # subnormal bit patterns too
            for k in range(K):
                if R.random() < 0.1:
                    A[i][k] = fsub(at, R)
    elif kind == 'special':
        for i in range(M):
            for k in range(K):
                A[i][k] = _fspecial(at, R) if R.random() < 0.15 else _frnd(at, R, -4, 4)
        for k in range(K):
            for j in range(N):
                B[k][j] = _fspecial(bt, R) if R.random() < 0.15 else _frnd(bt, R, -4, 4)
        for i in range(M):
            for j in range(N):
                C[i][j] = _fspecial(ct, R) if R.random() < 0.2 else _frnd(ct, R, -4, 4)
    elif kind in ('align', 'cancel', 'order', 'subnormal'):
        # one big product, the others 2^-d smaller for d spread over the
        # alignment window, c between; 'cancel': the big one cancelled by c
        one_b = fbits(bt, 0, 0, 0)
        for i in range(M):
            eb = R.randint(0, min(6, Ea))
            p = (i + w) % K
            for k in range(K):
                d = R.randint(1, 30) if kind != 'subnormal' else R.randint(Ea, Ea + FMT[at][1] + 4)
                A[i][k] = fbits(at, R.getrandbits(1), max(eb - d, 1 - Ea), R.getrandbits(FMT[at][1])) \
                    if (eb - d) >= 1 - Ea else fsub(at, R)
            A[i][p] = fbits(at, 0, eb, R.getrandbits(FMT[at][1]))
            if kind == 'order':
                A[i][(p + 1 + w) % K] = fbits(at, 1, eb, A[i][p] & ((1 << FMT[at][1]) - 1))
        for k in range(K):
            for j in range(N):
                B[k][j] = one_b if R.random() < 0.5 else _frnd(bt, R, -2, 2)
        for i in range(M):
            for j in range(N):
                if kind == 'cancel':
                    C[i][j] = fbits(ct, 1, min(Ec - 1, 7), 0) if R.random() < 0.5 else fbits(ct, 0, 3, 0)
                else:
                    C[i][j] = R.choice((0, _frnd(ct, R, -12, 6), fbits(ct, 0, min(10, Ec - 1), 0)))
    return A, B, C


def _elem(t, R, kind):
    """A register element drawn directly (forms without a fragment table)."""
    w = WIDTH[t]
    if t in INT or t == 's32':
        if t == 's32':
            return R.getrandbits(32) if kind != 'extreme' else R.choice(C_EXT + (R.getrandbits(32),))
        return _ival(t, R, kind)
    if kind == 'special' and R.random() < 0.15:
        return _fspecial(t, R)
    if kind == 'extreme':
        E = emax(t)
        if R.random() < 0.1:
            return fsub(t, R)
        return _frnd(t, R, 1 - E - FMT[t][1] // 2, E)
    if kind == 'subnormal':
        return fsub(t, R) if R.random() < 0.5 else _frnd(t, R, 1 - emax(t), 3 - emax(t))
    if kind == 'chain':
        return _frnd(t, R, -3, 1)
    return _frnd(t, R, -6, 6)


VALID_NIB = (0x4, 0x8, 0xC, 0x9, 0xD, 0xE)


def _meta(S, R, kind, lane, w):
    if kind == 'metaany':
        return R.getrandbits(32)
    if S['at'] == 'tf32':
        nibs = (0x4, 0xE)
    else:
        nibs = VALID_NIB
    v = 0
    for i in range(8):
        if kind == 'meta':   # each pattern at each position over the lanes
            v |= nibs[(lane + i + w) % len(nibs)] << (4 * i)
        else:
            v |= R.choice(nibs) << (4 * i)
    return v


def _vectors(form):
    S = SHAPES[form.shape]
    R = rng_for('issue24-mma3', form.id)
    kind = form.kind24
    a, b, c, e = [], [], [], []
    for w in range(S['warps']):
        if S['fa'] is not None:
            if S['at'] in INT:
                A, B, C = _int_case(kind, S, R)
            else:
                A, B, C = _float_case(kind, S, R, w)
            for lane in range(32):
                a += _words(A, S['fa'], WIDTH[S['at']], lane)
                b += _words(B, S['fb'], WIDTH[S['bt']], lane)
                c += _words(C, S['fc'], WIDTH[S['ct']], lane)
        else:
            ek = kind if kind in ('special', 'extreme', 'subnormal', 'chain') else 'random'
            for lane in range(32):
                for words, n, t in ((a, S['na'], S['at']), (b, S['nb'], S['bt']), (c, S['nc'], S['ct'])):
                    wd = WIDTH[t]
                    per = 32 // wd
                    for _ in range(n):
                        v = 0
                        for s in range(per):
                            v |= (_elem(t, R, ek) & ((1 << wd) - 1)) << (wd * s)
                        words.append(v)
                if S['sp'] is not None:
                    e.append(_meta(S, R, kind, lane, w))
    out = {'a': a, 'b': b, 'c': c}
    if S['sp'] is not None:
        out['e'] = e
    return out


def mma3_form(sid, kind):
    S = SHAPES[sid]
    chain = kind == 'chain'
    fid = 'mma3_%s_%s' % (sid, 'chain64' if chain else kind)
    n = 32 * S['warps']
    na, nb, nc, nd = S['na'], S['nb'], S['nc'], S['nd']
    L = ['mov.u32 %r0, %ctaid.x;', 'mov.u32 %r1, %ntid.x;', 'mov.u32 %r2, %tid.x;',
         'mad.lo.s32 %r3, %r0, %r1, %r2;'] + _bases(['d', 'a', 'b', 'c'] + (['e'] if S['sp'] is not None else []))

    def load(base, rn, cnt, first):
        out = ['mul.wide.u32 %%rd%d, %%r3, %d;' % (rn, cnt * 4),
               'add.s64 %%rd%d, %%rd%d, %%rd%d;' % (rn, base, rn)]
        for i in range(cnt):
            out.append('ld.global.u32 %%r%d, [%%rd%d+%d];' % (first + i, rn, 4 * i))
        return out
    L += load(2, 10, na, 10) + load(3, 11, nb, 20) + load(4, 12, nc, 30)
    meta = ''
    if S['sp'] is not None:
        L += load(5, 14, 1, 45)
        meta = ', %%r45, %d' % S['sp']
    dfirst = 30 if chain else 50

    def lst(first, cnt):
        return '{' + ', '.join('%%r%d' % (first + i) for i in range(cnt)) + '}'
    mma = '%s %s, %s, %s, %s%s;' % (S['inst'], lst(dfirst, nd), lst(10, na), lst(20, nb), lst(30, nc), meta)
    L += ['mov.u32 %%r40, %d;' % (64 if chain else 1), '$L_loop:', mma,
          'sub.u32 %r40, %r40, 1;', 'setp.ne.u32 %p1, %r40, 0;', '@%p1 bra $L_loop;',
          'mul.wide.u32 %%rd13, %%r3, %d;' % (nd * 4), 'add.s64 %rd13, %rd1, %rd13;']
    for i in range(nd):
        L.append('st.global.u32 [%%rd13+%d], %%r%d;' % (4 * i, dfirst + i))
    bufs = [('d', 'u32', nd * n, 'out'), ('a', 'u32', na * n, 'in'), ('b', 'u32', nb * n, 'in'),
            ('c', 'u32', nc * n, 'in')]
    if S['sp'] is not None:
        bufs.append(('e', 'u32', n, 'in'))
    f = Raw(fid, S['fam'], L, bufs, None, n=n, key=[mma],
            note='recorded only: %s step(s) of %s' % (64 if chain else 1, S['inst']))
    f.shape, f.kind24 = sid, kind
    f.vecgen = _vectors
    return f


# ---------------------------------------------------------------- wmma

# (family, shape, M, N, K, atype, ctype, dtype, na, nb, nc, nd, layouts allowed ('any' or 'rowcol'), rnd)
WMMA = []


def _wm(fam, shape, M, N, K, at, ct, dt, na, nb, rowcol=False, rnd=''):
    ncr = {'f16': 4, 'f32': 8, 's32': 8, 'f64': 2}
    if shape in ('m8n8k32', 'm8n8k128'):
        ncr = {'s32': 2}
    WMMA.append(dict(fam=fam, shape=shape, M=M, N=N, K=K, at=at, ct=ct, dt=dt, na=na, nb=nb, nc=ncr[ct],
                     nd=ncr[dt], rowcol=rowcol, rnd=rnd))


for _shp, _M, _N in (('m16n16k16', 16, 16), ('m32n8k16', 32, 8), ('m8n32k16', 8, 32)):
    for _dt, _ct in (('f16', 'f16'), ('f32', 'f32'), ('f32', 'f16'), ('f16', 'f32')):
        if _shp == 'm16n16k16' and _dt == _ct == 'f32':
            continue
        _wm('mma3_wmma_f16', _shp, _M, _N, 16, 'f16', _ct, _dt, 8, 8)
    _wm('mma3_wmma_bf16', _shp, _M, _N, 16, 'bf16', 'f32', 'f32', {16: 4, 32: 8, 8: 2}[_M], {16: 4, 8: 2, 32: 8}[_N])
    for _t in ('s8', 'u8'):
        _wm('mma3_wmma_int8', _shp, _M, _N, 16, _t, 's32', 's32', {16: 2, 32: 4, 8: 1}[_M], {16: 2, 8: 1, 32: 4}[_N])
_wm('mma3_wmma_tf32', 'm16n16k8', 16, 16, 8, 'tf32', 'f32', 'f32', 4, 4)
for _r in ('', '.rn', '.rz', '.rm', '.rp'):
    _wm('mma3_wmma_f64', 'm8n8k4', 8, 8, 4, 'f64', 'f64', 'f64', 1, 1, rnd=_r)
for _t in ('s4', 'u4'):
    _wm('mma3_wmma_sub', 'm8n8k32', 8, 8, 32, _t, 's32', 's32', 1, 1, rowcol=True)
_wm('mma3_wmma_sub', 'm8n8k128', 8, 8, 128, 'b1', 's32', 's32', 1, 1, rowcol=True)


def _wstride(cols, t, natural=False):
    """Stride in elements: the row's bytes rounded up to 16, plus 16
    (natural: the row's own length, as wmma takes it without a stride)."""
    w = WIDTH[t]
    if natural:
        return cols
    rb = (cols * w + 7) // 8
    rb = (rb + 15) // 16 * 16 + 16
    return rb * 8 // w


def _place(X, rows, cols, layout, t, natural=False):
    """Elements of X in memory (row or column major, padded stride) -> u32 words."""
    w = WIDTH[t]
    if layout == 'row':
        ld, outer, inner = _wstride(cols, t, natural), rows, cols
    else:
        ld, outer, inner = _wstride(rows, t, natural), cols, rows
    nel = outer * ld
    bits = 0
    for o in range(outer):
        for i in range(inner):
            v = X[o][i] if layout == 'row' else X[i][o]
            bits |= (v & ((1 << w) - 1)) << (w * (o * ld + i))
    nbytes = (nel * w + 7) // 8
    nwords_ = (nbytes + 3) // 4
    words = [(bits >> (32 * k)) & 0xffffffff for k in range(nwords_)]
    return words, ld


def _wsize(rows, cols, layout, t, natural=False):
    return len(_place([[0] * cols for _ in range(rows)], rows, cols, layout, t, natural)[0])


def _wdump_val(t, pat, i, j, cols, which):
    w = WIDTH[t]
    if t == 'b1':
        return None
    if pat == 'dump':
        v = (which << 12) + i * cols + j
        if t == 'f64':
            return (which << 60) | (i << 32) | j
        return v & ((1 << w) - 1)
    if pat == 'dumpr':
        return i & ((1 << w) - 1)
    if pat == 'dumpc':
        return j & ((1 << w) - 1)
    if pat == 'dumpch':
        return (j >> 4) & ((1 << w) - 1)


def _wcase(W, kind, R, w):
    M, N, K, at, ct = W['M'], W['N'], W['K'], W['at'], W['ct']
    if kind.startswith('dump'):
        out = []
        for which, (rows, cols, t) in enumerate(((M, K, at), (K, N, at), (M, N, ct))):
            X = [[0] * cols for _ in range(rows)]
            for i in range(rows):
                for j in range(cols):
                    v = _wdump_val(t, kind, i, j, cols, which)
                    X[i][j] = R.getrandbits(WIDTH[t]) if v is None else v
            out.append(X)
        return out
    S = dict(M=M, N=N, K=K, at=at, bt=at, ct=ct)
    if at in INT:
        return _int_case(kind.split('_')[0], S, R)
    return _float_case(kind, S, R, w)


WM_WARPS = 8


def _wmma_vectors(form):
    W = form.wm
    R = rng_for('issue24-wmma3', form.id)
    al, bl, cl = form.layouts
    a, b, c = [], [], []
    for w in range(WM_WARPS):
        A, B, C = _wcase(W, form.kind24, R, w)
        nat = getattr(form, 'natural', False)
        a += _place(A, W['M'], W['K'], al, W['at'], nat)[0]
        b += _place(B, W['K'], W['N'], bl, W['at'], nat)[0]
        cw, _ = _place(C, W['M'], W['N'], cl, W['ct'], nat)
        c += cw
    return {'a': a, 'b': b, 'c': c}


def _tsuf(t):
    return t


def wmma3_form(W, kind, al, bl, cl, extra=None, family=None):
    """extra: None; 'nostride': no stride operands, matrices at their
    natural stride; 'copies': the f16 A and B registers 4-7 (the copies
    of 0-3 wmma.load writes) changed before wmma.mma."""
    shape, at, ct, dt = W['shape'], W['at'], W['ct'], W['dt']
    fid = 'mma3_wmma_%s_%s_%s_%s%s_%s_%s_%s_%s' % (shape, dt, at, ct, W['rnd'].replace('.', '_'), al, bl, cl, kind)
    if extra:
        fid += '_' + extra
    nat = extra == 'nostride'
    n = 32 * WM_WARPS
    M, N, K = W['M'], W['N'], W['K']
    aw, bw, cw = _wsize(M, K, al, at, nat), _wsize(K, N, bl, at, nat), _wsize(M, N, cl, ct, nat)
    lda = _wstride(K if al == 'row' else M, at, nat)
    ldb = _wstride(N if bl == 'row' else K, at, nat)
    ldc = _wstride(N if cl == 'row' else M, ct, nat)
    # D is stored with C's layout and stride into d (dw words per warp)
    dw = _wsize(M, N, cl, dt, nat)
    ldd = _wstride(N if cl == 'row' else M, dt, nat)
    L = ['mov.u32 %r0, %ctaid.x;', 'mov.u32 %r1, %ntid.x;', 'mov.u32 %r2, %tid.x;',
         'mad.lo.s32 %r3, %r0, %r1, %r2;', 'shr.u32 %r4, %r3, 5;', 'and.b32 %r5, %r3, 31;'] + \
        _bases(['d', 'a', 'b', 'c']) + [
        'mul.wide.u32 %%rd10, %%r4, %d;' % (4 * aw), 'add.s64 %rd11, %rd2, %rd10;',
        'mul.wide.u32 %%rd10, %%r4, %d;' % (4 * bw), 'add.s64 %rd12, %rd3, %rd10;',
        'mul.wide.u32 %%rd13, %%r4, %d;' % (4 * cw), 'add.s64 %rd14, %rd4, %rd13;',
        'mul.wide.u32 %%rd13, %%r4, %d;' % (4 * dw), 'add.s64 %rd15, %rd1, %rd13;',
        'mov.u32 %%r6, %d;' % lda, 'mov.u32 %%r7, %d;' % ldb, 'mov.u32 %%r8, %d;' % ldc, 'mov.u32 %%r9, %d;' % ldd]
    wide = at == 'f64'

    def regs(first, cnt, t):
        if t == 'f64':
            return '{' + ', '.join('%%fd%d' % (first + i) for i in range(cnt)) + '}'
        if t == 'f32':
            return '{' + ', '.join('%%f%d' % (first + i) for i in range(cnt)) + '}'
        return '{' + ', '.join('%%r%d' % (first + i) for i in range(cnt)) + '}'
    na, nb, nc, nd = W['na'], W['nb'], W['nc'], W['nd']
    ra, rb = regs(10, na, at if wide else 'b'), regs(20, nb, at if wide else 'b')
    rc = regs(30 if ct != 'f64' else 4, nc, ct)
    rd = regs(50 if dt != 'f64' else 8, nd, dt)
    A1 = 'wmma.load.a.sync.aligned.%s.%s.global.%s %s, [%%rd11], %%r6;' % (al, shape, at, ra)
    B1 = 'wmma.load.b.sync.aligned.%s.%s.global.%s %s, [%%rd12], %%r7;' % (bl, shape, at, rb)
    C1 = 'wmma.load.c.sync.aligned.%s.%s.global.%s %s, [%%rd14], %%r8;' % (cl, shape, ct, rc)
    if nat:
        A1, B1, C1 = (x.replace(', %r6;', ';').replace(', %r7;', ';').replace(', %r8;', ';') for x in (A1, B1, C1))
    L += [A1, B1, C1]
    if extra == 'copies':
        L += ['xor.b32 %%r%d, %%r%d, %d;' % (r, r, 0x00010001 * (r - 13)) for r in range(14, 18)]
        L += ['xor.b32 %%r%d, %%r%d, %d;' % (r, r, 0x00010001 * (r - 21)) for r in range(24, 28)]
    if kind.startswith('dump'):
        tot = na + nb + nc
        per = tot * (2 if wide else 1)
        L += ['mul.wide.u32 %%rd16, %%r3, %d;' % (4 * per), 'add.s64 %rd16, %rd1, %rd16;']
        off = 0
        for cnt, first, t in ((na, 10, at), (nb, 20, at), (nc, 30 if ct != 'f64' else 4, ct)):
            for i in range(cnt):
                if t == 'f64':
                    L.append('st.global.f64 [%%rd16+%d], %%fd%d;' % (off, first + i))
                    off += 8
                elif t == 'f32':
                    L.append('st.global.f32 [%%rd16+%d], %%f%d;' % (off, first + i))
                    off += 4
                else:
                    L.append('st.global.u32 [%%rd16+%d], %%r%d;' % (off, first + i))
                    off += 4
        key = [A1, B1, C1]
        dn = per * n
    else:
        if at in ('s4', 'u4', 's8', 'u8'):
            sat = '.satfinite' if kind == 'extreme' and at in ('s8', 'u8') else ''
            mm = 'wmma.mma.sync.aligned.%s.%s.%s.s32.%s.%s.s32%s %s, %s, %s, %s;' % (
                al, bl, shape, at, at, sat, rd, ra, rb, rc)
        elif at == 'b1':
            mm = 'wmma.mma.%s.popc.sync.aligned.%s.%s.%s.s32.b1.b1.s32 %s, %s, %s, %s;' % (
                form_op(kind), al, bl, shape, rd, ra, rb, rc)
        elif at == 'f64':
            mm = 'wmma.mma.sync.aligned.%s.%s.%s%s.f64.f64.f64.f64 %s, %s, %s, %s;' % (
                al, bl, shape, W['rnd'], rd, ra, rb, rc)
        elif at in ('bf16', 'tf32'):
            mm = 'wmma.mma.sync.aligned.%s.%s.%s.f32.%s.%s.f32 %s, %s, %s, %s;' % (
                al, bl, shape, at, at, rd, ra, rb, rc)
        else:
            mm = 'wmma.mma.sync.aligned.%s.%s.%s.%s.%s %s, %s, %s, %s;' % (al, bl, shape, dt, ct, rd, ra, rb, rc)
        st = 'wmma.store.d.sync.aligned.%s.%s.global.%s [%%rd15], %s, %%r9;' % (cl, shape, dt, rd)
        if nat:
            st = st.replace(', %r9;', ';')
        L += [mm, st]
        key = [A1, B1, C1, mm, st]
        dn = dw * WM_WARPS
    bufs = [('d', 'u32', dn, 'out'), ('a', 'u32', aw * WM_WARPS, 'in'), ('b', 'u32', bw * WM_WARPS, 'in'),
            ('c', 'u32', cw * WM_WARPS, 'in')]
    f = Raw(fid, family or W['fam'], L, bufs, None, n=n,
            shared=['.reg .f32 %f<72>;', '.reg .f64 %fd<32>;'], key=key,
            note='recorded only: wmma %s %s x %s + %s -> %s, A %s (ld %d), B %s (ld %d), C/D %s (ld %d/%d)' % (
                shape, at, at, ct, dt, al, lda, bl, ldb, cl, ldc, ldd))
    f.kind24, f.layouts, f.wm, f.natural = kind, (al, bl, cl), W, nat
    f.vecgen = _wmma_vectors
    return f


def form_op(kind):
    return 'xor' if kind.endswith('xor') else 'and'


def _wmma_forms():
    F = []
    LAY4 = (('row', 'col', 'row'), ('col', 'row', 'col'), ('row', 'row', 'row'), ('col', 'col', 'col'))
    for W in WMMA:
        at = W['at']
        if W['rowcol']:
            lays = (('row', 'col', 'row'), ('row', 'col', 'col'))
        else:
            lays = LAY4
        # dumps: every layout combination
        w = WIDTH[at]
        if at == 'b1':
            dumps = ('dumprand',)
        elif w >= 16:
            dumps = ('dump',)
        elif w == 8:
            dumps = ('dumpr', 'dumpc')
        else:
            dumps = ('dumpr', 'dumpc', 'dumpch')
        if W['rnd'] in ('', ):
            # one set of dumps per (shape, type, ctype)
            key = (W['shape'], at, W['ct'])
            if key not in _wmma_forms.seen:
                _wmma_forms.seen.add(key)
                for lay in lays:
                    for d in dumps:
                        F.append(wmma3_form(W, d, *lay))
        if at in INT:
            kinds = ('random', 'extreme') if at != 'b1' else ('random_and', 'random_xor', 'extreme_and', 'extreme_xor')
        elif at == 'f64':
            kinds = ('random', 'extreme', 'cancel', 'subnormal', 'special') if W['rnd'] in ('', '.rz') \
                else ('random', 'extreme', 'cancel')
        elif W['ct'] != W['dt']:
            kinds = ('random', 'special', 'extreme')
        else:
            kinds = ('random', 'extreme', 'cancel', 'subnormal', 'special', 'order')
        for i, k in enumerate(kinds):
            F.append(wmma3_form(W, k, *lays[i % len(lays)]))
    return F


_wmma_forms.seen = set()


def wmma_extra_forms():
    """Family mma3_wmma_x (second recording): wmma without stride operands
    (every shape and type, a dump and an arithmetic form, row and column
    major) and which copy of the f16 A/B registers wmma.mma reads."""
    F = []
    seen = set()
    for W in WMMA:
        key = (W['shape'], W['at'], W['ct'])
        if key in seen or W['rnd']:
            continue
        seen.add(key)
        lays = (('row', 'col', 'row'), ('row', 'col', 'col')) if W['rowcol'] else \
            (('row', 'col', 'row'), ('col', 'row', 'col'))
        dump = 'dumprand' if W['at'] == 'b1' else ('dump' if WIDTH[W['at']] >= 16 else 'dumpr')
        kind = 'random_xor' if W['at'] == 'b1' else 'random'
        for lay in lays:
            F.append(wmma3_form(W, dump, *lay, extra='nostride', family='mma3_wmma_x'))
            F.append(wmma3_form(W, kind, *lay, extra='nostride', family='mma3_wmma_x'))
        if W['at'] == 'f16':
            F.append(wmma3_form(W, 'random', 'row', 'col', 'row', extra='copies', family='mma3_wmma_x'))
    return F


def mma3_forms():
    F = []
    for sid, S in SHAPES.items():
        for k in S['kinds']:
            F.append(mma3_form(sid, k))
    _wmma_forms.seen = set()
    F += _wmma_forms()
    F += wmma_extra_forms()
    return F
