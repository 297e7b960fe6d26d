"""Warp-level family ('warp'): shfl.sync, vote.sync, match.sync, redux.sync,
activemask, elect.sync, each under a full mask and under partial masks with
the non-member lanes branching around the instruction (their outputs keep a
0xDEADBEEF sentinel).  Partial-mask shuffles are only generated where every
member lane reads from a member lane, so every output is defined."""

from ptxgen import Form
from vectors import rng_for

FULL = 0xFFFFFFFF
EVEN = 0x55555555
LO16 = 0x0000FFFF
MASKS = (('full', FULL), ('even', EVEN), ('lo16', LO16))
N = 256   # 8 warps


def shfl_src(mode, lane, b, c):
    bval = b & 31
    cval = c & 31
    seg = (c >> 8) & 31
    maxl = (lane & seg) | (cval & ~seg & 31)
    minl = lane & seg
    if mode == 'up':
        j = lane - bval
        ok = j >= maxl
    elif mode == 'down':
        j = lane + bval
        ok = j <= maxl
    elif mode == 'bfly':
        j = lane ^ bval
        ok = j <= maxl
    else:
        j = minl | (bval & ~seg & 31)
        ok = j <= maxl
    return j if ok else lane


def shfl_ok(mode, b, c, mask):
    for lane in range(32):
        if mask >> lane & 1:
            j = shfl_src(mode, lane, b, c)
            if not (0 <= j < 32 and mask >> j & 1):
                return False
    return True


SHFL_CAND = {
    'up': [(1, 0x0), (3, 0x0), (16, 0x0), (2, 0x0), (1, 0x1800), (5, 0x1800), (4, 0x1000), (31, 0x0),
           (33, 0x0), (2, 0x0), (6, 0x0), (1, 0x1c00), (2, 0x1005), (8, 0x0)],
    'down': [(1, 0x1f), (7, 0x1f), (16, 0x1f), (31, 0x1f), (2, 0x181f), (33, 0x1f), (3, 0x1d), (2, 0x1f),
             (4, 0x1f), (1, 0x0f), (1, 0x101f), (6, 0x1e), (2, 0x0e), (3, 0x181b)],
    'bfly': [(1, 0x1f), (16, 0x1f), (5, 0x1f), (31, 0x1f), (3, 0x101f), (4, 0x0f), (2, 0x1f), (8, 0x181f),
             (6, 0x1f), (7, 0x0b), (10, 0x1f), (12, 0x1c1f)],
    'idx': [(0, 0x1f), (17, 0x1f), (31, 0x1f), (5, 0x181f), (40, 0x1f), (3, 0x0f), (4, 0x1f), (2, 0x1f),
            (14, 0x1f), (6, 0x1c1f), (20, 0x10), (9, 0x1e1f)],
}


