"""Form model and PTX entry emission for the conformance suite.

A Form is one instruction form under test.  Its PTX entry reads each input
from a .u64 buffer parameter at index = global thread id, applies the form,
and writes each output at the same index.  Predicate operands travel as u32
0/1 (loaded with setp.ne, stored with selp).  Entries needing more than this
(warp-level forms under a partial mask, atomics on shared memory, carry
chains) supply extra lines through hooks on the Form.
"""

from vectors import tbits, elem_bytes

PTX_VERSION = '8.5'
PTX_TARGET = 'sm_90'

REG_PREFIX = {1: 'p', 16: 'h', 32: 'r', 64: 'rd', 128: 'q'}
REG_DECL = {'p': '.pred', 'h': '.b16', 'r': '.b32', 'rd': '.b64', 'q': '.b128'}


def regbits(t):
    """Register width used to hold a value of type t."""
    if t == 'pred':
        return 1
    b = tbits(t)
    return 16 if b == 8 else b


LD = {8: None, 16: 'b16', 32: 'b32', 64: 'b64'}


def ld_suffix(t):
    if t == 'u8':
        return 'u8'
    if t == 's8':
        return 's8'
    return LD[tbits(t)] if t != 'pred' else 'u32'


def st_suffix(t):
    if tbits(t) == 8:
        return 'u8'
    return LD[tbits(t)] if t != 'pred' else 'b32'


class Regs:
    def __init__(self):
        self.count = {}

    def new(self, bits):
        p = REG_PREFIX[bits]
        i = self.count.get(p, 0)
        self.count[p] = i + 1
        return '%%%s%d' % (p, i)

    def decls(self):
        out = []
        for p in ('p', 'h', 'r', 'rd', 'q'):
            if self.count.get(p):
                out.append('\t.reg %s %%%s<%d>;' % (REG_DECL[p], p, self.count[p]))
        return out


class Form:
    """One instruction form.

    id       entry name (also the case directory name)
    family   module name
    body     PTX lines with {name} placeholders for operands and temps
    ins      list of (name, type) or (name, type, domain)
    outs     list of (name, type)
    temps    list of (name, type) scratch registers
    n        number of vectors (lanes)
    mask     None, or a 32-bit member mask: lanes outside branch around body
    approx   True for forms whose results the ISA only bounds
    tol      tolerance dict for approximate forms
    vecgen   optional callable(form) -> dict name -> list of raw ints
    extra    dict of extra vector rows for default generation
    kind     'lane' (default), 'warp', 'atom_own', 'atom_cont', ... (informational)
    prelude  module-scope PTX emitted just before this form's entry (helper
             .func definitions, .shared/.const variables); it belongs to the
             form, so a ptxas error in it drops only this form
    record_error  True: a launch that fails (CUDA error) or hangs is this
             form's expected result, recorded as expected/ERROR
    hang_risk     0, 1 (may hang the GPU) or 2 (likely to): forms run in that
             order, and hang-prone ones are skipped once the run has seen
             --max-hangs hangs
    """

    def __init__(self, fid, family, body, ins, outs, temps=(), n=256, mask=None,
                 approx=False, tol=None, vecgen=None, extra=None, kind='lane',
                 emit=None, bufs=None, note=None, guard=True, opcode=None, prelude='',
                 record_error=False, hang_risk=False):
        self.id = fid
        self.family = family
        self.body = [body] if isinstance(body, str) else list(body)
        self.ins = [tuple(x) + (None,) * (3 - len(x)) for x in ins]
        self.outs = list(outs)
        self.temps = list(temps)
        self.n = n
        self.mask = mask
        self.approx = approx
        self.tol = tol
        self.vecgen = vecgen
        self.extra = extra
        self.kind = kind
        self.emit = emit          # custom emitter: emit(form, ctx) -> lines
        self.bufs = bufs          # custom buffer list for custom emitters
        self.note = note
        self.guard = guard
        self.opcode = opcode
        self.prelude = prelude
        self.record_error = record_error
        self.hang_risk = hang_risk

    def out_format(self):
        for (_, t) in self.outs:
            for k in ('bf16', 'f16', 'f32', 'f64'):
                if t.startswith(k):
                    return k
        return None

    def spec_tolerance(self):
        """The ISA error bound turned into the {"ulp": N, "abs": X} the ptxvm spec
        loader takes, as an allowance on |VM result - GPU result|: ULP bounds get
        +1 unless stated against the correctly rounded result; relative bounds r
        become ceil(r * 2^p) + 1 ulps (p = significand bits); absolute bounds get
        half an ulp of 1.0 added."""
        if not self.approx:
            return None
        import math
        p = {'f16': 11, 'bf16': 8, 'f32': 24, 'f64': 53}[self.out_format()]
        isa = self.tol or {}
        ulp, ab = 0, 0.0
        if 'ulp' in isa:
            ulp = isa['ulp'] + (0 if isa.get('from_correctly_rounded') else 1)
        if 'rel' in isa:
            ulp = max(ulp, int(math.ceil(isa['rel'] * 2 ** p)) + 1)
        if 'abs' in isa:
            ab = isa['abs'] + 2.0 ** -p
        out = {}
        if ulp:
            out['ulp'] = ulp
        if ab:
            out['abs'] = ab
        return out

    # symbolic text of the instruction(s) under test
    def ptx_text(self):
        names = {}
        for x in self.ins:
            names[x[0]] = x[0]
        for x in self.outs:
            names[x[0]] = x[0]
        for x in self.temps:
            names[x[0]] = x[0]
        out = []
        for line in self.body:
            try:
                out.append(line.format(**names).strip())
            except (KeyError, IndexError, ValueError):
                out.append(line.strip())
        return '\n'.join(out)

    def main_opcode(self):
        if self.opcode:
            return self.opcode
        # the first body line that is not carry/setup scaffolding
        for line in self.body:
            s = line.strip()
            if s.startswith('//') or not s:
                continue
            return s.split()[0]
        return ''

    def buffers(self):
        """(name, type, element count, role) in parameter order: outputs then inputs."""
        if self.bufs is not None:
            return self.bufs
        b = [(name, t, self.n, 'out') for (name, t) in self.outs]
        b += [(name, t, self.n, 'in') for (name, t, _) in self.ins]
        return b


