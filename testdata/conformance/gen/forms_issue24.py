"""Asynchronous copies, matrix loads and stores, and mbarriers (issue 24).

Families (one CTA of 128 threads each unless noted; every output is
architecturally defined, so the GPU's result is deterministic):

  cpasync   cp.async (.ca/.cg, 4/8/16 bytes, src-size from a register or an
            immediate, ignore-src, L2 cache hints and prefetch sizes, 32- and
            64-bit shared addresses, immediate offsets), commit_group,
            wait_group N with several groups outstanding, wait_all, and
            completion through an mbarrier (cp.async.mbarrier.arrive with and
            without .noinc). Shared memory is filled with a sentinel first, so
            zero fill and untouched bytes show.
  ldmatrix  ldmatrix .m8n8 .x1/.x2/.x4, with and without .trans, .b16, row
            addresses from every lane (a permutation of the rows; the lanes
            whose addresses the shape ignores point elsewhere), .shared,
            .shared::cta and generic addresses; .m16n16/.m8n16 .b8 probes
            (sm_100a+ in the ISA: ptxas is expected to refuse them for sm_90).
  stmatrix  stmatrix .m8n8 .x1/.x2/.x4, with and without .trans, onto rows
            filled with a sentinel; every thread then reads 16 bytes back.
  movmatrix movmatrix.sync.aligned.m8n8.trans.b16.
  mbarrier  single-thread sequences (init, arrive with and without count,
            arrive_drop, expect_tx, complete_tx, arrive.expect_tx, phase flips,
            test_wait / try_wait with a state and with .parity, pending_count,
            inval, re-init), each observation recorded in `o`; the upper
            32 bits of each state in `st` and the object's 64 bits after
            mbarrier.inval in `w` (opaque in the ISA: recorded to learn the
            GPU's encoding; only what the GPU defines: the lower half of a
            state is register junk and a plain load of a live object reads
            stale shared memory); one form per spelling
            (.release/.acquire/.relaxed, .cta/.cluster, .shared::cta,
            .shared::cluster with the sink destination, generic addresses,
            suspend-time hints); multi-thread patterns (all threads arrive and
            wait; a producer warp and consumer warps with two phases; an
            elected lane's arrive.expect_tx with complete_tx from every thread),
            fence.proxy.async and elect.sync.
"""

from ptxgen import Form
from vectors import rng_for

N = 128
SENT = 0xDEADBEEF


def _regs(nr=96, nrd=48, np_=16):
    return ['\t.reg .b32 %%r<%d>;' % nr, '\t.reg .b64 %%rd<%d>;' % nrd, '\t.reg .pred %%p<%d>;' % np_]


class Raw(Form):
    """A form whose entry is written out whole: lines (PTX statements, one per
    item; labels end in ':'), shared declarations, and buffers (name, type,
    count, role) in parameter order."""

    def __init__(self, fid, family, lines, bufs, vec, shared=(), key=None, n=N, note=None):
        self.raw_lines = lines
        self.raw_shared = list(shared)
        self.raw_vec = vec
        body = key if key is not None else [s for s in lines if _interesting(s)]
        super().__init__(fid, family, body, [], [], n=n, guard=False, emit=_emit_raw, bufs=bufs,
                         vecgen=lambda f: f.raw_vec, note=note)
        self.opcode = (body[0].split()[0] if body else family)


INTERESTING = ('cp.async', 'ldmatrix', 'stmatrix', 'movmatrix', 'mbarrier', 'fence.proxy', 'elect', 'mma')


def _interesting(s):
    s = s.strip()
    if s.startswith('@'):
        s = s.split(None, 1)[1] if ' ' in s else s
    return s.startswith(INTERESTING)


def _emit_raw(form, ctx):
    ctx.decls = _regs() + ['\t' + s for s in form.raw_shared]
    for s in form.raw_lines:
        if s.endswith(':'):
            ctx.label(s[:-1])
        else:
            ctx.emit(s)


def _bases(names):
    """Loads the global base address of each buffer into %rd<i>+1 in order."""
    out = []
    for i, nm in enumerate(names):
        out.append('ld.param.u64 %%rd%d, [p_%s];' % (i + 1, nm))
        out.append('cvta.to.global.u64 %%rd%d, %%rd%d;' % (i + 1, i + 1))
    return out


def _rand_words(key, n):
    R = rng_for('issue24', key)
    return [R.getrandbits(32) for _ in range(n)]


# ---------------------------------------------------------------- cp.async

def _cp_line(cop, S, dst, src, variant, space='.shared'):
    base = 'cp.async.%s%s.global' % (cop, space)
    if variant == 'srcsize_reg':
        return '%s [%s], [%s], %d, %%r6;' % (base, dst, src, S)
    if variant == 'srcsize_imm0':
        return '%s [%s], [%s], %d, 0;' % (base, dst, src, S)
    if variant == 'srcsize_immh':
        return '%s [%s], [%s], %d, %d;' % (base, dst, src, S, S // 2)
    if variant == 'ignore':
        return '%s [%s], [%s], %d, %%p1;' % (base, dst, src, S)
    if variant == 'hint':
        return '%s.L2::cache_hint [%s], [%s], %d, %%rd20;' % (base, dst, src, S)
    if variant == 'hint_srcsize':
        return '%s.L2::cache_hint [%s], [%s], %d, %%r6, %%rd20;' % (base, dst, src, S)
    if variant.startswith('pf'):
        return '%s.L2::%sB [%s], [%s], %d;' % (base, variant[2:], dst, src, S)
    if variant == 'hint_pf':
        return '%s.L2::cache_hint.L2::128B [%s], [%s], %d, %%rd20;' % (base, dst, src, S)
    return '%s [%s], [%s], %d;' % (base, dst, src, S)


def cp_form(cop, S, variant):
    """Each thread copies S bytes from a permuted source element into its own
    16-byte shared slot (prefilled with a per-thread sentinel), at an offset
    inside the slot; after wait_group 0 (or wait_all) and bar.sync, thread t
    writes slot t+1 to d[4t..4t+3]."""
    fid = 'cpasync_%s%d_%s' % (cop, S, variant)
    per = 16 // S
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['d', 's', 'z'])
    L += [
        'mov.u32 %r1, sm;',
        'shl.b32 %r2, %r0, 4;',
        'add.u32 %r3, %r1, %r2;',                      # own slot
        'xor.b32 %r4, %r0, 0xA5A5A5A5;',
        'st.shared.v4.u32 [%r3], {%r4, %r4, %r4, %r4};',
        'bar.sync 0;',
        'mad.lo.u32 %r5, %r0, 37, 11;',
        'and.b32 %r5, %r5, 127;',                      # permuted source element
        'mul.wide.u32 %rd4, %r5, 16;',
        'add.s64 %rd5, %rd2, %rd4;',
        'rem.u32 %%r9, %%r0, %d;' % per,
        'mul.wide.u32 %%rd6, %%r9, %d;' % S,
        'add.s64 %rd8, %rd5, %rd6;',                   # source: element + (t % per) * S
        'shr.u32 %r10, %r0, 2;',
        'rem.u32 %%r10, %%r10, %d;' % per,
        'mul.lo.u32 %%r10, %%r10, %d;' % S,
        'add.u32 %r7, %r3, %r10;',                     # destination: slot + ((t/4) % per) * S
        'mul.wide.u32 %rd9, %r0, 4;',
        'add.s64 %rd10, %rd3, %rd9;',
        'ld.global.u32 %r6, [%rd10];',                 # z[t]: src-size or ignore flag
        'setp.ne.u32 %p1, %r6, 0;',
        'createpolicy.fractional.L2::evict_last.b64 %rd20, 1.0;',
    ]
    dst, src = '%r7', '%rd8'
    space = '.shared'
    v = variant
    if variant == 'dst64':
        L.append('cvt.u64.u32 %rd11, %r7;')
        dst, v = '%rd11', 'plain'
    elif variant == 'cta':
        space, v = '.shared::cta', 'plain'
    elif variant == 'immoff':
        # the same copy written as base register + immediate
        L.append('sub.u32 %%r11, %%r7, %d;' % S)
        L.append('sub.s64 %%rd12, %%rd8, %d;' % (2 * S))
        dst, src, v = '%%r11+%d' % S, '%%rd12+%d' % (2 * S), 'plain'
    elif variant == 'wait_all':
        v = 'plain'
    L.append(_cp_line(cop, S, dst, src, v, space))
    if variant == 'wait_all':
        L.append('cp.async.wait_all;')
    else:
        L += ['cp.async.commit_group;', 'cp.async.wait_group 0;']
    L += [
        'bar.sync 0;',
        'add.u32 %r12, %r0, 1;',
        'and.b32 %r12, %r12, 127;',
        'shl.b32 %r12, %r12, 4;',
        'add.u32 %r12, %r1, %r12;',
        'ld.shared.v4.u32 {%r13, %r14, %r15, %r16}, [%r12];',
        'mul.wide.u32 %rd13, %r0, 16;',
        'add.s64 %rd14, %rd1, %rd13;',
        'st.global.v4.u32 [%rd14], {%r13, %r14, %r15, %r16};',
    ]
    R = rng_for('issue24', fid)
    if variant in ('srcsize_reg', 'hint_srcsize'):
        z = [t % (S + 1) if t < 64 else R.randrange(S + 1) for t in range(N)]
    elif variant == 'ignore':
        z = [(t >> 1) & 1 if t < 64 else R.getrandbits(1) for t in range(N)]
    else:
        z = [0] * N
    vec = {'s': _rand_words(fid, 4 * N), 'z': z}
    bufs = [('d', 'u32', 4 * N, 'out'), ('s', 'u32', 4 * N, 'in'), ('z', 'u32', N, 'in')]
    return Raw(fid, 'cpasync', L, bufs, vec, shared=['.shared .align 16 .b8 sm[2048];'])


