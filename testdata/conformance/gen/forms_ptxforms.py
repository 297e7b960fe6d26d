"""Hand-written PTX forms ('ptxforms') and the scalar video instructions
('video').

ptxforms: calls with several return values (`call (r1, r2), f, (a, b);`,
.reg-space return values, as ptxas requires for more than one), mixed-type
returns, .param-space vector parameters (`.param .v4 .b32`) and 16-byte
aligned byte-array parameters, vector-typed registers (`.reg .v2 .u32`,
`.reg .v4 .f32`) loaded and stored whole and accessed by element as
.x/.y/.z/.w and .r/.g/.b/.a, and WARP_SZ as an operand. Helper functions are
each form's own prelude, so a form ptxas rejects is dropped alone.

video: vadd, vsub, vabsdiff, vmin, vmax (with .sat, the secondary
operations .add/.min/.max, and the merge form d.dsel), vshl/vshr (.clamp,
.wrap), vmad (.sat, .shr7, .shr15, negated operands, .po) and vset (every
comparison, secondary operations, d.dsel), with byte and half-word operand
selectors (.b0-.b3, .h0/.h1) and signed/unsigned operand types.
"""

from ptxgen import Form
from vectors import rng_for

N = 128


def _vec_u32(form):
    R = rng_for('ptxforms', form.id)
    out = {}
    for (nm, t, _) in form.ins:
        bits = 64 if t in ('u64', 'b64', 'f64', 's64') else 32
        if t == 'f32':
            out[nm] = [(R.getrandbits(1) << 31) | ((127 + R.randint(-10, 10)) << 23) | R.getrandbits(23)
                       for _ in range(N)]
        else:
            out[nm] = [R.getrandbits(bits) if i % 4 else R.randrange(1, 1000) for i in range(N)]
    return out


