"""Carry-flag matrix ('carry'): every producer of CC.CF against every
consumer, on the GPU.

Producers: add.cc, sub.cc, addc.cc, subc.cc, mad.lo.cc, mad.hi.cc,
madc.lo.cc, madc.hi.cc; consumers: addc, subc, madc.lo, madc.hi; types
u32, s32, u64, s64 (producer and consumer of one type), plus mixed widths
(a 32-bit producer feeding a 64-bit consumer and back) and three-step
chains. The carry-in of the carry-consuming producers is set from input ci
(0 or 1) by `add.cc t, ci, -1` (CF = ci). Outputs: d1 = the producer's
result, d2 = the consumer's result, which shows the CF the producer left
(for sub.cc the GPU leaves the carry out of a + ~b + 1, i.e. NOT borrow).
"""

from ptxgen import Form
from vectors import rng_for

N = 128
PRODUCERS = ['add.cc', 'sub.cc', 'addc.cc', 'subc.cc', 'mad.lo.cc', 'mad.hi.cc', 'madc.lo.cc', 'madc.hi.cc']
CONSUMERS = ['addc', 'subc', 'madc.lo', 'madc.hi']
TYPES = ['u32', 's32', 'u64', 's64']


def _w(t):
    return int(t[1:])


def _form(fid, ptype, ctype, prod, cons, chain=None):
    tp, tc = ptype, ctype
    p_mad = prod.startswith('mad')
    c_mad = cons.startswith('mad')
    p_ci = prod.startswith(('addc', 'subc', 'madc'))
    ins = [('a', tp), ('b', tp)] + ([('c', tp)] if p_mad else [])
    if p_ci:
        ins.append(('ci', tp, 'carry'))
    ins += [('x', tc), ('y', tc)] + ([('z', tc)] if c_mad else [])
    body = []
    temps = []
    if p_ci:
        body += ['mov.b%d {m1}, -1;' % _w(tp), 'add.cc.%s {tt}, {ci}, {m1};' % tp]
        temps += [('m1', tp), ('tt', tp)]
    body.append('%s.%s {d1}, {a}, {b}%s;' % (prod, tp, ', {c}' if p_mad else ''))
    if chain:
        body.append('%s.%s {d3}, {a}, {y};' % (chain, tp))
    body.append('%s.%s {d2}, {x}, {y}%s;' % (cons, tc, ', {z}' if c_mad else ''))
    outs = [('d1', tp), ('d2', tc)] + ([('d3', tp)] if chain else [])

    def vec(form, ins=ins, tp=tp):
        R = rng_for('carryvec', form.id)
        names = [i[0] for i in ins]
        w = {i[0]: _w(i[1]) for i in ins}
        cols = {nm: [] for nm in names}
        m = {nm: (1 << w[nm]) - 1 for nm in names}
        edges = {nm: [0, 1, 2, m[nm], m[nm] - 1, (m[nm] >> 1) + 1, m[nm] >> 1, (m[nm] >> 1) + 2,
                      1 << (w[nm] // 2), (1 << (w[nm] // 2)) - 1] for nm in names}
        pairs = [(x, y) for x in edges['a'] for y in edges['b']]
        R.shuffle(pairs)

        def rnd(nm):
            k = R.randrange(4)
            if k == 0:
                return R.choice(edges[nm])
            if k == 1:
                return R.getrandbits(w[nm])
            if k == 2:
                return R.getrandbits(w[nm] // 2)
            return (m[nm] - R.getrandbits(8)) & m[nm]
        for i in range(N):
            if i < len(pairs) and i < N // 2:
                a, b = pairs[i]
            else:
                a = rnd('a')
                k = R.randrange(3)
                b = a if k == 0 else ((m['a'] - a + R.randrange(3) - 1) & m['a'] if k == 1 else rnd('b'))
            row = {'a': a, 'b': b}
            for nm in names:
                if nm == 'ci':
                    row[nm] = (i >> 1) & 1
                elif nm not in row:
                    row[nm] = rnd(nm)
            for nm in names:
                cols[nm].append(row[nm])
        return cols

    return Form(fid, 'carry', body, ins, outs, temps=temps, n=N, vecgen=vec, kind='carry',
                opcode=prod, note='CC.CF from %s.%s read by %s.%s%s' % (
                    prod, tp, cons, tc, (' through %s' % chain) if chain else ''))


def carry_forms():
    L = []
    for t in TYPES:
        for prod in PRODUCERS:
            for cons in CONSUMERS:
                fid = 'cc_%s_%s_%s' % (prod.replace('.', '_'), cons.replace('.', '_'), t)
                L.append(_form(fid, t, t, prod, cons))
    # mixed widths: the flag is one bit, whatever the width that set it
    for tp, tc in (('u32', 'u64'), ('u64', 'u32'), ('s32', 's64'), ('s64', 's32')):
        for prod in ('add.cc', 'sub.cc'):
            for cons in ('addc', 'subc'):
                fid = 'cc_%s_%s_%s_to_%s' % (prod.replace('.', '_'), cons, tp, tc)
                L.append(_form(fid, tp, tc, prod, cons))
    # three-step chains: the middle instruction consumes and produces CF
    for t in ('u32', 'u64'):
        for prod, mid, cons in (('sub.cc', 'subc.cc', 'subc'), ('sub.cc', 'addc.cc', 'addc'),
                                ('add.cc', 'subc.cc', 'subc'), ('mad.lo.cc', 'madc.hi.cc', 'addc'),
                                ('add.cc', 'addc.cc', 'subc')):
            fid = 'cc_chain_%s_%s_%s_%s' % (prod.replace('.', '_'), mid.replace('.', '_'), cons, t)
            f = _form(fid, t, t, prod, cons, chain=None)
            # the middle step between producer and consumer
            mid_line = '%s.%s {d3}, {a}, {y}%s;' % (mid, t, ', {b}' if mid.startswith('mad') else '')
            f.body.insert(len(f.body) - 1, mid_line)
            f.outs.append(('d3', t))
            f.note += ' through %s.%s' % (mid, t)
            L.append(f)
    return L