def warp_rows(key, kind, n=N):
    """Per-lane inputs organised per warp: structured warps first, then random."""
    R = rng_for('warp', key, kind)
    out = []
    nw = n // 32
    for w in range(nw):
        if kind == 'pred':
            pat = [
                [1] * 32, [0] * 32, [1 if i == 5 else 0 for i in range(32)],
                [0 if i == 30 else 1 for i in range(32)], [i & 1 for i in range(32)],
                [1 if i < 16 else 0 for i in range(32)], [1 if i % 3 == 0 else 0 for i in range(32)],
            ]
            v = pat[w] if w < len(pat) else [R.getrandbits(1) for _ in range(32)]
        elif kind == 'match32' or kind == 'match64':
            wide = kind == 'match64'
            base = R.getrandbits(64 if wide else 32)
            if w == 0:
                v = [base] * 32
            elif w == 1:
                v = [base ^ (i << (40 if wide else 8)) for i in range(32)]
            elif w == 2:
                v = [base + (i % 3) for i in range(32)]
            elif w == 3:
                v = [base if i % 2 == 0 else base ^ (1 << (63 if wide else 31)) for i in range(32)]
            elif w == 4:
                v = [base if i != 17 else base ^ 1 for i in range(32)]
            elif w == 5 and wide:
                v = [base ^ ((i & 1) << 32) for i in range(32)]   # same low word, different high
            else:
                pool = [R.getrandbits(64 if wide else 32) for _ in range(4)]
                v = [R.choice(pool) for _ in range(32)]
        elif kind == 'redux':
            if w == 0:
                v = [0xFFFFFFFF] * 32
            elif w == 1:
                v = [(0x80000000 if i % 5 == 0 else 0x7FFFFFFF) for i in range(32)]
            elif w == 2:
                v = [(i * 0x01010101) & 0xFFFFFFFF for i in range(32)]
            elif w == 3:
                v = [(-i) & 0xFFFFFFFF for i in range(32)]
            elif w == 4:
                v = [R.randint(-1000, 1000) & 0xFFFFFFFF for _ in range(32)]
            else:
                v = [R.getrandbits(32) for _ in range(32)]
        elif kind == 'lane':
            v = [R.randrange(40) for _ in range(32)]
        elif kind.startswith('member:'):
            m = int(kind.split(':')[1], 16)
            members = [i for i in range(32) if m >> i & 1]
            v = [R.choice(members) for _ in range(32)]
        else:
            v = [R.getrandbits(32) for _ in range(32)]
        out += v
    return out