def cp_groups_form(kind):
    """Several groups outstanding. Each thread copies 16 bytes into its own
    slot of region k (k = 0, 1, 2; each a 2048-byte region prefilled with a
    sentinel) from source element (t*37 + 11k) % 128 of s.

      groups3      three committed groups; wait_group 2 -> read region 0,
                   wait_group 1 -> region 1, wait_group 0 -> region 2
      uncommitted  group 0 committed, the copy to region 1 not committed;
                   wait_all -> both
      overwrite    copy to region 0, commit, wait_group 0, read; copy another
                   element to the same slot, commit, wait_group 0, read
      sizes        one group of a 4-, an 8- and a 4-byte .ca copy into one slot
                   (bytes 0-3, 8-15, 4-7), a second group of a 16-byte .cg copy
                   into region 1; wait_group 1 -> region 0; wait_group 0 ->
                   region 1
      waitmore     wait_group 3 with two groups outstanding (no wait), then
                   wait_group 0 -> both regions
    Outputs: d[12t..12t+11] (regions 0..2 as read, own slot; unread words
    stay 0)."""
    fid = 'cpasync_groups_%s' % kind
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['d', 's'])
    L += [
        'mov.u32 %r1, sm;',
        'shl.b32 %r2, %r0, 4;',
        'add.u32 %r3, %r1, %r2;',                       # own slot, region 0
        'xor.b32 %r4, %r0, 0x5A5A5A5A;',
        'st.shared.v4.u32 [%r3], {%r4, %r4, %r4, %r4};',
        'st.shared.v4.u32 [%r3+2048], {%r4, %r4, %r4, %r4};',
        'st.shared.v4.u32 [%r3+4096], {%r4, %r4, %r4, %r4};',
        'bar.sync 0;',
        'mul.wide.u32 %rd10, %r0, 48;',
        'add.s64 %rd11, %rd1, %rd10;',                  # d + 48 t
        'mov.u32 %r20, 0;',
        'st.global.v4.u32 [%rd11], {%r20, %r20, %r20, %r20};',
        'st.global.v4.u32 [%rd11+16], {%r20, %r20, %r20, %r20};',
        'st.global.v4.u32 [%rd11+32], {%r20, %r20, %r20, %r20};',
    ]

    def src(k, reg):
        return ['mad.lo.u32 %%r5, %%r0, 37, %d;' % (11 * k + 3),
                'and.b32 %r5, %r5, 127;',
                'mul.wide.u32 %rd4, %r5, 16;',
                'add.s64 %%rd%d, %%rd2, %%rd4;' % reg]

    def read(k):
        return ['ld.shared.v4.u32 {%%r13, %%r14, %%r15, %%r16}, [%%r3+%d];' % (2048 * k),
                'st.global.v4.u32 [%%rd11+%d], {%%r13, %%r14, %%r15, %%r16};' % (16 * k)]

    if kind == 'groups3':
        for k in range(3):
            L += src(k, 5 + k)
        for k in range(3):
            L += ['cp.async.cg.shared.global [%%r3+%d], [%%rd%d], 16;' % (2048 * k, 5 + k), 'cp.async.commit_group;']
        L += ['cp.async.wait_group 2;'] + read(0)
        L += ['cp.async.wait_group 1;'] + read(1)
        L += ['cp.async.wait_group 0;'] + read(2)
    elif kind == 'uncommitted':
        L += src(0, 5) + src(1, 6)
        L += ['cp.async.ca.shared.global [%r3], [%rd5], 16;', 'cp.async.commit_group;',
              'cp.async.ca.shared.global [%r3+2048], [%rd6], 16;', 'cp.async.wait_all;']
        L += read(0) + read(1)
    elif kind == 'overwrite':
        L += src(0, 5) + src(1, 6)
        L += ['cp.async.cg.shared.global [%r3], [%rd5], 16;', 'cp.async.commit_group;', 'cp.async.wait_group 0;']
        L += read(0)
        L += ['cp.async.cg.shared.global [%r3], [%rd6], 16;', 'cp.async.commit_group;', 'cp.async.wait_group 0;']
        L += ['ld.shared.v4.u32 {%r13, %r14, %r15, %r16}, [%r3];',
              'st.global.v4.u32 [%rd11+16], {%r13, %r14, %r15, %r16};']
    elif kind == 'sizes':
        L += src(0, 5) + src(1, 6)
        L += ['cp.async.ca.shared.global [%r3], [%rd5], 4;',
              'cp.async.ca.shared.global [%r3+8], [%rd5+8], 8;',
              'cp.async.ca.shared.global [%r3+4], [%rd6+4], 4;',
              'cp.async.commit_group;',
              'cp.async.cg.shared.global [%r3+2048], [%rd6], 16;',
              'cp.async.commit_group;',
              'cp.async.wait_group 1;'] + read(0) + ['cp.async.wait_group 0;'] + read(1)
    elif kind == 'waitmore':
        L += src(0, 5) + src(1, 6)
        L += ['cp.async.cg.shared.global [%r3], [%rd5], 16;', 'cp.async.commit_group;',
              'cp.async.cg.shared.global [%r3+2048], [%rd6], 16;', 'cp.async.commit_group;',
              'cp.async.wait_group 3;', 'cp.async.wait_group 0;'] + read(0) + read(1)
    vec = {'s': _rand_words(fid, 4 * N)}
    bufs = [('d', 'u32', 12 * N, 'out'), ('s', 'u32', 4 * N, 'in')]
    return Raw(fid, 'cpasync', L, bufs, vec, shared=['.shared .align 16 .b8 sm[6144];'])


