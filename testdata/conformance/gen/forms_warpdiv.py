"""Warp-synchronous instructions under divergence ('warpdiv') and barrier
misuse ('barerr').

warpdiv: vote.sync (all/any/uni/ballot), shfl.sync (idx/up/down/bfly),
match.sync (any/all), redux.sync (every op), bar.warp.sync and activemask,
each with member mask 0xffffffff while some of the lanes named in it are
elsewhere:
  one      lane 0 branches around the instruction (then stores and exits)
  half     lanes 16-31 branch around it
  exit     lanes 16-31 store their sentinels and exit before it
  exit1    lane 31 exits before it
  split    lanes 0-15 execute it in one branch, lanes 16-31 the same
           instruction in the other branch (two PCs)
  barwait  lane 0 waits at barrier.sync 0 (at another PC) while the
           others execute the instruction, then reach their own barrier.sync 0
Outputs hold 0xDEADBEEF in lanes that did not execute the instruction. What
sm_90 returns is recorded, or the error, or "hang" (expected/ERROR).

barerr: bar.sync / barrier.sync / bar.arrive / bar.red with a thread count
that is not a multiple of 32 (48, from a register: ptxas rejects such an
immediate), bar.warp.sync with masks that differ between lanes or leave the
executing lane out, and warp-synchronous instructions executed by lanes
outside their member mask; with correct controls. The CUDA error (or the
result, where there is none) is the expected result.
"""

from ptxgen import Form, SENTINEL
from vectors import rng_for

N = 128     # one CTA of four warps
FULL = 0xFFFFFFFF

# op id -> (PTX lines with {a} {b} {d} {p} {q}, inputs, outputs)
OPS = {
    'vote_all': (['vote.sync.all.pred {q}, {pa}, 0xffffffff;', 'selp.u32 {d}, 1, 0, {q};'], [('pa', 'pred')]),
    'vote_any': (['vote.sync.any.pred {q}, {pa}, 0xffffffff;', 'selp.u32 {d}, 1, 0, {q};'], [('pa', 'pred')]),
    'vote_uni': (['vote.sync.uni.pred {q}, {pa}, 0xffffffff;', 'selp.u32 {d}, 1, 0, {q};'], [('pa', 'pred')]),
    'vote_ballot': (['vote.sync.ballot.b32 {d}, {pa}, 0xffffffff;'], [('pa', 'pred')]),
    'shfl_idx': (['shfl.sync.idx.b32 {d}|{q}, {a}, {b}, 0x1f, 0xffffffff;', 'selp.u32 {d2}, 1, 0, {q};'],
                 [('a', 'b32'), ('b', 'u32')]),
    'shfl_up': (['shfl.sync.up.b32 {d}|{q}, {a}, 1, 0x0, 0xffffffff;', 'selp.u32 {d2}, 1, 0, {q};'],
                [('a', 'b32')]),
    'shfl_down': (['shfl.sync.down.b32 {d}|{q}, {a}, 1, 0x1f, 0xffffffff;', 'selp.u32 {d2}, 1, 0, {q};'],
                  [('a', 'b32')]),
    'shfl_bfly': (['shfl.sync.bfly.b32 {d}|{q}, {a}, 1, 0x1f, 0xffffffff;', 'selp.u32 {d2}, 1, 0, {q};'],
                  [('a', 'b32')]),
    'match_any': (['match.any.sync.b32 {d}, {a}, 0xffffffff;'], [('a', 'b32')]),
    'match_all': (['match.all.sync.b32 {d}|{q}, {a}, 0xffffffff;', 'selp.u32 {d2}, 1, 0, {q};'],
                  [('a', 'b32')]),
    'redux_add': (['redux.sync.add.u32 {d}, {a}, 0xffffffff;'], [('a', 'b32')]),
    'redux_min_u32': (['redux.sync.min.u32 {d}, {a}, 0xffffffff;'], [('a', 'b32')]),
    'redux_max_u32': (['redux.sync.max.u32 {d}, {a}, 0xffffffff;'], [('a', 'b32')]),
    'redux_min_s32': (['redux.sync.min.s32 {d}, {a}, 0xffffffff;'], [('a', 'b32')]),
    'redux_max_s32': (['redux.sync.max.s32 {d}, {a}, 0xffffffff;'], [('a', 'b32')]),
    'redux_and': (['redux.sync.and.b32 {d}, {a}, 0xffffffff;'], [('a', 'b32')]),
    'redux_or': (['redux.sync.or.b32 {d}, {a}, 0xffffffff;'], [('a', 'b32')]),
    'redux_xor': (['redux.sync.xor.b32 {d}, {a}, 0xffffffff;'], [('a', 'b32')]),
    'bar_warp_sync': (['bar.warp.sync 0xffffffff;', 'mov.u32 {d}, 1;'], []),
    'activemask': (['activemask.b32 {d};'], []),
}
SHAPES = ('one', 'half', 'exit', 'exit1', 'split', 'barwait')
BARWAIT_OPS = ('vote_all', 'vote_ballot', 'shfl_idx', 'redux_add', 'bar_warp_sync', 'match_any')