def warp_forms():
    fam = 'warp'
    L = []

    def F(fid, body, ins, outs, mask, vec, **kw):
        L.append(Form(fid, fam, body, ins, outs, n=N, mask=None if mask == FULL else mask,
                      vecgen=lambda form, vec=vec: vec, kind='warp', guard=False, **kw))

    # shfl.sync with immediate b and c
    for mname, mask in MASKS:
        for mode, cands in SHFL_CAND.items():
            picked = [bc for bc in cands if shfl_ok(mode, bc[0], bc[1], mask)]
            picked = list(dict.fromkeys(picked))[: (6 if mask == FULL else 3)]
            for (b, c) in picked:
                fid = 'shfl_sync_%s_b32_b%d_c%x_%s' % (mode, b, c, mname)
                body = 'shfl.sync.%s.b32 {d}|{p}, {a}, %d, 0x%x, 0x%08x;' % (mode, b, c, mask)
                F(fid, body, [('a', 'b32')], [('d', 'b32'), ('p', 'pred')], mask,
                  {'a': warp_rows(fid, 'bits')}, opcode='shfl.sync')
    # shfl.sync with register b (full mask: every source lane is defined)
    for mode, c in (('up', 0x0), ('down', 0x1f), ('bfly', 0x1f), ('idx', 0x1f), ('idx', 0x181f),
                    ('down', 0x101f)):
        fid = 'shfl_sync_%s_b32_breg_c%x_full' % (mode, c)
        F(fid, 'shfl.sync.%s.b32 {d}|{p}, {a}, {b}, 0x%x, 0xffffffff;' % (mode, c),
          [('a', 'b32'), ('b', 'u32')], [('d', 'b32'), ('p', 'pred')], FULL,
          {'a': warp_rows(fid, 'bits'), 'b': warp_rows(fid, 'lane')}, opcode='shfl.sync')
    # register b, register c, register mask, no predicate output
    fid = 'shfl_sync_idx_b32_allreg_full'
    F(fid, ['mov.b32 {m}, -1;', 'shfl.sync.idx.b32 {d}, {a}, {b}, {c}, {m};'],
      [('a', 'b32'), ('b', 'u32'), ('c', 'u32')], [('d', 'b32')], FULL,
      {'a': warp_rows(fid, 'bits'), 'b': warp_rows(fid, 'lane'),
       'c': [0x1f if i % 64 < 32 else 0x181f for i in range(N)]}, temps=[('m', 'b32')], opcode='shfl.sync')
    for mname, mask in MASKS[1:]:
        fid = 'shfl_sync_idx_b32_breg_%s' % mname
        F(fid, 'shfl.sync.idx.b32 {d}|{p}, {a}, {b}, 0x1f, 0x%08x;' % mask,
          [('a', 'b32'), ('b', 'u32')], [('d', 'b32'), ('p', 'pred')], mask,
          {'a': warp_rows(fid, 'bits'), 'b': warp_rows(fid, 'member:%x' % mask)}, opcode='shfl.sync')

    # vote.sync
    for mname, mask in MASKS:
        for mode in ('all', 'any', 'uni'):
            for neg in ('', '!'):
                fid = 'vote_sync_%s_pred_%s%s' % (mode, mname, '_nota' if neg else '')
                F(fid, 'vote.sync.%s.pred {d}, %s{a}, 0x%08x;' % (mode, neg, mask), [('a', 'pred')],
                  [('d', 'pred')], mask, {'a': warp_rows(fid, 'pred')}, opcode='vote.sync')
        for neg in ('', '!'):
            fid = 'vote_sync_ballot_b32_%s%s' % (mname, '_nota' if neg else '')
            F(fid, 'vote.sync.ballot.b32 {d}, %s{a}, 0x%08x;' % (neg, mask), [('a', 'pred')],
              [('d', 'b32')], mask, {'a': warp_rows(fid, 'pred')}, opcode='vote.sync')
    fid = 'vote_sync_ballot_b32_regmask_even'
    F(fid, ['mov.b32 {m}, 0x55555555;', 'vote.sync.ballot.b32 {d}, {a}, {m};'], [('a', 'pred')],
      [('d', 'b32')], EVEN, {'a': warp_rows(fid, 'pred')}, temps=[('m', 'b32')], opcode='vote.sync')

    # match.sync
    for mname, mask in MASKS:
        for t in ('b32', 'b64'):
            kind = 'match64' if t == 'b64' else 'match32'
            fid = 'match_any_sync_%s_%s' % (t, mname)
            F(fid, 'match.any.sync.%s {d}, {a}, 0x%08x;' % (t, mask), [('a', t)], [('d', 'b32')], mask,
              {'a': warp_rows(fid, kind)}, opcode='match.any.sync')
            fid = 'match_all_sync_%s_%s' % (t, mname)
            F(fid, 'match.all.sync.%s {d}|{p}, {a}, 0x%08x;' % (t, mask), [('a', t)],
              [('d', 'b32'), ('p', 'pred')], mask, {'a': warp_rows(fid, kind)}, opcode='match.all.sync')

    # redux.sync
    for mname, mask in MASKS:
        for op in ('add', 'min', 'max'):
            for t in ('u32', 's32'):
                fid = 'redux_sync_%s_%s_%s' % (op, t, mname)
                F(fid, 'redux.sync.%s.%s {d}, {a}, 0x%08x;' % (op, t, mask), [('a', t)], [('d', t)], mask,
                  {'a': warp_rows(fid, 'redux')}, opcode='redux.sync')
        for op in ('and', 'or', 'xor'):
            fid = 'redux_sync_%s_b32_%s' % (op, mname)
            F(fid, 'redux.sync.%s.b32 {d}, {a}, 0x%08x;' % (op, mask), [('a', 'b32')], [('d', 'b32')], mask,
              {'a': warp_rows(fid, 'redux')}, opcode='redux.sync')

    # activemask and elect.sync
    for mname, mask in MASKS:
        fid = 'activemask_b32_%s' % mname
        F(fid, 'activemask.b32 {d};', [], [('d', 'b32')], mask, {}, opcode='activemask',
          note='under a partial mask the result reflects the lanes that took the branch')
        fid = 'elect_sync_%s' % mname
        F(fid, 'elect.sync {d}|{p}, 0x%08x;' % mask, [], [('d', 'b32'), ('p', 'pred')], mask, {},
          opcode='elect.sync')
    return L
