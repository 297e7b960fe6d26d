"""Atomics family ('atom'): atom/red on global and shared memory.

Own-address forms: every lane works on its own element, so both the returned
old value ('d') and the final memory ('m') are deterministic.
Contention forms: all lanes of the grid (global) or of a CTA (shared) hammer
K=8 slots with an order-independent operation; only the final memory is
output.  Float adds under contention use small integers so every order of
summation is exact; inc/dec use one bound per slot (inc/dec with a common
bound commute).
"""

from ptxgen import Form
from vectors import edges, core, rand, rng_for, tbits, elem_bytes, FPS

N = 256
BLOCK = 128
K = 8
SMEM = 'smem'
SMEM_BYTES = BLOCK * 16
HEADER = '.shared .align 16 .b8 %s[%d];\n' % (SMEM, SMEM_BYTES)

OWN_OPS = [
    ('add', ['u32', 's32', 'u64', 'f32', 'f64']),
    ('min', ['u32', 's32', 'u64', 's64']),
    ('max', ['u32', 's32', 'u64', 's64']),
    ('inc', ['u32']), ('dec', ['u32']),
    ('and', ['b32', 'b64']), ('or', ['b32', 'b64']), ('xor', ['b32', 'b64']),
    ('exch', ['b32', 'b64']),
    ('cas', ['b32', 'b64', 'b16']),
    ('add.noftz', ['f16', 'f16x2', 'bf16', 'bf16x2']),
]
CONT_OPS = [
    ('add', ['u32', 's32', 'u64', 'f32', 'f64', 'f16x2', 'bf16x2']),
    ('min', ['u32', 's32', 'u64', 's64']),
    ('max', ['u32', 's32', 'u64', 's64']),
    ('inc', ['u32']), ('dec', ['u32']),
    ('and', ['b32', 'b64']), ('or', ['b32', 'b64']), ('xor', ['b32', 'b64']),
]


ATOM_OPS = ('and', 'or', 'xor', 'cas', 'exch', 'add', 'inc', 'dec', 'min', 'max')


def atom_opcode(instr):
    """'atom.relaxed.gpu.global.add.u32' -> 'atom.add'."""
    parts = instr.split('.')
    return parts[0] + '.' + next(p for p in parts[1:] if p in ATOM_OPS)


def _sh_ld(t):
    return 'b%d' % max(16, tbits(t))


# ---------------------------------------------------------------- vectors

def own_vectors(op, t, key):
    R = rng_for('atom', key)
    base = op.split('.')[0]
    m, b, c = [], [], []
    if base in ('inc', 'dec'):
        bounds = [0, 1, 2, 3, 7, 100, 0x7fffffff, 0xfffffffe, 0xffffffff]
        for bb in bounds:
            for mm in (0, 1, bb - 1, bb, bb + 1, 0xffffffff, 50):
                b.append(bb & 0xffffffff)
                m.append(mm & 0xffffffff)
    elif base in ('add', 'min', 'max') and t not in ('b16',):
        cm, cb = core(t), core(t)
        for x in cm:
            for y in cb:
                m.append(x)
                b.append(y)
    elif base == 'cas':
        pass
    else:
        e = edges(t)
        for x in e[:40]:
            m.append(x)
            b.append(rand(t, R))
    while len(m) < N:
        m.append(rand(t, R))
        b.append(rand(t, R))
    m, b = m[:N], b[:N]
    out = {'m': m, 'b': b}
    if base == 'cas':
        # half the lanes compare equal (swap happens), half not
        out['b'] = [m[i] if i % 2 == 0 else (m[i] ^ (1 << R.randrange(tbits(t)))) for i in range(N)]
        out['c'] = [R.getrandbits(tbits(t)) for _ in range(N)]
    return out