def cp_mbar_form(kind):
    """Completion through an mbarrier: thread 0 initialises it for 128
    arrivals; each thread copies 16 bytes into its slot, then
      noinc  cp.async.mbarrier.arrive.noinc (the copies' arrival is the
             thread's arrival), then waits with try_wait.parity 0
      inc    cp.async.mbarrier.arrive (pending count unchanged), then
             mbarrier.arrive and a test_wait loop on its state
    and writes slot t+1 (another thread's copy) to d, without bar.sync."""
    fid = 'cpasync_mbar_%s' % kind
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['d', 's'])
    L += [
        'mov.u32 %r1, sm;',
        'mov.u32 %r30, bar;',
        'shl.b32 %r2, %r0, 4;',
        'add.u32 %r3, %r1, %r2;',
        'xor.b32 %r4, %r0, 0xA5A5A5A5;',
        'st.shared.v4.u32 [%r3], {%r4, %r4, %r4, %r4};',
        'setp.ne.u32 %p2, %r0, 0;',
        '@%p2 bra $L_init;',
        'mbarrier.init.shared.b64 [%r30], 128;',
        '$L_init:',
        'bar.sync 0;',
        'mad.lo.u32 %r5, %r0, 37, 11;',
        'and.b32 %r5, %r5, 127;',
        'mul.wide.u32 %rd4, %r5, 16;',
        'add.s64 %rd5, %rd2, %rd4;',
        'cp.async.cg.shared.global [%r3], [%rd5], 16;',
    ]
    if kind == 'noinc':
        L += ['cp.async.mbarrier.arrive.noinc.shared.b64 [%r30];',
              '$L_wait:',
              'mbarrier.try_wait.parity.shared.b64 %p3, [%r30], 0;',
              '@!%p3 bra $L_wait;']
    else:
        L += ['cp.async.mbarrier.arrive.shared.b64 [%r30];',
              'mbarrier.arrive.shared.b64 %rd6, [%r30];',
              '$L_wait:',
              'mbarrier.test_wait.shared.b64 %p3, [%r30], %rd6;',
              '@!%p3 bra $L_wait;']
    L += [
        'add.u32 %r12, %r0, 1;',
        'and.b32 %r12, %r12, 127;',
        'shl.b32 %r12, %r12, 4;',
        'add.u32 %r12, %r1, %r12;',
        'ld.shared.v4.u32 {%r13, %r14, %r15, %r16}, [%r12];',
        'mul.wide.u32 %rd13, %r0, 16;',
        'add.s64 %rd14, %rd1, %rd13;',
        'st.global.v4.u32 [%rd14], {%r13, %r14, %r15, %r16};',
    ]
    vec = {'s': _rand_words(fid, 4 * N)}
    bufs = [('d', 'u32', 4 * N, 'out'), ('s', 'u32', 4 * N, 'in')]
    f = Raw(fid, 'cpasync', L, bufs, vec,
            shared=['.shared .align 16 .b8 sm[2048];', '.shared .align 8 .b64 bar;'])
    f.hang_risk = 1
    return f


def cpasync_forms():
    F = []
    for cop, S in (('ca', 4), ('ca', 8), ('ca', 16), ('cg', 16)):
        for v in ('plain', 'srcsize_reg', 'ignore', 'immoff'):
            F.append(cp_form(cop, S, v))
    for cop, S in (('ca', 4), ('ca', 8), ('ca', 16), ('cg', 16)):
        for v in ('srcsize_imm0', 'srcsize_immh'):
            F.append(cp_form(cop, S, v))
    for cop in ('ca', 'cg'):
        for v in ('cta', 'dst64', 'hint', 'hint_srcsize', 'wait_all'):
            F.append(cp_form(cop, 16, v))
    for v in ('pf64', 'pf128', 'pf256', 'hint_pf'):
        F.append(cp_form('cg', 16, v))
    F.append(cp_form('ca', 4, 'hint'))
    F.append(cp_form('ca', 8, 'pf128'))
    for k in ('groups3', 'uncommitted', 'overwrite', 'sizes', 'waitmore'):
        F.append(cp_groups_form(k))
    for k in ('noinc', 'inc'):
        F.append(cp_mbar_form(k))
    return F


# ---------------------------------------------------------------- ldmatrix / stmatrix / movmatrix

def ldm_form(num, trans, space='shared', addr='r32'):
    """A 64-row table of 16-byte rows (1024 bytes from m) in shared memory;
    lane l of warp w points at row (5l + 3w + 7) % 64 (the rows of the
    matrices the shape uses, and other rows in the lanes it ignores);
    d[4t..4t+k-1] receive the k destination registers."""
    k = {'x1': 1, 'x2': 2, 'x4': 4}[num]
    tr = '.trans' if trans else ''
    sp = {'shared': '.shared', 'cta': '.shared::cta', 'generic': ''}[space]
    fid = 'ldmatrix_%s%s_%s_%s' % (num, '_trans' if trans else '', space, addr)
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['d', 'm'])
    L += [
        'mov.u32 %r1, sm;',
        'mul.wide.u32 %rd4, %r0, 8;',
        'add.s64 %rd5, %rd2, %rd4;',
        'ld.global.v2.u32 {%r2, %r3}, [%rd5];',
        'shl.b32 %r4, %r0, 3;',
        'add.u32 %r4, %r1, %r4;',
        'st.shared.v2.u32 [%r4], {%r2, %r3};',
        'bar.sync 0;',
        'mov.u32 %r5, %laneid;',
        'shr.u32 %r6, %r0, 5;',
        'mul.lo.u32 %r7, %r5, 5;',
        'mad.lo.u32 %r7, %r6, 3, %r7;',
        'add.u32 %r7, %r7, 7;',
        'and.b32 %r7, %r7, 63;',
        'shl.b32 %r7, %r7, 4;',
        'add.u32 %r8, %r1, %r7;',                     # shared address of the lane's row
    ]
    regs = ', '.join('%%r%d' % (20 + i) for i in range(k))
    if space == 'generic':
        L += ['cvt.u64.u32 %rd6, %r8;', 'cvta.shared.u64 %rd6, %rd6;']
        a = '%rd6'
    elif addr == 'r64':
        L += ['cvt.u64.u32 %rd6, %r8;']
        a = '%rd6'
    else:
        a = '%r8'
    L.append('ldmatrix.sync.aligned.m8n8.%s%s%s.b16 {%s}, [%s];' % (num, tr, sp, regs, a))
    L += ['mul.wide.u32 %rd7, %r0, 16;', 'add.s64 %rd8, %rd1, %rd7;']
    for i in range(k):
        L.append('st.global.u32 [%%rd8+%d], %%r%d;' % (4 * i, 20 + i))
    vec = {'m': _rand_words(fid, 2 * N)}
    bufs = [('d', 'u32', 4 * N, 'out'), ('m', 'u32', 2 * N, 'in')]
    return Raw(fid, 'ldmatrix', L, bufs, vec, shared=['.shared .align 16 .b8 sm[1024];'])


def ldm_b8_form(shape, num):
    """The 8-bit shapes (.m16n16 .trans / .m8n16, sm_100a+ in the ISA):
    probes of what ptxas accepts for sm_90; same table as ldm_form."""
    fid = 'ldmatrix_b8_%s_%s' % (shape, num)
    k = {'m16n16': {'x1': 2, 'x2': 4}, 'm8n16': {'x1': 1, 'x2': 2, 'x4': 4}}[shape][num]
    tr = '.trans' if shape == 'm16n16' else ''
    regs = ', '.join('%%r%d' % (20 + i) for i in range(k))
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['d', 'm'])
    L += [
        'mov.u32 %r1, sm;',
        'mul.wide.u32 %rd4, %r0, 8;',
        'add.s64 %rd5, %rd2, %rd4;',
        'ld.global.v2.u32 {%r2, %r3}, [%rd5];',
        'shl.b32 %r4, %r0, 3;',
        'add.u32 %r4, %r1, %r4;',
        'st.shared.v2.u32 [%r4], {%r2, %r3};',
        'bar.sync 0;',
        'mov.u32 %r5, %laneid;',
        'shl.b32 %r7, %r5, 4;',
        'add.u32 %r8, %r1, %r7;',
    ]
    if shape == 'm16n16':
        L.append('ldmatrix.sync.aligned.m16n16.%s.trans.shared.b8 {%s}, [%%r8];' % (num, regs))
    else:
        L.append('ldmatrix.sync.aligned.m8n16.%s.shared.b8x16.b6x16_p32 {%s}, [%%r8];' % (num, regs))
    L += ['mul.wide.u32 %rd7, %r0, 16;', 'add.s64 %rd8, %rd1, %rd7;']
    for i in range(k):
        L.append('st.global.u32 [%%rd8+%d], %%r%d;' % (4 * i, 20 + i))
    vec = {'m': _rand_words(fid, 2 * N)}
    bufs = [('d', 'u32', 4 * N, 'out'), ('m', 'u32', 2 * N, 'in')]
    return Raw(fid, 'ldmatrix', L, bufs, vec, shared=['.shared .align 16 .b8 sm[1024];'])