class Ctx:
    """Emission context for one entry."""

    def __init__(self, form):
        self.form = form
        self.regs = Regs()
        self.lines = []
        self.base = {}

    def emit(self, s):
        self.lines.append('\t' + s)

    def label(self, s):
        self.lines.append(s + ':')

    def reg(self, t_or_bits):
        bits = t_or_bits if isinstance(t_or_bits, int) else regbits(t_or_bits)
        return self.regs.new(bits)

    def prologue(self, guard=True):
        r_ctaid, r_ntid, r_tid, r_g = (self.regs.new(32) for _ in range(4))
        self.tidx = r_tid
        self.ctaid = r_ctaid
        self.gtid = r_g
        self.emit('mov.u32 %s, %%ctaid.x;' % r_ctaid)
        self.emit('mov.u32 %s, %%ntid.x;' % r_ntid)
        self.emit('mov.u32 %s, %%tid.x;' % r_tid)
        self.emit('mad.lo.s32 %s, %s, %s, %s;' % (r_g, r_ctaid, r_ntid, r_tid))
        if guard:
            r_n = self.regs.new(32)
            p = self.regs.new(1)
            self.emit('ld.param.u32 %s, [p_n];' % r_n)
            self.emit('setp.ge.u32 %s, %s, %s;' % (p, r_g, r_n))
            self.emit('@%s bra $L_end;' % p)

    def base_of(self, buf):
        if buf not in self.base:
            r = self.regs.new(64)
            t = getattr(self.form, 'param_types', {}).get(buf, '.u64')
            self.emit('ld.param%s %s, [p_%s];' % (t, r, buf))
            self.emit('cvta.to.global.u64 %s, %s;' % (r, r))
            self.base[buf] = r
        return self.base[buf]

    def addr(self, buf, t, index=None):
        base = self.base_of(buf)
        a = self.regs.new(64)
        self.emit('mad.wide.u32 %s, %s, %d, %s;' % (a, index or self.gtid, elem_bytes(t), base))
        return a

    def load(self, buf, t, index=None):
        a = self.addr(buf, t, index)
        if t == 'pred':
            r = self.regs.new(32)
            p = self.regs.new(1)
            self.emit('ld.global.u32 %s, [%s];' % (r, a))
            self.emit('setp.ne.u32 %s, %s, 0;' % (p, r))
            return p
        if tbits(t) == 128:
            lo, hi, q = self.regs.new(64), self.regs.new(64), self.regs.new(128)
            self.emit('ld.global.v2.u64 {%s, %s}, [%s];' % (lo, hi, a))
            self.emit('mov.b128 %s, {%s, %s};' % (q, lo, hi))
            return q
        r = self.reg(t)
        self.emit('ld.global.%s %s, [%s];' % (ld_suffix(t), r, a))
        return r

    def store(self, buf, t, r, index=None):
        a = self.addr(buf, t, index)
        if tbits(t) == 128:
            lo, hi = self.regs.new(64), self.regs.new(64)
            self.emit('mov.b128 {%s, %s}, %s;' % (lo, hi, r))
            self.emit('st.global.v2.u64 [%s], {%s, %s};' % (a, lo, hi))
            return
        self.emit('st.global.%s [%s], %s;' % (st_suffix(t), a, r))