def cont_vectors(op, t, key, cta_slots):
    """m: initial slot values (K per CTA for shared, K for global); b: per-lane operand."""
    R = rng_for('atomc', key)
    base = op.split('.')[0]
    nslots = cta_slots
    if base in ('inc', 'dec'):
        bounds = [5, 31, 32, 33, 1000, 0xffffffff, 3, 100]
        m = [R.choice([0, 1, 4, 40, 999, 7]) for _ in range(nslots)]
        b = [bounds[(i % BLOCK) % K] for i in range(N)]
        return {'m': m, 'b': b}
    if t in ('f32', 'f64'):
        fp = FPS[t]
        m = [fp.encode(float(R.randint(-1000, 1000))) for _ in range(nslots)]
        b = [fp.encode(float(R.randint(-1024, 1024)) * 0.25) for _ in range(N)]
        return {'m': m, 'b': b}
    if t == 'f16x2':
        # |partial sums| <= 16 + 32*4 in steps of 0.5: exact in f16 in any order
        fp = FPS['f16']
        enc = lambda x: fp.encode(float(x))
        m = [(enc(R.randint(-16, 16)) << 16) | enc(R.randint(-16, 16)) for _ in range(nslots)]
        b = [(enc(R.randint(-4, 4) * 0.5) << 16) | enc(R.randint(-4, 4)) for _ in range(N)]
        return {'m': m, 'b': b}
    if t == 'bf16x2':
        # |partial sums| <= 8 + 32*2, integers: exact in bf16 (8-bit significand)
        fp = FPS['bf16']
        enc = lambda x: fp.encode(float(x))
        m = [(enc(R.randint(-8, 8)) << 16) | enc(R.randint(-8, 8)) for _ in range(nslots)]
        b = [(enc(R.randint(-2, 2)) << 16) | enc(R.randint(-2, 2)) for _ in range(N)]
        return {'m': m, 'b': b}
    if base in ('min', 'max'):
        m = [rand(t, R) for _ in range(nslots)]
        e = edges(t)
        b = [R.choice(e) if i % 3 == 0 else rand(t, R) for i in range(N)]
        return {'m': m, 'b': b}
    return {'m': [rand(t, R) for _ in range(nslots)], 'b': [rand(t, R, 'bits') for _ in range(N)]}


# ---------------------------------------------------------------- emitters

def _operands(ctx, form, t):
    regs = {}
    for nm in ('b', 'c'):
        if any(x[0] == nm for x in form.bufs):
            regs[nm] = ctx.load(nm, t)
    return regs


def _instr(form, d, addr, regs):
    ops = [addr]
    if 'b' in regs:
        ops.append(regs['b'])
    elif form.imm is not None:
        ops.append(form.imm)
    if 'c' in regs:
        ops.append(regs['c'])
    head = form.instr
    if head.startswith('red'):
        return '%s [%s], %s;' % (head, ops[0], ', '.join(ops[1:]))
    return '%s %s, [%s], %s;' % (head, d, ops[0], ', '.join(ops[1:]))


def emit_global_own(form, ctx):
    t = form.t
    ctx.prologue(guard=True)
    regs = _operands(ctx, form, t)
    if form.generic:
        base = ctx.regs.new(64)
        ctx.emit('ld.param.u64 %s, [p_m];' % base)
        a = ctx.regs.new(64)
        ctx.emit('mad.wide.u32 %s, %s, %d, %s;' % (a, ctx.gtid, elem_bytes(t), base))
    else:
        a = ctx.addr('m', t)
    d = ctx.reg(t)
    ctx.emit(_instr(form, d, a, regs))
    if not form.instr.startswith('red'):
        ctx.store('d', t, d)


def emit_shared_own(form, ctx):
    t = form.t
    ctx.prologue(guard=True)
    regs = _operands(ctx, form, t)
    m0 = ctx.load('m0', t)
    sb = ctx.regs.new(32)
    sa = ctx.regs.new(32)
    ctx.emit('mov.u32 %s, %s;' % (sb, SMEM))
    ctx.emit('mad.lo.u32 %s, %s, %d, %s;' % (sa, ctx.tidx, elem_bytes(t), sb))
    if tbits(t) == 128:
        ctx.emit('st.shared.b128 [%s], %s;' % (sa, m0))
    else:
        ctx.emit('st.shared.%s [%s], %s;' % (_sh_ld(t), sa, m0))
    d = ctx.reg(t)
    ctx.emit(_instr(form, d, sa, regs))
    mf = ctx.reg(t)
    if tbits(t) == 128:
        ctx.emit('ld.shared.b128 %s, [%s];' % (mf, sa))
    else:
        ctx.emit('ld.shared.%s %s, [%s];' % (_sh_ld(t), mf, sa))
    if not form.instr.startswith('red'):
        ctx.store('d', t, d)
    ctx.store('m', t, mf)