def stm_form(num, trans, space='shared'):
    """Each warp owns 32 rows of 16 bytes (filled with a sentinel); lane l
    points at row (5l + 3) % 32 of its warp; the k source registers come from
    a[4t..]. After bar.sync thread t writes bytes 16t..16t+15 to d."""
    k = {'x1': 1, 'x2': 2, 'x4': 4}[num]
    tr = '.trans' if trans else ''
    sp = {'shared': '.shared', 'cta': '.shared::cta', 'generic': ''}[space]
    fid = 'stmatrix_%s%s_%s' % (num, '_trans' if trans else '', space)
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['d', 'a'])
    L += [
        'mov.u32 %r1, sm;',
        'shl.b32 %r2, %r0, 4;',
        'add.u32 %r3, %r1, %r2;',
        'xor.b32 %r4, %r0, 0xC3C3C3C3;',
        'st.shared.v4.u32 [%r3], {%r4, %r4, %r4, %r4};',
        'mul.wide.u32 %rd4, %r0, 16;',
        'add.s64 %rd5, %rd2, %rd4;',
        'ld.global.v4.u32 {%r20, %r21, %r22, %r23}, [%rd5];',
        'bar.sync 0;',
        'mov.u32 %r5, %laneid;',
        'shr.u32 %r6, %r0, 5;',
        'mad.lo.u32 %r7, %r5, 5, 3;',
        'and.b32 %r7, %r7, 31;',
        'mad.lo.u32 %r7, %r6, 32, %r7;',
        'shl.b32 %r7, %r7, 4;',
        'add.u32 %r8, %r1, %r7;',
    ]
    a = '%r8'
    if space == 'generic':
        L += ['cvt.u64.u32 %rd6, %r8;', 'cvta.shared.u64 %rd6, %rd6;']
        a = '%rd6'
    regs = ', '.join('%%r%d' % (20 + i) for i in range(k))
    L.append('stmatrix.sync.aligned.m8n8.%s%s%s.b16 [%s], {%s};' % (num, tr, sp, a, regs))
    L += ['bar.sync 0;',
          'ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r3];',
          'add.s64 %rd8, %rd1, %rd4;',
          'st.global.v4.u32 [%rd8], {%r10, %r11, %r12, %r13};']
    vec = {'a': _rand_words(fid, 4 * N)}
    bufs = [('d', 'u32', 4 * N, 'out'), ('a', 'u32', 4 * N, 'in')]
    return Raw(fid, 'stmatrix', L, bufs, vec, shared=['.shared .align 16 .b8 sm[2048];'])


def movm_form():
    fid = 'movmatrix_m8n8_trans_b16'
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['d', 'a'])
    L += ['mul.wide.u32 %rd4, %r0, 4;',
          'add.s64 %rd5, %rd2, %rd4;',
          'ld.global.u32 %r2, [%rd5];',
          'movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;',
          'add.s64 %rd6, %rd1, %rd4;',
          'st.global.u32 [%rd6], %r3;']
    vec = {'a': _rand_words(fid, N)}
    return Raw(fid, 'movmatrix', L, [('d', 'u32', N, 'out'), ('a', 'u32', N, 'in')], vec)


def ldmatrix_forms():
    F = []
    for num in ('x1', 'x2', 'x4'):
        for tr in (False, True):
            F.append(ldm_form(num, tr))
    for num in ('x1', 'x4'):
        F.append(ldm_form(num, False, 'cta'))
        F.append(ldm_form(num, True, 'generic'))
        F.append(ldm_form(num, False, 'shared', 'r64'))
    F.append(ldm_b8_form('m16n16', 'x1'))
    F.append(ldm_b8_form('m8n16', 'x1'))
    return F


def stmatrix_forms():
    F = []
    for num in ('x1', 'x2', 'x4'):
        for tr in (False, True):
            F.append(stm_form(num, tr))
    F.append(stm_form('x4', False, 'cta'))
    F.append(stm_form('x2', True, 'generic'))
    return F


def movmatrix_forms():
    return [movm_form()]


# ---------------------------------------------------------------- mbarrier

class Seq:
    """A single-thread mbarrier sequence: thread 0 runs steps on the mbarrier
    at %r30 and records, in order, what the ISA and the GPU define:
      o   (u32) observations: test_wait.parity 0/1, pending_count, test_wait
      st  (u32) the upper 32 bits of each state an arrive returns (the GPU's
          SYNCS.ARRIVE writes only the upper register of the pair: the lower
          half is whatever the register held)
      w   (u64) the object's 64 bits right after mbarrier.inval, which writes
          the GPU's sync-unit copy back to shared memory (before inval a plain
          ld.shared of the object reads stale shared memory); only in the
          forms that inval."""

    def __init__(self):
        self.L = []
        self.no = 0
        self.ns = 0
        self.nw = 0
        self.states = 0

    def e(self, *s):
        self.L += list(s)

    def obs(self):
        """o <- test_wait.parity 0 | test_wait.parity 1 << 1."""
        self.e('mbarrier.test_wait.parity.shared.b64 %p4, [%r30], 0;',
               'mbarrier.test_wait.parity.shared.b64 %p5, [%r30], 1;',
               'selp.u32 %r40, 1, 0, %p4;',
               'selp.u32 %r41, 2, 0, %p5;',
               'or.b32 %r40, %r40, %r41;')
        self.out32('%r40')

    def out32(self, r):
        self.e('st.global.u32 [%%rd1+%d], %s;' % (4 * self.no, r))
        self.no += 1

    def out_state(self, r):
        """st <- the upper half of the 64-bit state r."""
        self.e('mov.b64 {%%r50, %%r51}, %s;' % r,
               'st.global.u32 [%%rd2+%d], %%r51;' % (4 * self.ns))
        self.ns += 1

    def inval(self, line='mbarrier.inval.shared.b64 [%r30];'):
        """inval, then w <- the object's 64 bits (written back by inval)."""
        self.e(line,
               'ld.shared.b64 %rd40, [%r30];',
               'st.global.u64 [%%rd3+%d], %%rd40;' % (8 * self.nw))
        self.nw += 1

    def state(self, line):
        """An arrive whose state goes to %rd(10+i); returns i."""
        i = self.states
        self.states += 1
        self.e(line.format(s='%%rd%d' % (10 + i)))
        self.out_state('%%rd%d' % (10 + i))
        self.obs()
        return i

    def pend(self, i):
        self.e('mbarrier.pending_count.b64 %%r42, %%rd%d;' % (10 + i))
        self.out32('%r42')

    def tw(self, i):
        self.e('mbarrier.test_wait.shared.b64 %%p6, [%%r30], %%rd%d;' % (10 + i),
               'selp.u32 %r43, 1, 0, %p6;')
        self.out32('%r43')

    def bufs(self):
        b = [('o', 'u32', N, 'out'), ('st', 'u32', N, 'out')]
        if self.nw:
            b.append(('w', 'u64', N, 'out'))
        return b

    def prologue(self):
        return _mbar_prologue(self.nw > 0)


ARR = 'mbarrier.arrive.shared.b64 {s}, [%r30];'
ARRC = 'mbarrier.arrive.shared::cta.b64 {s}, [%%r30], %d;'
DROP = 'mbarrier.arrive_drop.shared.b64 {s}, [%r30];'
EXP = 'mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%%r30], %d;'
CMP = 'mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%%r30], %d;'
AEXP = 'mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 {s}, [%%r30], %d;'