def _inputs(fid, ins):
    R = rng_for('warpdiv', fid)
    v = {}
    for nm, t in ins:
        if t == 'pred':
            pats = [[1] * 32, [i & 1 for i in range(32)], [0 if i == 0 else 1 for i in range(32)],
                    [R.getrandbits(1) for _ in range(32)]]
            v[nm] = [x for w in range(N // 32) for x in pats[w % len(pats)]]
        elif nm == 'b':
            v[nm] = [(w * 7 + i * 5) % 32 if w % 2 else 0 for w in range(N // 32) for i in range(32)]
        else:
            v[nm] = [(0x1000 * (i % 3)) if w == 0 else R.getrandbits(32) for w in range(N // 32)
                     for i in range(32)]
    return v


def _emit_div(form, ctx):
    shape, op = form.shape, form.op
    lines, _ = OPS[op]
    ctx.prologue(guard=False)
    names = {}
    for (nm, t, _) in form.ins:
        names[nm] = ctx.load(nm, t)
    for (nm, t) in form.outs:
        names[nm] = ctx.reg(32)
        ctx.emit('mov.b32 %s, %s;' % (names[nm], SENTINEL[32]))
    names['q'] = ctx.regs.new(1)
    lane = ctx.regs.new(32)
    pk = ctx.regs.new(1)
    ctx.emit('mov.u32 %s, %%laneid;' % lane)

    def body():
        for ln in lines:
            ctx.emit(ln.format(**names))

    def stores():
        for (nm, t) in form.outs:
            ctx.store(nm, 'u32', names[nm])

    if shape == 'one':
        ctx.emit('setp.eq.u32 %s, %s, 0;' % (pk, lane))
        ctx.emit('@%s bra $L_skip;' % pk)
        body()
        ctx.label('$L_skip')
        stores()
    elif shape == 'half':
        ctx.emit('setp.ge.u32 %s, %s, 16;' % (pk, lane))
        ctx.emit('@%s bra $L_skip;' % pk)
        body()
        ctx.label('$L_skip')
        stores()
    elif shape in ('exit', 'exit1'):
        stores()
        if shape == 'exit':
            ctx.emit('setp.ge.u32 %s, %s, 16;' % (pk, lane))
        else:
            ctx.emit('setp.eq.u32 %s, %s, 31;' % (pk, lane))
        ctx.emit('@%s exit;' % pk)
        body()
        stores()
    elif shape == 'split':
        ctx.emit('setp.ge.u32 %s, %s, 16;' % (pk, lane))
        ctx.emit('@%s bra $L_else;' % pk)
        body()
        ctx.emit('bra.uni $L_join;')
        ctx.label('$L_else')
        body()
        ctx.label('$L_join')
        stores()
    elif shape == 'barwait':
        ctx.emit('setp.eq.u32 %s, %s, 0;' % (pk, lane))
        ctx.emit('@%s bra $L_wait;' % pk)
        body()
        ctx.emit('barrier.sync 0;')
        ctx.emit('bra.uni $L_join;')
        ctx.label('$L_wait')
        ctx.emit('barrier.sync 0;')
        ctx.label('$L_join')
        stores()
    else:
        raise ValueError(shape)


def warpdiv_forms():
    L = []
    for shape in SHAPES:
        for op, (lines, ins) in OPS.items():
            if shape == 'barwait' and op not in BARWAIT_OPS:
                continue
            fid = 'wd_%s_%s' % (op, shape)
            text = ' '.join(lines)
            outs = [('d', 'u32')] + ([('d2', 'u32')] if '{d2}' in text else [])
            f = Form(fid, 'warpdiv', lines, ins, outs, n=N, guard=False, emit=_emit_div,
                     vecgen=lambda form, ins=ins: _inputs(form.id, ins), kind='warpdiv',
                     record_error=True, hang_risk={'barwait': 2, 'split': 1}.get(shape, 0),
                     opcode=lines[0].split()[0],
                     note='%s, member mask 0xffffffff, divergence shape %s' % (op, shape))
            f.shape, f.op = shape, op
            L.append(f)
    return L


# ----------------------------------------------------------------------------
# barerr

def _emit_bar(form, ctx):
    ctx.prologue(guard=False)
    names = {'tid': ctx.tidx}
    for (nm, t, _) in form.ins:
        names[nm] = ctx.load(nm, t)
    for (nm, t) in form.outs:
        names[nm] = ctx.reg(32)
        ctx.emit('mov.b32 %s, %s;' % (names[nm], SENTINEL[32]))
    for nm in ('lane', 'cnt', 'm', 'r'):
        names[nm] = ctx.regs.new(32)
    for nm in ('p', 'q'):
        names[nm] = ctx.regs.new(1)
    ctx.emit('mov.u32 %s, %%laneid;' % names['lane'])
    for ln in form.body:
        s = ln.format(**names)
        if s.endswith(':'):
            ctx.label(s[:-1])
        else:
            ctx.emit(s)
    for (nm, t) in form.outs:
        ctx.store(nm, 'u32', names[nm])


# Thread-count barriers: 128 threads; the first `part` of them (whole warps,
# except in the *_splitwarp forms) execute the barrier with thread count `count`.
BAR_FORMS = [
    ('bar_sync_reg48', 48, 64, ['bar.sync 1, {cnt};'], 'bar.sync 1, 48 (count in a register) by 2 warps'),
    ('barrier_sync_reg48', 48, 64, ['barrier.sync 1, {cnt};'], 'barrier.sync 1, 48 by 2 warps'),
    ('barrier_sync_aligned_reg48', 48, 64, ['barrier.sync.aligned 1, {cnt};'],
     'barrier.sync.aligned 1, 48 by 2 warps'),
    ('bar_red_popc_reg48', 48, 64, ['setp.ne.u32 {q}, {a}, 0;', 'bar.red.popc.u32 {d}, 1, {cnt}, {q};'],
     'bar.red.popc 1, 48 by 2 warps'),
    ('bar_arrive_reg48', 48, 64, ['bar.arrive 1, {cnt};'], 'bar.arrive 1, 48 by 2 warps (nobody waits)'),
    ('bar_sync_reg40', 40, 64, ['bar.sync 1, {cnt};'], 'bar.sync 1, 40 by 2 warps'),
    ('bar_sync_reg16', 16, 32, ['bar.sync 1, {cnt};'], 'bar.sync 1, 16 by one warp (less than a warp)'),
    ('barrier_sync_reg48_splitwarp', 48, 48, ['barrier.sync 1, {cnt};'],
     'barrier.sync 1, 48 by the first 48 threads (warp 1 split)'),
    ('bar_sync_reg64_ok', 64, 64, ['bar.sync 1, {cnt};'], 'control: bar.sync 1, 64 by 2 warps'),
    ('bar_sync_reg32_ok', 32, 32, ['bar.sync 1, {cnt};'], 'control: bar.sync 1, 32 by one warp'),
    ('bar_sync_imm64_ok', 64, 64, ['bar.sync 1, 64;'], 'control: bar.sync 1, 64 (immediate)'),
    ('bar_sync_reg128_all_ok', 128, 128, ['bar.sync 1, {cnt};'], 'control: bar.sync 1, 128 by all'),
]


def barerr_forms():
    L = []

    def F(fid, body, ins, note, hang=False):
        outs = [('d', 'u32')]

        def vec(form, ins=ins):
            R = rng_for('barerr', form.id)
            return {nm: [R.getrandbits(1) for _ in range(N)] for nm, _ in ins}
        L.append(Form('be_' + fid, 'barerr', body, ins, outs, n=N, guard=False, emit=_emit_bar,
                      vecgen=vec, kind='barerr', record_error=True, hang_risk=hang, note=note,
                      opcode=next((ln.split()[0] for ln in body if not ln.startswith(
                          ('mov', 'setp', '@', '$', 'or', 'shl', 'bra'))), '')))

    for fid, count, part, lines, note in BAR_FORMS:
        body = ['mov.u32 {cnt}, %d;' % count, 'setp.ge.u32 {p}, {tid}, %d;' % part, '@{p} bra $L_out;']
        body += lines
        if 'bar.red' not in ' '.join(lines):
            body.append('mov.u32 {d}, 1;')
        body.append('$L_out:')
        F(fid, body, [('a', 'u32')] if '{a}' in ' '.join(lines) else [], note, hang=not fid.endswith('_ok'))
    # bar.warp.sync misuse
    F('warp_sync_half_masks', ['setp.ge.u32 {p}, {lane}, 16;', '@{p} bra $L_hi;', 'bar.warp.sync 0x0000ffff;',
                               'bra.uni $L_j;', '$L_hi:', 'bar.warp.sync 0xffffffff;', '$L_j:', 'mov.u32 {d}, 1;'],
      [], 'lanes 0-15 bar.warp.sync 0x0000ffff, lanes 16-31 bar.warp.sync 0xffffffff (at two PCs)', hang=True)
    F('warp_sync_lane_masks', ['shl.b32 {m}, 1, {lane};', 'or.b32 {m}, {m}, 1;', 'bar.warp.sync {m};',
                               'mov.u32 {d}, 1;'], [], 'each lane names itself and lane 0: mismatched masks',
      hang=True)
    F('warp_sync_self_excluded', ['mov.u32 {m}, 0xffffffff;', 'setp.eq.u32 {p}, {lane}, 0;',
                                  '@{p} mov.u32 {m}, 0xfffffffe;', 'bar.warp.sync {m};', 'mov.u32 {d}, 1;'], [],
      'lane 0 executes bar.warp.sync with a mask that leaves it out', hang=True)
    F('warp_sync_lo16_all', ['bar.warp.sync 0x0000ffff;', 'mov.u32 {d}, 1;'], [],
      'all 32 lanes execute bar.warp.sync 0x0000ffff (16 of them outside the mask)', hang=True)
    F('warp_sync_full_ok', ['bar.warp.sync 0xffffffff;', 'mov.u32 {d}, 1;'], [], 'control: full mask')
    F('warp_sync_reg_full_ok', ['mov.u32 {m}, 0xffffffff;', 'bar.warp.sync {m};', 'mov.u32 {d}, 1;'], [],
      'control: full mask in a register')
    # warp-synchronous instructions executed by lanes outside their mask
    F('vote_ballot_nonmember', ['setp.ne.u32 {q}, {a}, 0;', 'vote.sync.ballot.b32 {d}, {q}, 0x0000ffff;'],
      [('a', 'u32')], 'vote.sync.ballot 0x0000ffff executed by all 32 lanes', hang=True)
    F('shfl_idx_nonmember', ['shfl.sync.idx.b32 {d}, {a}, 0, 0x1f, 0x0000ffff;'], [('a', 'u32')],
      'shfl.sync.idx 0x0000ffff executed by all 32 lanes', hang=True)
    F('redux_add_nonmember', ['redux.sync.add.u32 {d}, {a}, 0x0000ffff;'], [('a', 'u32')],
      'redux.sync.add 0x0000ffff executed by all 32 lanes', hang=True)
    F('match_any_nonmember', ['match.any.sync.b32 {d}, {a}, 0x0000ffff;'], [('a', 'u32')],
      'match.any.sync 0x0000ffff executed by all 32 lanes', hang=True)
    F('vote_ballot_mask_mismatch', ['mov.u32 {m}, 0xffffffff;', 'setp.lt.u32 {p}, {lane}, 16;',
                                    '@{p} mov.u32 {m}, 0x0000ffff;', 'setp.ne.u32 {q}, {a}, 0;',
                                    'vote.sync.ballot.b32 {d}, {q}, {m};'], [('a', 'u32')],
      'vote.sync.ballot: lanes 0-15 pass 0x0000ffff, lanes 16-31 0xffffffff', hang=True)
    return L