def emit_global_cont(form, ctx):
    t = form.t
    ctx.prologue(guard=True)
    regs = _operands(ctx, form, t)
    slot = ctx.regs.new(32)
    ctx.emit('and.b32 %s, %s, %d;' % (slot, ctx.gtid, K - 1))
    a = ctx.addr('m', t, index=slot)
    d = ctx.reg(t)
    ctx.emit(_instr(form, d, a, regs))


def emit_shared_cont(form, ctx):
    t = form.t
    ctx.prologue(guard=False)
    regs = _operands(ctx, form, t)
    sb, sa, slot, gi = (ctx.regs.new(32) for _ in range(4))
    pinit = ctx.regs.new(1)
    ctx.emit('mov.u32 %s, %s;' % (sb, SMEM))
    ctx.emit('mad.lo.u32 %s, %s, %d, %s;' % (gi, ctx.ctaid, K, ctx.tidx))
    ctx.emit('setp.lt.u32 %s, %s, %d;' % (pinit, ctx.tidx, K))
    ctx.emit('@!%s bra $L_init_done;' % pinit)
    m0 = ctx.load('m0', t, index=gi)
    ctx.emit('mad.lo.u32 %s, %s, %d, %s;' % (sa, ctx.tidx, elem_bytes(t), sb))
    ctx.emit('st.shared.%s [%s], %s;' % (_sh_ld(t), sa, m0))
    ctx.label('$L_init_done')
    ctx.emit('bar.sync 0;')
    ctx.emit('and.b32 %s, %s, %d;' % (slot, ctx.tidx, K - 1))
    ctx.emit('mad.lo.u32 %s, %s, %d, %s;' % (slot, slot, elem_bytes(t), sb))
    d = ctx.reg(t)
    ctx.emit(_instr(form, d, slot, regs))
    ctx.emit('bar.sync 0;')
    ctx.emit('@!%s bra $L_end;' % pinit)
    mf = ctx.reg(t)
    ctx.emit('ld.shared.%s %s, [%s];' % (_sh_ld(t), mf, sa))
    ctx.store('m', t, mf, index=gi)


def emit_global_vec(form, ctx):
    """atom/red with a vector type: lane i owns elements [i*k, i*k+k)."""
    t, k = form.t, form.vec
    size = elem_bytes(t)
    ctx.prologue(guard=True)

    def addr(buf):
        base = ctx.base_of(buf)
        a = ctx.regs.new(64)
        ctx.emit('mad.wide.u32 %s, %s, %d, %s;' % (a, ctx.gtid, k * size, base))
        return a
    ab = addr('b')
    bs = []
    for i in range(k):
        r = ctx.reg(t)
        ctx.emit('ld.global.b%d %s, [%s+%d];' % (tbits(t), r, ab, i * size))
        bs.append(r)
    am = addr('m')
    if form.instr.startswith('red'):
        ctx.emit('%s [%s], {%s};' % (form.instr, am, ', '.join(bs)))
        return
    ds = [ctx.reg(t) for _ in range(k)]
    ctx.emit('%s {%s}, [%s], {%s};' % (form.instr, ', '.join(ds), am, ', '.join(bs)))
    ad = addr('d')
    for i, r in enumerate(ds):
        ctx.emit('st.global.b%d [%s+%d], %s;' % (tbits(t), ad, i * size, r))