def seq_script(kind):
    s = Seq()
    if kind == 'count3':
        s.e('mbarrier.init.shared.b64 [%r30], 3;')
        s.obs()
        a = s.state(ARR)
        b = s.state(ARRC % 2)              # completes phase 0
        c = s.state(ARR)
        d = s.state(ARRC % 2)              # completes phase 1
        for i in (a, b, c, d):
            s.pend(i)
            s.tw(i)
    elif kind == 'flips':
        s.e('mbarrier.init.shared.b64 [%r30], 1;')
        s.obs()
        st = [s.state(ARR) for _ in range(5)]
        for i in st:
            s.pend(i)
            s.tw(i)
    elif kind == 'tx':
        s.e('mbarrier.init.shared.b64 [%r30], 1;')
        s.obs()
        s.e(EXP % 64)
        s.obs()
        s.e(CMP % 32)
        s.obs()
        a = s.state(ARR)                   # pending 0, tx 32: not complete
        s.e(CMP % 32)                      # completes
        s.obs()
        s.pend(a)
        s.tw(a)
    elif kind == 'arrive_expect':
        s.e('mbarrier.init.shared.b64 [%r30], 2;')
        s.obs()
        a = s.state(AEXP % 100)
        b = s.state(ARR)                   # tx 100 outstanding
        s.e(CMP % 60)
        s.obs()
        s.e(CMP % 40)                      # completes
        s.obs()
        c = s.state(AEXP % 8)
        s.e(CMP % 8)
        s.obs()
        d = s.state(ARR)                   # completes phase 1
        for i in (a, b, c, d):
            s.pend(i)
            s.tw(i)
    elif kind == 'negtx':
        s.e('mbarrier.init.shared.b64 [%r30], 2;')
        s.obs()
        s.e(CMP % 16)                      # tx-count -16
        s.obs()
        a = s.state(ARR)
        s.e(EXP % 16)                      # back to 0
        s.obs()
        b = s.state(ARR)                   # completes
        s.e(EXP % 1048575)
        s.obs()
        s.e(CMP % 1048575)
        s.obs()
        for i in (a, b):
            s.pend(i)
            s.tw(i)
    elif kind == 'drop':
        s.e('mbarrier.init.shared.b64 [%r30], 3;')
        s.obs()
        a = s.state(DROP)                  # expected 2, pending 2
        b = s.state(ARR)
        c = s.state(ARR)                   # completes phase 0; next pending 2
        d = s.state(ARR)
        e = s.state('mbarrier.arrive_drop.shared::cta.b64 {s}, [%r30], 1;')   # completes phase 1
        f = s.state(ARR)                   # expected 1: completes phase 2
        for i in (a, b, c, d, e, f):
            s.pend(i)
            s.tw(i)
    elif kind == 'inval':
        s.e('mbarrier.init.shared.b64 [%r30], 2;')
        s.obs()
        a = s.state(ARR)
        s.inval()
        s.e('mbarrier.init.shared.b64 [%r30], 5;')
        s.obs()
        b = s.state(ARRC % 4)
        s.pend(a)
        s.pend(b)
        s.tw(b)
    elif kind == 'max':
        s.e('mbarrier.init.shared.b64 [%r30], 1048575;')
        s.obs()
        a = s.state(ARRC % 1048574)
        b = s.state(ARR)                   # completes
        for i in (a, b):
            s.pend(i)
            s.tw(i)
    elif kind == 'trywait':
        s.e('mbarrier.init.shared.b64 [%r30], 2;')
        s.obs()
        a = s.state(ARR)
        s.e('mbarrier.try_wait.shared.b64 %p7, [%r30], %rd10;',           # not complete: false
            'selp.u32 %r44, 1, 0, %p7;')
        s.out32('%r44')
        s.e('mbarrier.try_wait.parity.shared.b64 %p7, [%r30], 1;',        # preceding phase: true
            'selp.u32 %r44, 1, 0, %p7;')
        s.out32('%r44')
        b = s.state(ARR)
        s.e('mbarrier.try_wait.shared.b64 %p7, [%r30], %rd10;',
            'selp.u32 %r44, 1, 0, %p7;')
        s.out32('%r44')
        s.e('mbarrier.try_wait.parity.shared.b64 %p7, [%r30], 0;',
            'selp.u32 %r44, 1, 0, %p7;')
        s.out32('%r44')
        s.e('mbarrier.try_wait.parity.shared.b64 %p7, [%r30], 1;',        # phase 1 in progress: false
            'selp.u32 %r44, 1, 0, %p7;')
        s.out32('%r44')
        s.pend(a)
        s.pend(b)
    return s


SPELLINGS = {
    # id: (init count, lines executed after init; {s} is a free 64-bit register)
    'arrive_release_cta': (2, ['mbarrier.arrive.release.cta.shared::cta.b64 {s}, [%r30];']),
    'arrive_release_cta_count': (3, ['mbarrier.arrive.release.cta.shared::cta.b64 {s}, [%r30], 2;']),
    'arrive_release_cluster': (2, ['mbarrier.arrive.release.cluster.shared::cta.b64 {s}, [%r30];']),
    'arrive_cluster_sink': (1, ['mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r30];']),
    'arrive_cluster_sink_count': (3, ['mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r30], 3;']),
    'arrive_sink_cta': (1, ['mbarrier.arrive.shared::cta.b64 _, [%r30];']),
    'arrive_expect_tx_release': (1, ['mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 {s}, [%r30], 32;',
                                     'mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r30], 32;']),
    'arrive_expect_tx_short': (1, ['mbarrier.arrive.expect_tx.shared::cta.b64 {s}, [%r30], 32;',
                                   'mbarrier.complete_tx.shared::cta.b64 [%r30], 32;']),
    'expect_tx_short': (1, ['mbarrier.expect_tx.shared.b64 [%r30], 8;',
                            'mbarrier.complete_tx.shared.b64 [%r30], 8;',
                            'mbarrier.arrive.shared.b64 {s}, [%r30];']),
    'arrive_expect_tx_cluster_sink': (1, ['mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r30], 16;',
                                          'mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%r30], 16;']),
    'expect_tx_cluster': (1, ['mbarrier.expect_tx.relaxed.cluster.shared::cta.b64 [%r30], 8;',
                              'mbarrier.arrive.shared.b64 {s}, [%r30];']),
    'expect_tx_shared_cluster': (1, ['mbarrier.expect_tx.relaxed.cta.shared::cluster.b64 [%r30], 8;',
                                     'mbarrier.complete_tx.relaxed.cta.shared::cluster.b64 [%r30], 4;',
                                     'mbarrier.arrive.shared.b64 {s}, [%r30];']),
    'arrive_drop_release_cta': (2, ['mbarrier.arrive_drop.release.cta.shared::cta.b64 {s}, [%r30];']),
    'arrive_drop_cluster_sink': (2, ['mbarrier.arrive_drop.release.cluster.shared::cluster.b64 _, [%r30];',
                                     'mbarrier.arrive.shared.b64 {s}, [%r30];']),
    'arrive_drop_expect_tx': (2, ['mbarrier.arrive_drop.expect_tx.release.cta.shared::cta.b64 {s}, [%r30], 8;']),
    'test_wait_acquire_cta': (1, ['mbarrier.arrive.shared.b64 {s}, [%r30];',
                                  'mbarrier.test_wait.acquire.cta.shared::cta.b64 %p7, [%r30], {s};']),
    'test_wait_parity_acquire_cluster': (1, ['mbarrier.arrive.shared.b64 {s}, [%r30];',
                                             'mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 %p7, [%r30], 0;']),
    'try_wait_hint': (1, ['mbarrier.arrive.shared.b64 {s}, [%r30];',
                          'mbarrier.try_wait.acquire.cta.shared::cta.b64 %p7, [%r30], {s}, 1000;']),
    'try_wait_parity_hint': (1, ['mbarrier.arrive.shared.b64 {s}, [%r30];',
                                 'mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p7, [%r30], 0, 1000;']),
    'try_wait_parity_reg': (1, ['mbarrier.arrive.shared.b64 {s}, [%r30];',
                                'mov.u32 %r45, 0;',
                                'mbarrier.try_wait.parity.shared::cta.b64 %p7, [%r30], %r45;']),
    'generic': (2, ['cvt.u64.u32 %rd30, %r30;', 'cvta.shared.u64 %rd30, %rd30;',
                    'mbarrier.inval.b64 [%rd30];',
                    'mbarrier.init.b64 [%rd30], 2;',
                    'mbarrier.arrive.b64 {s}, [%rd30];',
                    'mbarrier.test_wait.b64 %p7, [%rd30], {s};',
                    'mbarrier.arrive.b64 {s}, [%rd30];',
                    'mbarrier.test_wait.parity.b64 %p7, [%rd30], 0;',
                    'mbarrier.try_wait.parity.b64 %p7, [%rd30], 0;']),
    'addr64': (2, ['cvt.u64.u32 %rd30, %r30;',
                   'mbarrier.arrive.shared.b64 {s}, [%rd30];',
                   'mbarrier.arrive.shared.b64 {s}, [%rd30];',
                   'mbarrier.test_wait.parity.shared.b64 %p7, [%rd30], 0;']),
    'symbol': (2, ['mbarrier.arrive.shared.b64 {s}, [bar];',
                   'mbarrier.arrive.shared.b64 {s}, [bar+0];',
                   'mbarrier.test_wait.parity.shared.b64 %p7, [bar], 0;']),
    'init_reg_count': (1, ['mov.u32 %r45, 3;', 'mbarrier.init.shared.b64 [%r30], %r45;',
                           'mov.u32 %r46, 2;', 'mbarrier.arrive.shared::cta.b64 {s}, [%r30], %r46;']),
    'cp_async_arrive_cta': (1, ['cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r30];']),
    'cp_async_arrive_generic': (1, ['cvt.u64.u32 %rd30, %r30;', 'cvta.shared.u64 %rd30, %rd30;',
                                    'cp.async.mbarrier.arrive.noinc.b64 [%rd30];']),
    'fence_proxy_async': (1, ['fence.proxy.async;', 'fence.proxy.async.shared::cta;', 'fence.proxy.async.global;',
                              'fence.proxy.async.shared::cluster;', 'fence.mbarrier_init.release.cluster;',
                              'mbarrier.arrive.shared.b64 {s}, [%r30];']),
}