def ptx_forms():
    L = []

    def F(fid, body, ins, outs, prelude='', temps=(), note='', opcode=None, vecgen=_vec_u32, decls=None):
        f = Form('px_' + fid, 'ptxforms', body, ins, outs, temps=temps, n=N, prelude=prelude,
                 vecgen=vecgen, kind='ptxform', note=note, opcode=opcode)
        if decls:
            f.emit = _with_decls(decls)
        L.append(f)

    # -- calls with several return values ---------------------------------
    F('call_two_ret_reg',
      ['call (%x_q, %x_r), px_divmod_$ID, ({a}, {b});', 'mov.b32 {d}, %x_q;', 'mov.b32 {d2}, %x_r;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('d2', 'u32')],
      prelude='.func (.reg .b32 q, .reg .b32 r) px_divmod_$ID(.reg .b32 a, .reg .b32 b)\n{\n'
              '\tor.b32 b, b, 1;\n\tdiv.u32 q, a, b;\n\trem.u32 r, a, b;\n\tret;\n}',
      decls=['.reg .b32 %x_q;', '.reg .b32 %x_r;'], note='call (q, r), f, (a, b) with .reg return values',
      opcode='call')
    F('call_three_ret_mixed',
      ['call (%x_lo, %x_hi, %x_f), px_split_$ID, ({w});', 'mov.b32 {d}, %x_lo;', 'mov.b32 {d2}, %x_hi;',
       'mov.b32 {d3}, %x_f;'],
      [('w', 'u64')], [('d', 'u32'), ('d2', 'u32'), ('d3', 'f32')],
      prelude='.func (.reg .b32 lo, .reg .b32 hi, .reg .f32 f) px_split_$ID(.reg .b64 w)\n{\n'
              '\tmov.b64 {lo, hi}, w;\n\tcvt.rn.f32.u64 f, w;\n\tret;\n}',
      decls=['.reg .b32 %x_lo;', '.reg .b32 %x_hi;', '.reg .f32 %x_f;'],
      note='three return values of mixed types (b32, b32, f32) from a b64 argument', opcode='call')
    F('call_ret_imm_args',
      ['call (%x_q, %x_r), px_divmod_$ID, ({a}, 7);', 'mov.b32 {d}, %x_q;', 'mov.b32 {d2}, %x_r;'],
      [('a', 'u32')], [('d', 'u32'), ('d2', 'u32')],
      prelude='.func (.reg .b32 q, .reg .b32 r) px_divmod_$ID(.reg .b32 a, .reg .b32 b)\n{\n'
              '\tdiv.u32 q, a, b;\n\trem.u32 r, a, b;\n\tret;\n}',
      decls=['.reg .b32 %x_q;', '.reg .b32 %x_r;'], note='two return values, an immediate argument',
      opcode='call')
    F('call_param_one_ret',
      ['{{', '.param .b32 pa;', '.param .b32 pb;', '.param .b32 pr;', 'st.param.b32 [pa], {a};',
       'st.param.b32 [pb], {b};', 'call (pr), px_sub_$ID, (pa, pb);', 'ld.param.b32 {d}, [pr];', '}}'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32')],
      prelude='.func (.param .b32 r) px_sub_$ID(.param .b32 a, .param .b32 b)\n{\n\t.reg .b32 %t<3>;\n'
              '\tld.param.b32 %t0, [a];\n\tld.param.b32 %t1, [b];\n\tsub.u32 %t2, %t0, %t1;\n'
              '\tst.param.b32 [r], %t2;\n\tret;\n}', note='control: .param return value (the nvcc ABI)',
      opcode='call')
    F('call_param_v4_b32',
      ['{{', '.param .v4 .b32 pv;', '.param .v4 .b32 pr;', 'st.param.v4.b32 [pv], {{{a}, {b}, {c}, {e}}};',
       'call (pr), px_rot_$ID, (pv);', 'ld.param.v4.b32 {{{d}, {d2}, {d3}, {d4}}}, [pr];', '}}'],
      [('a', 'u32'), ('b', 'u32'), ('c', 'u32'), ('e', 'u32')],
      [('d', 'u32'), ('d2', 'u32'), ('d3', 'u32'), ('d4', 'u32')],
      prelude='.func (.param .v4 .b32 r) px_rot_$ID(.param .v4 .b32 x)\n{\n\t.reg .b32 %t<4>;\n'
              '\tld.param.v4.b32 {%t0, %t1, %t2, %t3}, [x];\n\tst.param.v4.b32 [r], {%t1, %t2, %t3, %t0};\n'
              '\tret;\n}', note='.param .v4 .b32 argument and return value', opcode='call')
    F('call_param_v2_b32',
      ['{{', '.param .v2 .b32 pv;', '.param .v2 .b32 pr;', 'st.param.v2.b32 [pv], {{{a}, {b}}};',
       'call (pr), px_swap_$ID, (pv);', 'ld.param.v2.b32 {{{d}, {d2}}}, [pr];', '}}'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('d2', 'u32')],
      prelude='.func (.param .v2 .b32 r) px_swap_$ID(.param .v2 .b32 x)\n{\n\t.reg .b32 %t<2>;\n'
              '\tld.param.v2.b32 {%t0, %t1}, [x];\n\tst.param.v2.b32 [r], {%t1, %t0};\n\tret;\n}',
      note='.param .v2 .b32 argument and return value', opcode='call')
    F('call_param_b8x16',
      ['{{', '.param .align 16 .b8 pv[16];', '.param .align 16 .b8 pr[16];',
       'st.param.v4.b32 [pv], {{{a}, {b}, {c}, {e}}};', 'call (pr), px_rot_$ID, (pv);',
       'ld.param.v4.b32 {{{d}, {d2}, {d3}, {d4}}}, [pr];', '}}'],
      [('a', 'u32'), ('b', 'u32'), ('c', 'u32'), ('e', 'u32')],
      [('d', 'u32'), ('d2', 'u32'), ('d3', 'u32'), ('d4', 'u32')],
      prelude='.func (.param .align 16 .b8 r[16]) px_rot_$ID(.param .align 16 .b8 x[16])\n{\n'
              '\t.reg .b32 %t<4>;\n\tld.param.v4.b32 {%t0, %t1, %t2, %t3}, [x];\n'
              '\tst.param.v4.b32 [r], {%t1, %t2, %t3, %t0};\n\tret;\n}',
      note='control: 16-byte aligned .b8 array parameter and return (the nvcc ABI for a struct)',
      opcode='call')
    # -- vector-typed registers --------------------------------------------
    F('vreg_v2_u32',
      ['mov.u32 %x_v2.x, {a};', 'mov.u32 %x_v2.y, {b};', 'add.u32 %x_v2.x, %x_v2.x, %x_v2.y;',
       'mov.u32 {d}, %x_v2.x;', 'mov.u32 {d2}, %x_v2.y;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('d2', 'u32')], decls=['.reg .v2 .u32 %x_v2;'],
      note='.reg .v2 .u32 with .x/.y element access', opcode='mov')
    F('vreg_v4_f32_rgba',
      ['ld.param.u64 %x_p, [p_a];', 'cvta.to.global.u64 %x_p, %x_p;', 'mul.wide.u32 %x_o, {gtid}, 16;',
       'add.u64 %x_p, %x_p, %x_o;', 'ld.global.v4.f32 %x_vf, [%x_p];', 'add.f32 %x_vf.r, %x_vf.g, %x_vf.a;',
       'mul.f32 %x_vf.b, %x_vf.b, %x_vf.r;', 'ld.param.u64 %x_q, [p_d];', 'cvta.to.global.u64 %x_q, %x_q;',
       'add.u64 %x_q, %x_q, %x_o;', 'st.global.v4.f32 [%x_q], %x_vf;'],
      [], [], decls=['.reg .v4 .f32 %x_vf;', '.reg .b64 %x_p;', '.reg .b64 %x_o;', '.reg .b64 %x_q;'],
      note='.reg .v4 .f32 loaded and stored whole, elements as .r/.g/.b/.a', opcode='ld.global.v4.f32')
    F('vreg_v4_u32_xyzw',
      ['ld.param.u64 %x_p, [p_a];', 'cvta.to.global.u64 %x_p, %x_p;', 'mul.wide.u32 %x_o, {gtid}, 16;',
       'add.u64 %x_p, %x_p, %x_o;', 'ld.global.v4.u32 %x_v, [%x_p];', 'xor.b32 %x_v.w, %x_v.x, %x_v.z;',
       'mov.u32 %x_v.x, %x_v.y;', 'add.u32 %x_v.y, %x_v.y, WARP_SZ;', 'ld.param.u64 %x_q, [p_d];',
       'cvta.to.global.u64 %x_q, %x_q;', 'add.u64 %x_q, %x_q, %x_o;', 'st.global.v4.u32 [%x_q], %x_v;'],
      [], [], decls=['.reg .v4 .u32 %x_v;', '.reg .b64 %x_p;', '.reg .b64 %x_o;', '.reg .b64 %x_q;'],
      note='.reg .v4 .u32 with .x/.y/.z/.w (and WARP_SZ as an operand)', opcode='ld.global.v4.u32')
    F('vreg_v2_f64',
      ['mov.b64 %x_d.x, {w};', 'mov.b64 %x_d.y, {w2};', 'add.f64 %x_d.x, %x_d.x, %x_d.y;',
       'mov.b64 {d}, %x_d.x;'],
      [('w', 'f64'), ('w2', 'f64')], [('d', 'f64')], decls=['.reg .v2 .f64 %x_d;'],
      note='.reg .v2 .f64 elements', opcode='add.f64')
    # -- WARP_SZ -----------------------------------------------------------
    F('warp_sz_ops',
      ['mov.u32 {d}, WARP_SZ;', 'rem.u32 {d2}, {a}, WARP_SZ;', 'mul.lo.u32 {d3}, {a}, WARP_SZ;'],
      [('a', 'u32')], [('d', 'u32'), ('d2', 'u32'), ('d3', 'u32')], note='WARP_SZ as mov source and operand',
      opcode='mov')
    for f in L:
        f.prelude = f.prelude.replace('$ID', f.id)
        f.body = [ln.replace('$ID', f.id) for ln in f.body]
    # vector-register forms with whole-vector global I/O: buffers by hand
    for f in L:
        if f.id in ('px_vreg_v4_f32_rgba', 'px_vreg_v4_u32_xyzw'):
            t = 'f32' if 'f32' in f.id else 'u32'
            f.bufs = [('d', t, 4 * N, 'out'), ('a', t, 4 * N, 'in')]
            f.vecgen = (lambda form, t=t: _vec_v4(form, t))
    return L


def _vec_v4(form, t):
    R = rng_for('ptxforms', form.id)
    if t == 'f32':
        return {'a': [(R.getrandbits(1) << 31) | ((127 + R.randint(-6, 6)) << 23) | R.getrandbits(23)
                      for _ in range(4 * N)]}
    return {'a': [R.getrandbits(32) for _ in range(4 * N)]}


def _with_decls(decls):
    from ptxgen import emit_standard

    def emit(form, ctx):
        ctx.decls = ['\t' + d for d in decls]
        if form.bufs is not None:
            ctx.prologue(guard=True)
            for line in form.body:
                ctx.emit(line.replace('{gtid}', ctx.gtid))
            return
        emit_standard(form, ctx)
    return emit


# ----------------------------------------------------------------------------
# video

SEL = ('', '.b0', '.b1', '.b2', '.b3', '.h0', '.h1')


def video_forms():
    L = []

    def F(fid, line, ins, note, sat_domain=None):
        L.append(Form('vid_' + fid, 'video', line, ins, [('d', 'b32')], n=N, kind='video', note=note,
                      extra=None))

    ab = [('a', 'b32'), ('b', 'b32')]
    abc = ab + [('c', 'b32')]
    tys = (('u32', 'u32', 'u32'), ('s32', 's32', 's32'), ('u32', 's32', 'u32'), ('s32', 'u32', 's32'))
    for op in ('vadd', 'vsub', 'vabsdiff', 'vmin', 'vmax'):
        for (dt, at, bt) in tys:
            base = '%s.%s.%s.%s' % (op, dt, at, bt)
            tag = '%s_%s%s%s' % (op, dt[0], at[0], bt[0])
            F(tag, base + ' {d}, {a}, {b};', ab, base)
            F(tag + '_sat', base + '.sat {d}, {a}, {b};', ab, base + '.sat')
        for i, (asel, bsel) in enumerate((('.b0', '.b3'), ('.b2', '.h1'), ('.h0', '.b1'), ('.h1', '.h0'))):
            base = '%s.s32.s32.u32' % op
            F('%s_sel%d' % (op, i), base + ' {d}, {a}%s, {b}%s;' % (asel, bsel), ab, 'selectors %s %s' % (asel, bsel))
        for op2 in ('add', 'min', 'max'):
            F('%s_op2_%s' % (op, op2), '%s.u32.u32.u32.%s {d}, {a}, {b}, {c};' % (op, op2), abc, 'secondary .' + op2)
            F('%s_op2_%s_s_sat' % (op, op2), '%s.s32.s32.s32.sat.%s {d}, {a}.b1, {b}.h0, {c};' % (op, op2), abc,
              'secondary .%s, signed, .sat, selectors' % op2)
        for dsel in ('.b0', '.b2', '.h1'):
            F('%s_merge%s' % (op, dsel.replace('.', '_')), '%s.u32.u32.u32 {d}%s, {a}, {b}, {c};' % (op, dsel), abc,
              'merge form d%s (other bytes from c)' % dsel)
    for op in ('vshl', 'vshr'):
        for mode in ('clamp', 'wrap'):
            for (dt, at) in (('u32', 'u32'), ('s32', 's32'), ('s32', 'u32')):
                base = '%s.%s.%s.u32.%s' % (op, dt, at, mode)
                F('%s_%s_%s%s' % (op, mode, dt[0], at[0]), base + ' {d}, {a}, {b};',
                  [('a', 'b32'), ('b', 'b32', ('shift', 32))], base)
            F('%s_%s_sat' % (op, mode), '%s.s32.s32.u32.sat.%s {d}, {a}, {b};' % (op, mode),
              [('a', 'b32'), ('b', 'b32', ('shift', 32))], 'signed, .sat')
            for op2 in ('add', 'min', 'max'):
                F('%s_%s_op2_%s' % (op, mode, op2), '%s.u32.u32.u32.%s.%s {d}, {a}, {b}, {c};' % (op, mode, op2),
                  [('a', 'b32'), ('b', 'b32', ('shift', 32)), ('c', 'b32')], 'secondary .' + op2)
            F('%s_%s_merge_b1' % (op, mode), '%s.u32.u32.u32.%s {d}.b1, {a}.b2, {b}, {c};' % (op, mode),
              [('a', 'b32'), ('b', 'b32', ('shift', 32)), ('c', 'b32')], 'merge form, byte selectors')
    for (dt, at, bt) in (('u32', 'u32', 'u32'), ('s32', 's32', 's32'), ('s32', 'u32', 's32'), ('u32', 's32', 'u32')):
        base = 'vmad.%s.%s.%s' % (dt, at, bt)
        tag = 'vmad_%s%s%s' % (dt[0], at[0], bt[0])
        F(tag, base + ' {d}, {a}, {b}, {c};', abc, base)
        F(tag + '_sel', base + ' {d}, {a}.h1, {b}.b2, {c};', abc, base + ' with selectors')
    F('vmad_sat_s', 'vmad.s32.s32.s32.sat {d}, {a}.h0, {b}.h1, {c};', abc, '.sat')
    F('vmad_shr7', 'vmad.s32.s32.s32.shr7 {d}, {a}.h0, {b}.h1, {c};', abc, '.shr7')
    F('vmad_shr15', 'vmad.u32.u32.u32.shr15 {d}, {a}.h0, {b}.h0, {c};', abc, '.shr15')
    F('vmad_sat_shr15', 'vmad.s32.s32.s32.sat.shr15 {d}, {a}, {b}.h1, {c};', abc, '.sat.shr15')
    F('vmad_neg_a', 'vmad.s32.s32.s32 {d}, -{a}.b0, {b}.b1, {c};', abc, '-a')
    F('vmad_neg_b', 'vmad.s32.u32.u32 {d}, {a}.h0, -{b}.h1, {c};', abc, '-b')
    F('vmad_neg_c', 'vmad.s32.s32.s32 {d}, {a}.h1, {b}.h0, -{c};', abc, '-c')
    F('vmad_po', 'vmad.u32.u32.u32.po {d}, {a}.b0, {b}.b3, {c};', abc, '.po (plus one)')
    F('vmad_po_sat_s', 'vmad.s32.s32.s32.po.sat {d}, {a}.h0, {b}.h0, {c};', abc, '.po.sat')
    for cmp_ in ('eq', 'ne', 'lt', 'le', 'gt', 'ge'):
        for (at, bt) in (('u32', 'u32'), ('s32', 's32'), ('s32', 'u32')):
            F('vset_%s_%s%s' % (cmp_, at[0], bt[0]), 'vset.%s.%s.%s {d}, {a}.b1, {b}.b2;' % (at, bt, cmp_), ab,
              'vset.%s.%s.%s' % (at, bt, cmp_))
    for op2 in ('add', 'min', 'max'):
        F('vset_lt_op2_%s' % op2, 'vset.s32.s32.lt.%s {d}, {a}.h0, {b}.h1, {c};' % op2, abc, 'secondary .' + op2)
    F('vset_ge_merge_b3', 'vset.u32.u32.ge {d}.b3, {a}, {b}, {c};', abc, 'merge form d.b3')
    F('vset_ne_merge_h0', 'vset.s32.u32.ne {d}.h0, {a}.b0, {b}, {c};', abc, 'merge form d.h0')
    return L
