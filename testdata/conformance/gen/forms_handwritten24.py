"""Hand-written PTX forms of issue 24, item 7 (generated into
testdata/conformance/issue24/handwritten).

vecreg: vector registers used whole: `mov.b64 d, v` packing a `.reg .v2 .u32`
(and .v4 .u16, .v2 .f32), `mov.b32 v, x` unpacking into a `.reg .v2 .b16`,
`mov.v4.u16` / `mov.v2.u32` / `mov.v4.f32` between a vector register and a
brace list or another vector register, and vector registers as call
arguments and return values (`.reg .v2 .u32` and `.param .v2 .u32`
parameters).

retpred: several return values where one (or two) is a predicate
(`.func (.reg .u32 s, .reg .pred p) f(...)`, `call (%s, %p), f, (%a);`),
predicate arguments, a `.param` return beside a `.reg .pred` one.

regexpr: a register plus or minus an immediate as a value operand
(`st.global.u64 [a], %rd1 + 1;`, `st.u32 [a], %r1+-1`, in a vector store,
as a `mov`/`add` source).

vec8: 256-bit accesses (`ld/st.global.v8.b32/.f32`, `.v4.b64/.u64/.f64`, with
the sink `_`). The ISA gives them to sm_100 and later: the sm_90 modules
record what ptxas says; run.sh of the recording request also assembles them
for sm_100.

param64: a buffer's address given to an entry's `.s64` and `.b64` parameters
(the GPU takes any 8-byte value there).

Each form's helper functions are its own prelude, so a form ptxas rejects is
dropped alone (its message is kept in forms.json).
"""

from ptxgen import Form, emit_standard
from vectors import rng_for

N = 128


def _rand(form, bits, n=N, name=''):
    R = rng_for('handwritten24', form.id, name)
    edge = {32: [0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFF, 0x10000, 0xFFFFFFFE],
            64: [0, 1, 0xFFFFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFF, 0x100000000,
                 0xFFFF0000FFFF0000]}[bits]
    return [edge[i] if i < len(edge) else R.getrandbits(bits) for i in range(n)]


def _vec(form):
    out = {}
    for (nm, t, _) in form.ins:
        bits = 64 if t in ('u64', 'b64', 'f64', 's64') else 32
        out[nm] = _rand(form, bits, name=nm)
    return out


def _with_decls(decls, emit=None):
    def em(form, ctx):
        ctx.decls = ['\t' + d for d in decls]
        (emit or emit_standard)(form, ctx)
    return em


def _emit_with_addr(form, ctx):
    """Like emit_standard, but the body stores its own results: {pd} (and
    {pd2}) are the addresses of this thread's elements of outputs d (d2), and
    the outputs are not stored again."""
    ctx.prologue(guard=form.guard)
    names = {}
    for (name, t, _) in form.ins:
        names[name] = ctx.load(name, t)
    for (name, t) in form.outs:
        names['p' + name] = ctx.addr(name, t)
    for (name, t) in form.temps:
        names[name] = ctx.reg(t)
    for line in form.body:
        ctx.emit(line.format(**names))