def _mbar_prologue(inval=False):
    """Thread t writes the sentinel to o[t], st[t] (and w[t]); thread 0 goes
    on, the others end."""
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['o', 'st'] + (['w'] if inval else [])) + [
        'mov.u32 %r30, bar;',
        'mul.wide.u32 %rd4, %r0, 4;',
        'add.s64 %rd5, %rd1, %rd4;',
        'st.global.u32 [%rd5], 0xDEADBEEF;',
        'add.s64 %rd7, %rd2, %rd4;',
        'st.global.u32 [%rd7], 0xDEADBEEF;',
    ]
    if inval:
        L += ['mul.wide.u32 %rd6, %r0, 8;',
              'add.s64 %rd9, %rd3, %rd6;',
              'mov.u64 %rd8, 0xDEADBEEFDEADBEEF;',
              'st.global.u64 [%rd9], %rd8;']
    return L + [
        'bar.sync 0;',
        'setp.ne.u32 %p1, %r0, 0;',
        '@%p1 bra $L_end;',
    ]


def mbar_seq_form(kind):
    s = seq_script(kind)
    assert s.no <= N and s.ns <= N and s.nw <= N, kind
    fid = 'mbar_seq_%s' % kind
    L = s.prologue() + s.L
    return Raw(fid, 'mbarrier', L, s.bufs(), {}, shared=['.shared .align 8 .b64 bar;'])


def mbar_spell_form(name):
    cnt, lines = SPELLINGS[name]
    s = Seq()
    s.e('mbarrier.init.shared::cta.b64 [%%r30], %d;' % cnt)
    s.obs()
    for ln in lines:
        if '{s}, [' in ln:
            s.state(ln)
        elif ln.startswith('mbarrier.inval'):
            s.inval(ln)
            s.obs()
        else:
            s.e(ln.format(s='%%rd%d' % (10 + max(s.states - 1, 0))))
            if '%p7' in ln:
                s.e('selp.u32 %r44, 1, 0, %p7;')
                s.out32('%r44')
            s.obs()
    for i in range(s.states):
        s.pend(i)
    assert s.no <= N and s.ns <= N and s.nw <= N, name
    fid = 'mbar_sp_%s' % name
    L = s.prologue() + s.L
    return Raw(fid, 'mbarrier', L, s.bufs(), {},
               shared=['.shared .align 8 .b64 bar;'], key=[x for x in lines if _interesting(x)])


def mbar_warp_form():
    """Lanes of one warp arriving together: init(40); the 32 lanes of warp 0
    arrive at once (each keeps its state); bar.sync; lanes 0-7 of warp 1
    arrive (completes phase 0). o[t] = pending_count(state) | test_wait(state)
    << 31 for the lanes that arrived; st[t] = the upper halves of their
    states (the lower halves are register junk on the GPU)."""
    L = _mbar_prologue()[:-2] + [
        'setp.ne.u32 %p1, %r0, 0;',
        '@%p1 bra $L_i;',
        'mbarrier.init.shared.b64 [%r30], 40;',
        '$L_i:',
        'bar.sync 0;',
        'setp.ge.u32 %p2, %r0, 32;',
        '@%p2 bra $L_a;',
        'mbarrier.arrive.shared.b64 %rd10, [%r30];',
        '$L_a:',
        'bar.sync 0;',
        'setp.lt.u32 %p3, %r0, 32;',
        'setp.ge.u32 %p4, %r0, 40;',
        'or.pred %p3, %p3, %p4;',
        '@%p3 bra $L_b;',
        'mbarrier.arrive.shared.b64 %rd10, [%r30];',
        '$L_b:',
        'bar.sync 0;',
        'setp.ge.u32 %p5, %r0, 40;',
        '@%p5 bra $L_end;',
        'mbarrier.pending_count.b64 %r42, %rd10;',
        'mbarrier.test_wait.shared.b64 %p6, [%r30], %rd10;',
        'selp.u32 %r43, 0x80000000, 0, %p6;',
        'or.b32 %r42, %r42, %r43;',
        'st.global.u32 [%rd5], %r42;',
        'mov.b64 {%r50, %r51}, %rd10;',
        'st.global.u32 [%rd7], %r51;',
    ]
    return Raw('mbar_warp_arrive', 'mbarrier', L, [('o', 'u32', N, 'out'), ('st', 'u32', N, 'out')], {},
               shared=['.shared .align 8 .b64 bar;'])


def mbar_cta_form():
    """init(128) by thread 0; every thread stores a word to shared, arrives,
    waits on its state with try_wait, reads the word of thread (t*7+5)%128,
    and records the word and test_wait.parity 0 (now true)."""
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['d', 'a']) + [
        'mov.u32 %r1, sm;',
        'mov.u32 %r30, bar;',
        'setp.ne.u32 %p1, %r0, 0;',
        '@%p1 bra $L_i;',
        'mbarrier.init.shared.b64 [%r30], 128;',
        '$L_i:',
        'bar.sync 0;',
        'mul.wide.u32 %rd4, %r0, 4;',
        'add.s64 %rd5, %rd2, %rd4;',
        'ld.global.u32 %r2, [%rd5];',
        'shl.b32 %r3, %r0, 2;',
        'add.u32 %r3, %r1, %r3;',
        'st.shared.u32 [%r3], %r2;',
        'mbarrier.arrive.release.cta.shared::cta.b64 %rd10, [%r30];',
        '$L_w:',
        'mbarrier.try_wait.acquire.cta.shared::cta.b64 %p2, [%r30], %rd10;',
        '@!%p2 bra $L_w;',
        'mad.lo.u32 %r4, %r0, 7, 5;',
        'and.b32 %r4, %r4, 127;',
        'shl.b32 %r4, %r4, 2;',
        'add.u32 %r4, %r1, %r4;',
        'ld.shared.u32 %r5, [%r4];',
        'mbarrier.test_wait.parity.shared.b64 %p3, [%r30], 0;',
        'selp.u32 %r6, 1, 0, %p3;',
        'mul.wide.u32 %rd6, %r0, 8;',
        'add.s64 %rd7, %rd1, %rd6;',
        'st.global.v2.u32 [%rd7], {%r5, %r6};',
    ]
    vec = {'a': _rand_words('mbar_cta_all', N)}
    return Raw('mbar_cta_all', 'mbarrier', L, [('d', 'u32', 2 * N, 'out'), ('a', 'u32', N, 'in')], vec,
               shared=['.shared .align 16 .b8 sm[512];', '.shared .align 8 .b64 bar;'])