SENTINEL = {16: '0xDEAD', 32: '0xDEADBEEF', 64: '0xDEADBEEFDEADBEEF'}


def emit_standard(form, ctx):
    ctx.prologue(guard=form.guard)
    names = {}
    for (name, t, _) in form.ins:
        names[name] = ctx.load(name, t)
    outregs = {}
    for (name, t) in form.outs:
        r = ctx.reg(t)
        names[name] = r
        if t == 'pred':
            outregs[name] = ctx.regs.new(32)
    for (name, t) in form.temps:
        names[name] = ctx.reg(t)
    if form.mask is not None:
        lane = ctx.regs.new(32)
        bit = ctx.regs.new(32)
        pskip = ctx.regs.new(1)
        names['lane'] = lane
        ctx.emit('mov.u32 %s, %%laneid;' % lane)
        for (name, t) in form.outs:
            r = outregs.get(name, names[name])
            w = 32 if t == 'pred' else regbits(t)
            ctx.emit('mov.b%d %s, %s;' % (w, r, SENTINEL[w]))
        ctx.emit('mov.u32 %s, %%lanemask_eq;' % bit)
        ctx.emit('and.b32 %s, %s, 0x%08X;' % (bit, bit, form.mask))
        ctx.emit('setp.eq.u32 %s, %s, 0;' % (pskip, bit))
        ctx.emit('@%s bra $L_skip;' % pskip)
    for line in form.body:
        ctx.emit(line.format(**names))
    for (name, t) in form.outs:
        if t == 'pred':
            ctx.emit('selp.u32 %s, 1, 0, %s;' % (outregs[name], names[name]))
    if form.mask is not None:
        ctx.label('$L_skip')
    for (name, t) in form.outs:
        if t == 'pred':
            ctx.store(name, 'u32', outregs[name])
        else:
            ctx.store(name, t, names[name])


def emit_entry(form):
    """Returns the PTX text of the entry for form."""
    ctx = Ctx(form)
    (form.emit or emit_standard)(form, ctx)
    ptypes = getattr(form, 'param_types', {})
    params = ['\t.param %s p_%s' % (ptypes.get(b[0], '.u64'), b[0]) for b in form.buffers()]
    params.append('\t.param .u32 p_n')
    head = ['.visible .entry %s(' % form.id, ',\n'.join(params), ')', '{']
    body = ctx.regs.decls() + getattr(ctx, 'decls', []) + [''] + ctx.lines + ['$L_end:', '\tret;', '}', '']
    pre = [form.prelude.rstrip('\n')] if form.prelude else []
    return '\n'.join(pre + head + body)


def module_header(extra=''):
    """The module's first lines; a family whose extra PTX starts with a
    '.version X' line gets that PTX version instead of PTX_VERSION."""
    version = PTX_VERSION
    if extra.startswith('.version '):
        first, _, extra = extra.partition('\n')
        version = first.split()[1]
    return ('//\n// ptxvm conformance suite; generated by testdata/conformance/gen/gen.py. Do not edit.\n//\n'
            '.version %s\n.target %s\n.address_size 64\n%s\n' % (version, PTX_TARGET, extra))


def emit_module(forms, header_extra=''):
    """Returns (text, {form_id: (first_line, last_line)}) with 1-based lines."""
    parts = [module_header(header_extra)]
    line = parts[0].count('\n') + 1
    spans = {}
    for f in forms:
        txt = emit_entry(f)
        nl = txt.count('\n')
        spans[f.id] = (line, line + nl)
        parts.append(txt + '\n')
        line += nl + 1
    return ''.join(parts), spans