def vecreg_forms():
    L = []

    def F(fid, body, ins, outs, decls, note, opcode='mov', prelude='', temps=()):
        f = Form('vr_' + fid, 'vecreg', body, ins, outs, n=N, vecgen=_vec, kind='ptxform', note=note,
                 opcode=opcode, prelude=prelude.replace('$ID', 'vr_' + fid), temps=temps)
        f.body = [ln.replace('$ID', 'vr_' + fid) for ln in f.body]
        f.emit = _with_decls(decls)
        L.append(f)

    v2u32 = ['.reg .v2 .u32 %x_v;']
    F('pack_b64_v2u32', ['mov.u32 %x_v.x, {a};', 'mov.u32 %x_v.y, {b};', 'mov.b64 {d}, %x_v;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u64')], v2u32, 'mov.b64 d, v: a .v2 .u32 register packed whole (x low)')
    F('unpack_b64_v2u32', ['mov.b64 %x_v, {w};', 'mov.u32 {d}, %x_v.x;', 'mov.u32 {d2}, %x_v.y;'],
      [('w', 'u64')], [('d', 'u32'), ('d2', 'u32')], v2u32, 'mov.b64 v, d: a .b64 unpacked into a .v2 .u32 register')
    F('pack_u64_v2u32', ['mov.u32 %x_v.x, {a};', 'mov.u32 %x_v.y, {b};', 'mov.u64 {d}, %x_v;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u64')], v2u32, 'mov.u64 d, v (an integer type rather than .b64)')
    v2b16 = ['.reg .v2 .b16 %x_h;', '.reg .b16 %x_t;']
    F('unpack_b32_v2b16', ['mov.b32 %x_h, {a};', 'cvt.u32.u16 {d}, %x_h.x;', 'cvt.u32.u16 {d2}, %x_h.y;'],
      [('a', 'u32')], [('d', 'u32'), ('d2', 'u32')], v2b16, 'mov.b32 v, x: a .b32 unpacked into a .v2 .b16 register')
    F('pack_b32_v2b16', ['mov.b32 %x_h, {a};', 'mov.b16 %x_t, %x_h.x;', 'mov.b16 %x_h.x, %x_h.y;',
                         'mov.b16 %x_h.y, %x_t;', 'mov.b32 {d}, %x_h;'],
      [('a', 'u32')], [('d', 'u32')], v2b16, 'mov.b32 v, x then mov.b32 x, v with the halves swapped')
    v4u16 = ['.reg .v4 .u16 %x_q;', '.reg .u16 %x_s<4>;']
    F('pack_b64_v4u16', ['mov.b64 %x_q, {w};', 'add.u16 %x_q.x, %x_q.x, %x_q.w;', 'mov.b16 %x_q.z, %x_q.y;',
                         'mov.b64 {d}, %x_q;'],
      [('w', 'u64')], [('d', 'u64')], v4u16, 'mov.b64 between a .b64 and a .v4 .u16 register, both ways')
    v2f32 = ['.reg .v2 .f32 %x_f;', '.reg .f32 %x_g;']
    F('pack_b64_v2f32', ['mov.b64 %x_f, {w};', 'mov.f32 %x_g, %x_f.x;', 'mov.f32 %x_f.x, %x_f.y;',
                         'mov.f32 %x_f.y, %x_g;', 'mov.b64 {d}, %x_f;'],
      [('w', 'u64')], [('d', 'u64')], v2f32, 'mov.b64 between a .b64 and a .v2 .f32 register, elements swapped')
    v4b8 = ['.reg .v4 .b8 %x_c;']
    F('unpack_b32_v4b8', ['mov.b32 %x_c, {a};', 'cvt.u32.u8 {d}, %x_c.z;', 'mov.b32 {d2}, %x_c;'],
      [('a', 'u32')], [('d', 'u32'), ('d2', 'u32')], v4b8, 'mov.b32 v, x into a .v4 .b8 register (8-bit registers)')
    F('pack_b128_v4u32', ['mov.b64 {{%x_v4.x, %x_v4.y}}, {w};', 'mov.b64 {{%x_v4.z, %x_v4.w}}, {w2};',
                          'mov.b128 %x_o, %x_v4;', 'mov.b128 {{%x_lo, %x_hi}}, %x_o;', 'mov.b64 {d}, %x_hi;',
                          'mov.b64 {d2}, %x_lo;'],
      [('w', 'u64'), ('w2', 'u64')], [('d', 'u64'), ('d2', 'u64')],
      ['.reg .v4 .b32 %x_v4;', '.reg .b128 %x_o;', '.reg .b64 %x_lo, %x_hi;'],
      'mov.b128 d, v: a .v4 .b32 register packed whole into a .b128')
    # mov.vN between vector registers and brace lists
    F('mov_v4u16_from_brace', ['mov.b64 {{%x_s0, %x_s1, %x_s2, %x_s3}}, {w};',
                               'mov.v4.u16 %x_q, {{%x_s3, %x_s2, %x_s1, %x_s0}};',
                               'cvt.u32.u16 {d}, %x_q.x;', 'cvt.u32.u16 {d2}, %x_q.w;'],
      [('w', 'u64')], [('d', 'u32'), ('d2', 'u32')], v4u16, 'mov.v4.u16 v, {a, b, c, d}: a brace list into a vector register')
    F('mov_v4u16_to_brace', ['mov.b64 {{%x_s0, %x_s1, %x_s2, %x_s3}}, {w};', 'mov.u16 %x_q.x, %x_s1;',
                             'mov.u16 %x_q.y, %x_s2;', 'mov.u16 %x_q.z, %x_s3;', 'mov.u16 %x_q.w, %x_s0;',
                             'mov.v4.u16 {{%x_s0, %x_s1, %x_s2, %x_s3}}, %x_q;',
                             'mov.b64 {d}, {{%x_s0, %x_s1, %x_s2, %x_s3}};'],
      [('w', 'u64')], [('d', 'u64')], v4u16, 'mov.v4.u16 {a, b, c, d}, v: a vector register into a brace list')
    F('mov_v2u32_vreg', ['mov.u32 %x_v.x, {a};', 'mov.u32 %x_v.y, {b};', 'mov.v2.u32 %x_w, %x_v;',
                         'add.u32 %x_v.x, %x_v.x, 1;', 'mov.u32 {d}, %x_w.x;', 'mov.u32 {d2}, %x_w.y;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('d2', 'u32')], v2u32 + ['.reg .v2 .u32 %x_w;'],
      'mov.v2.u32 w, v: vector register to vector register (a copy: v changes after)')
    F('mov_v2u32_brace_imm', ['mov.v2.u32 %x_v, {{{a}, 7}};', 'mov.u32 {d}, %x_v.x;', 'mov.u32 {d2}, %x_v.y;'],
      [('a', 'u32')], [('d', 'u32'), ('d2', 'u32')], v2u32, 'mov.v2.u32 v, {a, 7}: an immediate in the brace list')
    F('mov_v4f32_brace', ['mov.b32 %x_a, {a};', 'mov.b32 %x_b, {b};',
                          'mov.v4.f32 %x_vf, {{%x_a, %x_b, %x_b, %x_a}};', 'mov.f32 %x_vf.y, %x_vf.w;',
                          'mov.v4.f32 {{%x_a, %x_b, _, _}}, %x_vf;', 'mov.b32 {d}, %x_a;', 'mov.b32 {d2}, %x_b;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('d2', 'u32')], ['.reg .v4 .f32 %x_vf;', '.reg .f32 %x_a, %x_b;'],
      'mov.v4.f32 both ways, with sinks in the destination list')
    # vector registers as call arguments and return values
    F('call_reg_v2u32', ['mov.u32 %x_v.x, {a};', 'mov.u32 %x_v.y, {b};', 'call (%x_w), f_$ID, (%x_v);',
                         'mov.u32 {d}, %x_w.x;', 'mov.u32 {d2}, %x_w.y;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('d2', 'u32')], v2u32 + ['.reg .v2 .u32 %x_w;'],
      'call (w), f, (v) with .reg .v2 .u32 parameter and return value', opcode='call',
      prelude='.func (.reg .v2 .u32 r) f_$ID(.reg .v2 .u32 x)\n{\n'
              '\tsub.u32 r.x, x.y, x.x;\n\tmov.u32 r.y, x.x;\n\tret;\n}')
    F('call_reg_v4f32_whole', ['mov.b32 %x_vf.x, {a};', 'mov.b32 %x_vf.y, {b};', 'mov.b32 %x_vf.z, {a};',
                               'mov.b32 %x_vf.w, 0;', 'call (%x_vg, %x_r), f_$ID, (%x_vf, {b});',
                               'mov.b32 {d}, %x_vg.x;', 'mov.b32 {d2}, %x_vg.w;', 'mov.b32 {d3}, %x_r;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('d2', 'u32'), ('d3', 'u32')],
      ['.reg .v4 .f32 %x_vf, %x_vg;', '.reg .b32 %x_r;'],
      'a .reg .v4 .f32 argument used whole in the callee (mov.v4.f32), a vector and a scalar return',
      opcode='call',
      prelude='.func (.reg .v4 .f32 r, .reg .b32 s) f_$ID(.reg .v4 .f32 x, .reg .b32 k)\n{\n'
              '\tmov.v4.f32 r, x;\n\tmov.b32 r.w, k;\n\tmov.b32 s, x.y;\n\tret;\n}')
    F('call_param_v2u32_vreg', ['mov.u32 %x_v.x, {a};', 'mov.u32 %x_v.y, {b};', 'call (%x_w), f_$ID, (%x_v);',
                                'mov.u32 {d}, %x_w.x;', 'mov.u32 {d2}, %x_w.y;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('d2', 'u32')], v2u32 + ['.reg .v2 .u32 %x_w;'],
      'call (w), f, (v) with vector registers for .param .v2 .u32 parameters', opcode='call',
      prelude='.func (.param .v2 .u32 r) f_$ID(.param .v2 .u32 x)\n{\n\t.reg .u32 %t<2>;\n'
              '\tld.param.v2.u32 {%t0, %t1}, [x];\n\tst.param.v2.u32 [r], {%t1, %t0};\n\tret;\n}')
    F('call_param_b64_vreg', ['mov.u32 %x_v.x, {a};', 'mov.u32 %x_v.y, {b};',
                              '{{', '.param .b64 pa;', '.param .b64 pr;', 'st.param.v2.b32 [pa], %x_v;',
                              'call (pr), f_$ID, (pa);', 'ld.param.v2.b32 %x_w, [pr];', '}}',
                              'mov.u32 {d}, %x_w.x;', 'mov.u32 {d2}, %x_w.y;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('d2', 'u32')], v2u32 + ['.reg .v2 .u32 %x_w;'],
      'control: the nvcc ABI, vector registers stored to and loaded from .param .b64 slots', opcode='call',
      prelude='.func (.param .b64 r) f_$ID(.param .b64 x)\n{\n\t.reg .b64 %t;\n\t.reg .b32 %u<2>;\n'
              '\tld.param.b64 %t, [x];\n\tmov.b64 {%u0, %u1}, %t;\n\tmov.b64 %t, {%u1, %u0};\n'
              '\tst.param.b64 [r], %t;\n\tret;\n}')
    return L


def retpred_forms():
    L = []

    def F(fid, body, ins, outs, decls, note, prelude):
        f = Form('rp_' + fid, 'retpred', body, ins, outs, n=N, vecgen=_vec, kind='ptxform', note=note,
                 opcode='call', prelude=prelude.replace('$ID', 'rp_' + fid))
        f.body = [ln.replace('$ID', 'rp_' + fid) for ln in f.body]
        f.emit = _with_decls(decls)
        L.append(f)

    F('sum_and_pred', ['call (%x_s, %x_p), f_$ID, ({a}, {b});', 'mov.u32 {d}, %x_s;', 'mov.pred {q}, %x_p;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('q', 'pred')], ['.reg .u32 %x_s;', '.reg .pred %x_p;'],
      'two .reg return values, the second a predicate (add.cc carry out as a predicate)',
      '.func (.reg .u32 s, .reg .pred p) f_$ID(.reg .u32 a, .reg .u32 b)\n{\n'
      '\tadd.u32 s, a, b;\n\tsetp.lt.u32 p, s, a;\n\tret;\n}')
    F('pred_first', ['call (%x_p, %x_s, %x_q), f_$ID, ({a});', 'mov.u32 {d}, %x_s;', 'mov.pred {q}, %x_p;',
                     'mov.pred {q2}, %x_q;'],
      [('a', 'u32')], [('d', 'u32'), ('q', 'pred'), ('q2', 'pred')], ['.reg .u32 %x_s;', '.reg .pred %x_p, %x_q;'],
      'three .reg return values: predicate, value, predicate',
      '.func (.reg .pred p, .reg .u32 s, .reg .pred q) f_$ID(.reg .u32 a)\n{\n'
      '\tand.b32 s, a, 255;\n\tsetp.gt.u32 p, s, 127;\n\tsetp.eq.u32 q, a, 0;\n\tret;\n}')
    F('pred_arg', ['setp.lt.u32 %x_c, {a}, {b};', 'call (%x_s, %x_p), f_$ID, ({a}, %x_c);', 'mov.u32 {d}, %x_s;',
                   'mov.pred {q}, %x_p;'],
      [('a', 'u32'), ('b', 'u32')], [('d', 'u32'), ('q', 'pred')], ['.reg .u32 %x_s;', '.reg .pred %x_p, %x_c;'],
      'a predicate argument and a predicate return value',
      '.func (.reg .u32 s, .reg .pred p) f_$ID(.reg .u32 a, .reg .pred c)\n{\n'
      '\tselp.u32 s, a, 12345, c;\n\tnot.pred p, c;\n\tret;\n}')
    F('param_and_pred', ['{{', '.param .b32 pr;', 'call (pr, %x_p), f_$ID, ({a});', 'ld.param.b32 %x_s, [pr];', '}}',
                         'mov.u32 {d}, %x_s;', 'mov.pred {q}, %x_p;'],
      [('a', 'u32')], [('d', 'u32'), ('q', 'pred')], ['.reg .u32 %x_s;', '.reg .pred %x_p;'],
      'a .param return value beside a .reg .pred one',
      '.func (.param .b32 r, .reg .pred p) f_$ID(.reg .u32 a)\n{\n\t.reg .u32 %t;\n'
      '\tshr.u32 %t, a, 3;\n\tst.param.b32 [r], %t;\n\tsetp.ne.u32 p, %t, 0;\n\tret;\n}')
    return L


def regexpr_forms():
    L = []

    def F(fid, body, ins, outs, note, opcode, std=False, temps=()):
        f = Form('re_' + fid, 'regexpr', body, ins, outs, n=N, vecgen=_vec, kind='ptxform', note=note,
                 opcode=opcode, temps=temps)
        if not std:
            f.emit = _emit_with_addr
        L.append(f)

    F('st_u64_plus1', 'st.global.u64 [{pd}], {w} + 1;', [('w', 'u64')], [('d', 'u64')],
      'st.u64 [a], r + 1: a register plus an immediate as the stored value', 'st')
    F('st_u64_plus1_nospace', 'st.global.u64 [{pd}], {w}+1;', [('w', 'u64')], [('d', 'u64')],
      'st.u64 [a], r+1 (no spaces)', 'st')
    F('st_u32_plus1', 'st.global.u32 [{pd}], {a} + 1;', [('a', 'u32')], [('d', 'u32')],
      'st.u32 [a], r + 1 (wraps at 2^32)', 'st')
    F('st_u32_plus_neg', 'st.global.u32 [{pd}], {a}+-1;', [('a', 'u32')], [('d', 'u32')],
      'st.u32 [a], r+-1', 'st')
    F('st_u32_minus', 'st.global.u32 [{pd}], {a} - 3;', [('a', 'u32')], [('d', 'u32')],
      'st.u32 [a], r - 3', 'st')
    F('st_u32_plus_big', 'st.global.u32 [{pd}], {a} + 0x7FFFFFFF;', [('a', 'u32')], [('d', 'u32')],
      'st.u32 [a], r + 0x7FFFFFFF', 'st')
    F('st_u64_plus_big', 'st.global.u64 [{pd}], {w} + 0x100000000;', [('w', 'u64')], [('d', 'u64')],
      'st.u64 [a], r + 2^32 (a 64-bit immediate)', 'st')
    F('st_u16_plus1', ['cvt.u16.u32 {h}, {a};', 'st.global.u16 [{pd}], {h} + 1;'], [('a', 'u32')], [('d', 'u16')],
      'st.u16 [a], r + 1 with a .b16 register', 'st', temps=[('h', 'b16')])
    F('st_u32_v2', 'st.global.v2.u32 [{pd}], {{{a} + 1, {b} - 1}};', [('a', 'u32'), ('b', 'u32')], [('d', 'u64')],
      'st.v2.u32 [a], {r + 1, s - 1}: expressions in a vector store', 'st')
    F('st_u64_from_u32', ['cvt.u64.u32 {x}, {a};', 'st.global.u64 [{pd}], {x} + -1;'], [('a', 'u32')], [('d', 'u64')],
      'st.u64 [a], r + -1 with r zero-extended from 32 bits (borrows into the high word)', 'st',
      temps=[('x', 'b64')])
    F('mov_plus1', 'mov.u32 {d}, {a} + 1;', [('a', 'u32')], [('d', 'u32')],
      'mov.u32 d, r + 1: a register expression as a mov source', 'mov', std=True)
    F('add_src_plus', 'add.u32 {d}, {a} + 4, {b};', [('a', 'u32'), ('b', 'u32')], [('d', 'u32')],
      'add.u32 d, r + 4, s: a register expression as an arithmetic source', 'add', std=True)
    F('cvt_wide', 'cvt.u64.u32 {d}, {a} + 1;', [('a', 'u32')], [('d', 'u64')],
      'cvt.u64.u32 d, r + 1: is the sum taken at 32 bits (0xFFFFFFFF + 1 = 0) or wider?', 'cvt', std=True)
    F('mul_wide', 'mul.wide.u32 {d}, {a} + 1, 3;', [('a', 'u32')], [('d', 'u64')],
      'mul.wide.u32 d, r + 1, 3: the width of the sum under a widening multiply', 'mul', std=True)
    F('setp_src', 'setp.eq.u32 {q}, {a} + 1, 0;', [('a', 'u32')], [('q', 'pred')],
      'setp.eq.u32 p, r + 1, 0 (true where r = 0xFFFFFFFF if the sum wraps at 32 bits)', 'setp', std=True)
    return L


def vec8_forms():
    """256-bit accesses: each thread loads 8 (4 for 64-bit types) elements
    of a and stores them, permuted, to d."""
    L = []

    def F(fid, body, et, n_el, note, opcode, temps, decls=(), d_init=False):
        f = Form('v8_' + fid, 'vec8', body, [], [], n=N, vecgen=None, kind='ptxform', note=note,
                 opcode=opcode, temps=temps)
        f.bufs = [('d', et, n_el * N, 'out'), ('a', et, n_el * N, 'in')]
        bits = 64 if et in ('u64', 'f64', 'b64', 's64') else 32
        f.vecgen = (lambda form, n_el=n_el, bits=bits: {'a': _rand(form, bits, n_el * N)})
        f.emit = _emit_vec8(n_el, et, decls)
        L.append(f)

    r8 = [('r%d' % i, 'b32') for i in range(8)]
    r4 = [('r%d' % i, 'b64') for i in range(4)]
    F('ld_st_b32', ['ld.global.v8.b32 {{{r0}, {r1}, {r2}, {r3}, {r4}, {r5}, {r6}, {r7}}}, [{pa}];',
                    'st.global.v8.b32 [{pd}], {{{r7}, {r6}, {r5}, {r4}, {r3}, {r2}, {r1}, {r0}}};'],
      'u32', 8, 'ld/st.global.v8.b32 (reversed)', 'ld.global.v8.b32', r8)
    F('ld_st_f32', ['ld.global.v8.f32 {{{r0}, {r1}, {r2}, {r3}, {r4}, {r5}, {r6}, {r7}}}, [{pa}];',
                    'st.global.v8.f32 [{pd}], {{{r1}, {r0}, {r3}, {r2}, {r5}, {r4}, {r7}, {r6}}};'],
      'u32', 8, 'ld/st.global.v8.f32', 'ld.global.v8.f32', r8)
    F('ld_st_u64', ['ld.global.v4.u64 {{{r0}, {r1}, {r2}, {r3}}}, [{pa}];',
                    'st.global.v4.u64 [{pd}], {{{r3}, {r2}, {r1}, {r0}}};'],
      'u64', 4, 'ld/st.global.v4.u64', 'ld.global.v4.u64', r4)
    F('ld_st_f64', ['ld.global.v4.f64 {{{r0}, {r1}, {r2}, {r3}}}, [{pa}];',
                    'st.global.v4.f64 [{pd}], {{{r1}, {r0}, {r3}, {r2}}};'],
      'u64', 4, 'ld/st.global.v4.f64', 'ld.global.v4.f64', r4)
    F('ld_sink', ['mov.b32 {r1}, 0;', 'mov.b32 {r6}, 0;',
                  'ld.global.v8.u32 {{{r0}, _, {r2}, {r3}, {r4}, {r5}, _, {r7}}}, [{pa}];',
                  'st.global.v8.u32 [{pd}], {{{r0}, {r1}, {r2}, {r3}, {r4}, {r5}, {r6}, {r7}}};'],
      'u32', 8, 'ld.global.v8.u32 with sinks (the skipped elements stay 0)', 'ld.global.v8.u32', r8)
    F('st_sink', ['ld.global.v8.u32 {{{r0}, {r1}, {r2}, {r3}, {r4}, {r5}, {r6}, {r7}}}, [{pa}];',
                  'st.global.v8.u32 [{pd}], {{{r0}, _, {r2}, _, {r4}, {r5}, _, {r7}}};'],
      'u32', 8, 'st.global.v8.u32 with sinks (those elements of d keep their zeros)', 'st.global.v8.u32', r8)
    F('nc', ['ld.global.nc.v8.f32 {{{r0}, {r1}, {r2}, {r3}, {r4}, {r5}, {r6}, {r7}}}, [{pa}];',
               'st.global.v8.f32 [{pd}], {{{r4}, {r5}, {r6}, {r7}, {r0}, {r1}, {r2}, {r3}}};'],
      'u32', 8, 'ld.global.nc.v8.f32', 'ld.global.nc.v8.f32', r8)
    F('ld_sink64', ['mov.b64 {r1}, 0;', 'mov.b64 {r3}, 0;',
                    'ld.global.v4.b64 {{{r0}, _, {r2}, _}}, [{pa}];',
                    'st.global.v4.b64 [{pd}], {{{r0}, {r1}, {r2}, {r3}}};'],
      'u64', 4, 'ld.global.v4.b64 with sinks', 'ld.global.v4.b64', r4)
    F('generic', ['ld.v8.s32 {{{r0}, {r1}, {r2}, {r3}, {r4}, {r5}, {r6}, {r7}}}, [{ga}];',
                  'st.v8.s32 [{gd}], {{{r2}, {r3}, {r0}, {r1}, {r6}, {r7}, {r4}, {r5}}};'],
      'u32', 8, 'generic ld/st.v8.s32 (addresses in global memory)', 'ld.v8.s32', r8)
    F('vreg_v8', ['ld.global.v4.u64 %x_v, [{pa}];', 'st.global.v4.u64 [{pd}], %x_v;'],
      'u64', 4, 'ld/st.global.v4.u64 with a .reg .v4 .u64 register', 'ld.global.v4.u64', [],
      decls=['.reg .v4 .u64 %x_v;'])
    F('shared_v8', ['ld.global.v8.b32 {{{r0}, {r1}, {r2}, {r3}, {r4}, {r5}, {r6}, {r7}}}, [{pa}];',
                    'st.shared.v8.b32 [{ps}], {{{r0}, {r1}, {r2}, {r3}, {r4}, {r5}, {r6}, {r7}}};',
                    'ld.shared.v8.b32 {{{r7}, {r6}, {r5}, {r4}, {r3}, {r2}, {r1}, {r0}}}, [{ps}];',
                    'st.global.v8.b32 [{pd}], {{{r0}, {r1}, {r2}, {r3}, {r4}, {r5}, {r6}, {r7}}};'],
      'u32', 8, 'ld/st.shared.v8.b32 (the ISA gives .v8 to .global only)', 'st.shared.v8.b32', r8)
    return L


def _emit_vec8(n_el, et, decls):
    def em(form, ctx):
        ctx.decls = ['\t' + d for d in decls]
        if form.id == 'v8_shared_v8':
            ctx.decls.append('\t.shared .align 32 .b8 sh_v8_shared_v8[%d];' % (32 * 128))
        ctx.prologue(guard=form.guard)
        names = {}
        esz = 8 if et in ('u64', 'f64') else 4
        for (name, t) in form.temps:
            names[name] = ctx.reg(t)
        for buf in ('a', 'd'):
            base = ctx.base_of(buf)
            p = ctx.regs.new(64)
            ctx.emit('mad.wide.u32 %s, %s, %d, %s;' % (p, ctx.gtid, esz * n_el, base))
            names['p' + buf] = p
            g = ctx.regs.new(64)
            ctx.emit('cvta.global.u64 %s, %s;' % (g, p))
            names['g' + buf] = g
        if form.id == 'v8_shared_v8':
            s = ctx.regs.new(32)
            ctx.emit('mov.u32 %s, sh_v8_shared_v8;' % s)
            ctx.emit('mad.lo.u32 %s, %s, 32, %s;' % (s, ctx.tidx, s))
            names['ps'] = s
        for line in form.body:
            ctx.emit(line.format(**names))
    return em


def param64_forms():
    """An entry whose buffer parameters are .s64 or .b64: the launch gives
    them device addresses."""
    L = []

    def F(fid, types, body, note):
        f = Form('p64_' + fid, 'param64', body, [('a', 'u32')], [('d', 'u32')], n=N, vecgen=_vec, kind='ptxform',
                 note=note, opcode='ld.param')
        f.param_types = types
        L.append(f)

    F('s64', {'d': '.s64', 'a': '.s64'}, 'xor.b32 {d}, {a}, 0x5A5A5A5A;', '.param .s64 buffer parameters')
    F('b64', {'d': '.b64', 'a': '.b64'}, 'add.u32 {d}, {a}, 0x01010101;', '.param .b64 buffer parameters')
    F('mixed', {'d': '.b64', 'a': '.s64'}, 'not.b32 {d}, {a};', 'a .b64 output and an .s64 input parameter')
    return L