def vec_vectors(op, t, k, key):
    R = rng_for('atomv', key)
    if op == 'add' and t == 'f32':
        c = core(t)
        m = [c[i % len(c)] for i in range(N * k)]
        b = [c[(i // len(c) + i) % len(c)] for i in range(N * k)]
        for i in range(N * k // 2, N * k):
            m[i], b[i] = rand(t, R), rand(t, R)
        return {'m': m, 'b': b}
    e = edges(t)
    m = [e[i % len(e)] if i < len(e) else rand(t, R) for i in range(N * k)]
    b = [rand(t, R) if i % 3 else e[(i * 7) % len(e)] for i in range(N * k)]
    return {'m': m, 'b': b}


def _vform(fid, instr, t, k, vec):
    red = instr.startswith('red')
    cnt = N * k
    bufs = ([] if red else [('d', t, cnt, 'out')]) + [('m', t, cnt, 'inout'), ('b', t, cnt, 'in')]
    f = AtomForm(fid, 'atom', [], [], [], n=N, kind='atom_global_vec', emit=emit_global_vec, bufs=bufs,
                 vecgen=lambda form, vec=vec: vec, opcode=atom_opcode(instr),
                 note='vector atomic: lane i owns elements [%d*i, %d*i+%d) of m, b and d; '
                      'atomicity is per element' % (k, k, k))
    f.instr, f.t, f.vec, f.imm, f.generic = instr, t, k, None, False
    regs = '{%s}' % ', '.join('%s%d' % ('b', i) for i in range(k))
    dregs = '{%s}' % ', '.join('%s%d' % ('d', i) for i in range(k))
    f.body = ['%s [a], %s;' % (instr, regs)] if red else ['%s %s, [a], %s;' % (instr, dregs, regs)]
    return f


# ---------------------------------------------------------------- forms

class AtomForm(Form):
    pass


def _form(fid, instr, t, kind, vec, has_b=True, has_c=False, imm=None, generic=False, note=None):
    red = instr.startswith('red')
    nslots = K if kind == 'global_cont' else (N // BLOCK) * K
    if kind == 'global_own':
        bufs = ([] if red else [('d', t, N, 'out')]) + [('m', t, N, 'inout')]
        emit = emit_global_own
    elif kind == 'shared_own':
        bufs = ([] if red else [('d', t, N, 'out')]) + [('m', t, N, 'out'),
                                                                      ('m0', t, N, 'in')]
        emit = emit_shared_own
    elif kind == 'global_cont':
        bufs = [('m', t, nslots, 'inout')]
        emit = emit_global_cont
    else:
        bufs = [('m', t, nslots, 'out'), ('m0', t, nslots, 'in')]
        emit = emit_shared_cont
    if has_b:
        bufs.append(('b', t, N, 'in'))
    if has_c:
        bufs.append(('c', t, N, 'in'))
    if kind in ('shared_own', 'shared_cont'):
        vec = dict(vec)
        vec['m0'] = vec.pop('m')
    f = AtomForm(fid, 'atom', [instr + ' ...'], [], [], n=N, kind='atom_' + kind, emit=emit, bufs=bufs,
                 vecgen=lambda form, vec=vec: vec, note=note, opcode=atom_opcode(instr))
    f.instr = instr
    f.t = t
    f.imm = imm
    f.generic = generic
    # symbolic text for forms.json
    ops = '[a]'
    if has_b:
        ops += ', b'
    elif imm is not None:
        ops += ', ' + imm
    if has_c:
        ops += ', c'
    f.body = [('%s %s;' % (instr, ops)) if red else ('%s d, %s;' % (instr, ops))]
    return f


def atom_forms():
    L = []
    for space in ('global', 'shared'):
        for op, types in OWN_OPS:
            for t in types:
                base = op.split('.')[0]
                key = '%s_%s_%s' % (space, op, t)
                vec = own_vectors(op, t, key)
                has_c = base == 'cas'
                fid = 'atom_%s_%s_%s' % (space, op.replace('.', '_'), t)
                L.append(_form(fid, 'atom.%s.%s.%s' % (space, op, t), t, space + '_own', vec, has_c=has_c))
                if base not in ('exch', 'cas'):
                    fid = 'red_%s_%s_%s' % (space, op.replace('.', '_'), t)
                    L.append(_form(fid, 'red.%s.%s.%s' % (space, op, t), t, space + '_own',
                                   {'m': vec['m'], 'b': vec['b']}))
        for op in ('cas', 'exch'):
            key = '%s_%s_b128' % (space, op)
            R = rng_for('atom128', key)
            m = [R.getrandbits(128) for _ in range(N)]
            vec = {'m': m, 'b': [R.getrandbits(128) for _ in range(N)]}
            if op == 'cas':
                vec['b'] = [m[i] if i % 2 == 0 else m[i] ^ (1 << R.randrange(128)) for i in range(N)]
                vec['c'] = [R.getrandbits(128) for _ in range(N)]
            L.append(_form('atom_%s_%s_b128' % (space, op), 'atom.%s.%s.b128' % (space, op), 'b128',
                           space + '_own', vec, has_c=(op == 'cas')))
        # contention
        for op, types in CONT_OPS:
            for t in types:
                nslots = K if space == 'global' else (N // BLOCK) * K
                key = 'cont_%s_%s_%s' % (space, op, t)
                vec = cont_vectors(op, t, key, nslots)
                opq = op + ('.noftz' if t in ('f16x2', 'bf16x2') else '')
                for ins in ('atom', 'red'):
                    fid = '%s_%s_%s_%s_contended' % (ins, space, opq.replace('.', '_'), t)
                    L.append(_form(fid, '%s.%s.%s.%s' % (ins, space, opq, t), t, space + '_cont', vec))

    # vector atomics (sm_90): per-element atomicity, each lane on its own elements
    for ins, op, t, k in (('atom', 'add', 'f32', 2), ('atom', 'add', 'f32', 4), ('red', 'add', 'f32', 4),
                          ('atom', 'add.noftz', 'f16', 2), ('atom', 'min.noftz', 'f16', 4),
                          ('atom', 'max.noftz', 'f16', 8), ('red', 'add.noftz', 'f16', 8),
                          ('atom', 'add.noftz', 'bf16', 4), ('atom', 'max.noftz', 'bf16', 2),
                          ('atom', 'add.noftz', 'f16x2', 2), ('atom', 'min.noftz', 'f16x2', 4),
                          ('atom', 'max.noftz', 'bf16x2', 2), ('red', 'add.noftz', 'bf16x2', 2),
                          ('red', 'min.noftz', 'f16x2', 2)):
        instr = '%s.global.%s.v%d.%s' % (ins, op, k, t)
        fid = instr.replace('.', '_')
        L.append(_vform(fid, instr, t, k, vec_vectors(op.split('.')[0], t, k, fid)))

    # memory-order / scope qualifiers, immediates, generic addressing
    def own(fid, instr, t, op, **kw):
        vec = own_vectors(op, t, fid)
        if not kw.get('has_b', True):
            vec.pop('b')
        L.append(_form(fid, instr, t, kw.pop('kind', 'global_own'), vec, has_c=(op == 'cas'), **kw))

    own('atom_relaxed_gpu_global_add_u32', 'atom.relaxed.gpu.global.add.u32', 'u32', 'add')
    own('atom_acq_rel_gpu_global_add_u32', 'atom.acq_rel.gpu.global.add.u32', 'u32', 'add')
    own('atom_acquire_cta_global_max_s32', 'atom.acquire.cta.global.max.s32', 's32', 'max')
    own('atom_release_sys_global_exch_b32', 'atom.release.sys.global.exch.b32', 'b32', 'exch')
    own('atom_global_sys_add_u64', 'atom.global.sys.add.u64', 'u64', 'add')
    own('atom_relaxed_cta_shared_cta_add_u32', 'atom.relaxed.cta.shared::cta.add.u32', 'u32', 'add',
        kind='shared_own')
    own('atom_shared_cta_min_s32', 'atom.shared::cta.min.s32', 's32', 'min', kind='shared_own')
    own('red_relaxed_gpu_global_add_u32', 'red.relaxed.gpu.global.add.u32', 'u32', 'add')
    own('red_release_cta_global_or_b32', 'red.release.cta.global.or.b32', 'b32', 'or')
    own('atom_global_add_u32_imm', 'atom.global.add.u32', 'u32', 'add', has_b=False, imm='1')
    own('atom_global_inc_u32_imm', 'atom.global.inc.u32', 'u32', 'inc', has_b=False, imm='17')
    own('atom_global_dec_u32_imm', 'atom.global.dec.u32', 'u32', 'dec', has_b=False, imm='17')
    own('atom_generic_add_u32', 'atom.add.u32', 'u32', 'add', generic=True)
    own('atom_generic_cas_b32', 'atom.cas.b32', 'b32', 'cas', generic=True)
    own('atom_generic_add_f32', 'atom.add.f32', 'f32', 'add', generic=True)
    own('red_generic_add_u64', 'red.add.u64', 'u64', 'add', generic=True)
    return L