def mbar_pc_form():
    """Producer warp 0 and consumer warps 1-3 over a 'full' barrier (count 32)
    and an 'empty' barrier (count 96), two phases: the producer writes
    phase-0 data (a[l] for lane l, 32 words), arrives on full; consumers wait
    full parity 0, read word (t % 32), arrive on empty; the producer waits
    empty parity 0, writes phase-1 data (a[32 + l]), arrives on full;
    consumers wait full parity 1 and read again. d[2t], d[2t+1]: the two
    reads (the producer's lanes record their test of full parity 0/1)."""
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['d', 'a']) + [
        'mov.u32 %r1, sm;',
        'mov.u32 %r30, full;',
        'mov.u32 %r31, empty;',
        'mov.u32 %r5, %laneid;',
        'setp.ne.u32 %p1, %r0, 0;',
        '@%p1 bra $L_i;',
        'mbarrier.init.shared.b64 [%r30], 32;',
        'mbarrier.init.shared.b64 [%r31], 96;',
        '$L_i:',
        'bar.sync 0;',
        'shl.b32 %r3, %r5, 2;',
        'add.u32 %r3, %r1, %r3;',                  # sm + 4 * lane
        'mul.wide.u32 %rd4, %r5, 4;',
        'add.s64 %rd5, %rd2, %rd4;',               # a + 4 * lane
        'mul.wide.u32 %rd6, %r0, 8;',
        'add.s64 %rd7, %rd1, %rd6;',               # d + 8 t
        'setp.ge.u32 %p2, %r0, 32;',
        '@%p2 bra $L_cons;',
        # producer
        'ld.global.u32 %r6, [%rd5];',
        'st.shared.u32 [%r3], %r6;',
        'mbarrier.arrive.shared.b64 %rd10, [%r30];',
        '$L_pe:',
        'mbarrier.try_wait.parity.shared.b64 %p3, [%r31], 0;',
        '@!%p3 bra $L_pe;',
        'ld.global.u32 %r6, [%rd5+128];',
        'st.shared.u32 [%r3], %r6;',
        'mbarrier.arrive.shared.b64 %rd10, [%r30];',
        '$L_pf:',
        'mbarrier.try_wait.parity.shared.b64 %p3, [%r30], 1;',
        '@!%p3 bra $L_pf;',
        'mbarrier.test_wait.parity.shared.b64 %p4, [%r30], 0;',
        'selp.u32 %r7, 1, 0, %p3;',
        'selp.u32 %r8, 1, 0, %p4;',
        'st.global.v2.u32 [%rd7], {%r7, %r8};',
        'bra.uni $L_end;',
        '$L_cons:',
        '$L_c0:',
        'mbarrier.try_wait.parity.shared.b64 %p3, [%r30], 0;',
        '@!%p3 bra $L_c0;',
        'ld.shared.u32 %r7, [%r3];',
        'mbarrier.arrive.shared.b64 %rd11, [%r31];',
        '$L_c1:',
        'mbarrier.try_wait.parity.shared.b64 %p3, [%r30], 1;',
        '@!%p3 bra $L_c1;',
        'ld.shared.u32 %r8, [%r3];',
        'st.global.v2.u32 [%rd7], {%r7, %r8};',
    ]
    vec = {'a': _rand_words('mbar_producer_consumer', N)}
    return Raw('mbar_producer_consumer', 'mbarrier', L, [('d', 'u32', 2 * N, 'out'), ('a', 'u32', N, 'in')], vec,
               shared=['.shared .align 16 .b8 sm[128];', '.shared .align 8 .b64 full;', '.shared .align 8 .b64 empty;'])


def mbar_elect_form():
    """The elected lane of warp 0 (elect.sync) does arrive.expect_tx(512) on
    a barrier of count 1; every thread stores its word to shared, then
    complete_tx(4); fence.proxy.async; all wait parity 0 and read word
    (t + 33) % 128. d[2t] = the word, d[2t+1] = elect's predicate and leader
    lane (warp 0) or 0xDEADBEEF."""
    L = ['mov.u32 %r0, %tid.x;'] + _bases(['d', 'a']) + [
        'mov.u32 %r1, sm;',
        'mov.u32 %r30, bar;',
        'mov.u32 %r9, 0xDEADBEEF;',
        'setp.ne.u32 %p1, %r0, 0;',
        '@%p1 bra $L_i;',
        'mbarrier.init.shared.b64 [%r30], 1;',
        '$L_i:',
        'bar.sync 0;',
        'setp.ge.u32 %p2, %r0, 32;',
        '@%p2 bra $L_x;',
        'elect.sync %r8|%p3, 0xffffffff;',
        'selp.u32 %r9, 0x100, 0, %p3;',
        'or.b32 %r9, %r9, %r8;',
        '@!%p3 bra $L_x;',
        'mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd10, [%r30], 512;',
        '$L_x:',
        'bar.sync 0;',
        'mul.wide.u32 %rd4, %r0, 4;',
        'add.s64 %rd5, %rd2, %rd4;',
        'ld.global.u32 %r2, [%rd5];',
        'shl.b32 %r3, %r0, 2;',
        'add.u32 %r3, %r1, %r3;',
        'st.shared.u32 [%r3], %r2;',
        'fence.proxy.async.shared::cta;',
        'mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r30], 4;',
        '$L_w:',
        'mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p4, [%r30], 0;',
        '@!%p4 bra $L_w;',
        'add.u32 %r4, %r0, 33;',
        'and.b32 %r4, %r4, 127;',
        'shl.b32 %r4, %r4, 2;',
        'add.u32 %r4, %r1, %r4;',
        'ld.shared.u32 %r5, [%r4];',
        'mul.wide.u32 %rd6, %r0, 8;',
        'add.s64 %rd7, %rd1, %rd6;',
        'st.global.v2.u32 [%rd7], {%r5, %r9};',
    ]
    vec = {'a': _rand_words('mbar_elect_tx', N)}
    return Raw('mbar_elect_tx', 'mbarrier', L, [('d', 'u32', 2 * N, 'out'), ('a', 'u32', N, 'in')], vec,
               shared=['.shared .align 16 .b8 sm[512];', '.shared .align 8 .b64 bar;'])


def mbarrier_forms():
    F = [mbar_seq_form(k) for k in ('count3', 'flips', 'tx', 'arrive_expect', 'negtx', 'drop', 'inval', 'max',
                                    'trywait')]
    F += [mbar_spell_form(k) for k in SPELLINGS]
    loops = [mbar_cta_form(), mbar_pc_form(), mbar_elect_form()]
    for f in loops:
        f.hang_risk = 1    # spin on try_wait: run last
    F += [mbar_warp_form()] + loops
    return F


# ---------------------------------------------------------------- mma.sync test vectors (recorded only)
#
# mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 on vectors chosen to show
# how the tensor core rounds, aligns and accumulates, recorded on the GPU
# (testdata/conformance/issue24/mma_vectors). The arithmetic learned from
# them (docs/semantics.md, "Tensor cores") is checked against every element
# by vm/internal/fpu TestDotF16F32Recorded and, through the VM, by
# scheduler/suite TestIssue24MmaVectors. (The forms' note, "recorded only",
# is as they were recorded.)
#
# Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16"): g = lane >> 2,
# q = lane & 3; A (16x16, row): a0 = A[g][2q..2q+1], a1 = A[g+8][2q..],
# a2 = A[g][2q+8..], a3 = A[g+8][2q+8..]; B (16x8, col): b0 = B[2q..2q+1][g],
# b1 = B[2q+8..2q+9][g]; C, D (16x8 f32): c0 = C[g][2q], c1 = C[g][2q+1],
# c2 = C[g+8][2q], c3 = C[g+8][2q+1]. Each warp holds one case; a, b, c are
# the lanes' registers in order (a[4t+i], b[2t+i], c[4t+i]), d likewise.

MMA_WARPS = 64


def _f16(x):
    import numpy as np
    return int(np.array([x], dtype=np.float16).view(np.uint16)[0])


def _f32(x):
    import numpy as np
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def _mma_case(kind, R, w):
    """(A 16x16, B 16x8 as f16 bits, C 16x8 as f32 bits) for warp w."""
    A = [[0] * 16 for _ in range(16)]
    B = [[0] * 8 for _ in range(16)]
    C = [[0] * 8 for _ in range(16)]

    def rnd(lo, hi):
        return R.choice((-1, 1)) * (1 + R.random()) * 2.0 ** R.randint(lo, hi)
    if kind == 'random':
        for i in range(16):
            for k in range(16):
                A[i][k] = _f16(rnd(-8, 8))
        for k in range(16):
            for j in range(8):
                B[k][j] = _f16(rnd(-8, 8))
        for i in range(16):
            for j in range(8):
                C[i][j] = _f32(rnd(-10, 10))
    elif kind == 'extreme':
        # products from 2^-48 to 2^31, mixed in one dot product
        for i in range(16):
            for k in range(16):
                A[i][k] = _f16(rnd(-24, 15) if R.random() < 0.5 else R.choice((65504.0, -65504.0, 2.0 ** -24, 2.0 ** -14)))
        for k in range(16):
            for j in range(8):
                B[k][j] = _f16(rnd(-24, 15))
        for i in range(16):
            for j in range(8):
                C[i][j] = _f32(rnd(-60, 60) if R.random() < 0.7 else 0.0)
    elif kind == 'cancel':
        # pairs that cancel exactly, residues below the large terms' ulp
        for i in range(16):
            big = rnd(4, 12)
            pos = R.sample(range(16), 2)
            for k in range(16):
                A[i][k] = _f16(rnd(-12, -2))
            A[i][pos[0]] = _f16(big)
            A[i][pos[1]] = _f16(-big)
        for k in range(16):
            for j in range(8):
                B[k][j] = _f16(R.choice((1.0, 1.0, rnd(-2, 2))))
        for i in range(16):
            for j in range(8):
                C[i][j] = _f32(R.choice((0.0, rnd(-20, 20), 2.0 ** 24, -(2.0 ** 24))))
    elif kind == 'subnormal':
        for i in range(16):
            for k in range(16):
                A[i][k] = R.choice((R.randrange(1, 1024), R.randrange(1, 1024) | 0x8000, _f16(rnd(-14, 0))))
        for k in range(16):
            for j in range(8):
                B[k][j] = R.choice((R.randrange(1, 1024), _f16(rnd(-14, 4)), _f16(1.0)))
        for i in range(16):
            for j in range(8):
                C[i][j] = R.choice((R.randrange(1, 1 << 23), _f32(rnd(-140, -120)), 0, 0x80000000))
    elif kind == 'special':
        specials16 = (0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE00, 0x0000, 0x8000)
        for i in range(16):
            for k in range(16):
                A[i][k] = R.choice(specials16) if R.random() < 0.15 else _f16(rnd(-4, 4))
        for k in range(16):
            for j in range(8):
                B[k][j] = R.choice(specials16) if R.random() < 0.15 else _f16(rnd(-4, 4))
        for i in range(16):
            for j in range(8):
                C[i][j] = R.choice((0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x80000000, 0)) \
                    if R.random() < 0.2 else _f32(rnd(-4, 4))
    elif kind == 'order':
        # one large term at k position p, ones elsewhere, -large at p2: shows
        # where small terms are lost (alignment) and in what order k is summed
        for i in range(16):
            p, p2 = (i + w) % 16, (i * 5 + w * 3 + 1) % 16
            if p2 == p:
                p2 = (p + 1) % 16
            e = 10 + (w % 6)
            for k in range(16):
                A[i][k] = _f16(1.0)
            A[i][p] = _f16(2.0 ** e)
            A[i][p2] = _f16(-(2.0 ** e))
        for k in range(16):
            for j in range(8):
                B[k][j] = _f16(2.0 ** (j + w % 8) if True else 1.0)
        for i in range(16):
            for j in range(8):
                C[i][j] = _f32(R.choice((0.0, 2.0 ** (24 + j), -(2.0 ** (20 + j)), 0.5)))
    elif kind == 'chain':
        for i in range(16):
            for k in range(16):
                A[i][k] = _f16(rnd(-6, 0))
        for k in range(16):
            for j in range(8):
                B[k][j] = _f16(rnd(-6, 0))
        for i in range(16):
            for j in range(8):
                C[i][j] = _f32(rnd(-2, 8))
    return A, B, C


def _mma_vectors(form):
    a, b, c = [], [], []
    R = rng_for('issue24-mma', form.id)
    for w in range(MMA_WARPS):
        A, B, C = _mma_case(form.kind24, R, w)
        for lane in range(32):
            g, q = lane >> 2, lane & 3

            def pk(lo, hi):
                return lo | hi << 16
            a += [pk(A[g][2 * q], A[g][2 * q + 1]), pk(A[g + 8][2 * q], A[g + 8][2 * q + 1]),
                  pk(A[g][2 * q + 8], A[g][2 * q + 9]), pk(A[g + 8][2 * q + 8], A[g + 8][2 * q + 9])]
            b += [pk(B[2 * q][g], B[2 * q + 1][g]), pk(B[2 * q + 8][g], B[2 * q + 9][g])]
            c += [C[g][2 * q], C[g][2 * q + 1], C[g + 8][2 * q], C[g + 8][2 * q + 1]]
    return {'a': a, 'b': b, 'c': c}


def mma_form(kind, steps=1):
    fid = 'mma_m16n8k16_f32_f16_%s' % kind
    n = 32 * MMA_WARPS
    L = ['mov.u32 %r0, %ctaid.x;', 'mov.u32 %r1, %ntid.x;', 'mov.u32 %r2, %tid.x;',
         'mad.lo.s32 %r3, %r0, %r1, %r2;'] + _bases(['d', 'a', 'b', 'c']) + [
        'mul.wide.u32 %rd10, %r3, 16;',
        'mul.wide.u32 %rd11, %r3, 8;',
        'add.s64 %rd12, %rd2, %rd10;',
        'ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd12];',
        'add.s64 %rd13, %rd3, %rd11;',
        'ld.global.v2.u32 {%r14, %r15}, [%rd13];',
        'add.s64 %rd14, %rd4, %rd10;',
        'ld.global.v4.u32 {%r20, %r21, %r22, %r23}, [%rd14];',
        'mov.u32 %%r30, %d;' % steps,
        '$L_loop:',
        'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r20, %r21, %r22, %r23}, '
        '{%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};',
        'sub.u32 %r30, %r30, 1;',
        'setp.ne.u32 %p1, %r30, 0;',
        '@%p1 bra $L_loop;',
        'add.s64 %rd15, %rd1, %rd10;',
        'st.global.v4.u32 [%rd15], {%r20, %r21, %r22, %r23};',
    ]
    bufs = [('d', 'u32', 4 * n, 'out'), ('a', 'u32', 4 * n, 'in'), ('b', 'u32', 2 * n, 'in'),
            ('c', 'u32', 4 * n, 'in')]
    f = Raw(fid, 'mma', L, bufs, None, n=n,
            note='recorded only (not run by the Go tests): %d chained step(s) d = a*b + d' % steps)
    f.kind24 = kind
    f.vecgen = _mma_vectors
    return f


def mma_forms():
    F = [mma_form(k) for k in ('random', 'extreme', 'cancel', 'subnormal', 'special', 'order')]
    F.append(mma_form('chain', steps=64))
    F[-1].id = 'mma_m16n8k16_f32_f16_chain64'
    return F
