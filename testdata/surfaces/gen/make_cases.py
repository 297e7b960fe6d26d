#!/usr/bin/env python3
"""make_cases.py RESULTS — turn a recording of surf.cu (run.sh's output
folder) into corpus cases under testdata/surfaces: ptx/surf.{O3,G}.ptx and
cases/<launch>/{inputs,O3,G}/ with spec.json and expected/ (the GPU's
outputs). Launches the GPU did not complete are left out. Standard library
only (no numpy)."""
import json, os, re, shutil, struct, subprocess, sys

res = sys.argv[1]
# --model: expected outputs from model_surf (the PTX ISA's rules, written
# independently of the VM) instead of the recording's, for a recording whose
# kernels did not run.
MODEL = '--model' in sys.argv[2:]
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
N = 256

def entries(ptx):
    names = re.findall(r'\.entry\s+(\w+)\(', open(ptx).read())
    out = subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True, text=True).stdout.split('\n')
    return {d.replace(' ', ''): m for m, d in zip(names, out)}

# CUDA element type -> (C++ name in the demangled template, surface format, channels)
TYPES = {
    'b8': ('unsignedchar', 'u8', 1), 'b16': ('unsignedshort', 'u16', 1), 'b32': ('float', 'f32', 1),
    'v2b8': ('uchar2', 'u8', 2), 'v4b8': ('uchar4', 'u8', 4), 'v2b16': ('ushort2', 'u16', 2),
    'v4b16': ('ushort4', 'u16', 4), 'v2b32': ('float2', 'f32', 2), 'v4b32': ('float4', 'f32', 4),
    # 64-bit elements live in arrays of uint2 / uint4 (surf.cu's chan())
    'b64': ('unsignedlonglong', 'u32', 2), 'v2b64': ('ulonglong2', 'u32', 4),
}
UINT4 = {'s2d_v4b32_zero': 'uint4'}

def elem(name):
    return re.match(r'\w+?_(v?\d?b\d+)_', name).group(1)

def write(case, variant, spec):
    d = os.path.join(root, 'cases', case, variant)
    os.makedirs(os.path.join(d, 'expected'), exist_ok=True)
    spec['module'] = '../../../ptx/surf.%s.ptx' % variant
    with open(os.path.join(d, 'spec.json'), 'w') as f:
        json.dump(spec, f, indent=1)
        f.write('\n')
    return d

def copy_in(case, src, name):
    d = os.path.join(root, 'cases', case, 'inputs')
    os.makedirs(d, exist_ok=True)
    shutil.copy(src, os.path.join(d, name + '.bin'))
    return '../inputs/%s.bin' % name

def launch_ok(variant, launch):
    txt = ''
    for f in os.listdir(os.path.join(res, variant)):
        if f.startswith('launches.'):
            txt += open(os.path.join(res, variant, f)).read()
    return re.search(r'^%s: ERROR' % re.escape(launch), txt, re.M) is None and os.path.isdir(os.path.join(res, variant, launch))

def size(p):
    return os.path.getsize(p)

def surf_case(variant, launch, kern, dims, layers, ncoord, ents):
    d = os.path.join(res, variant, launch)
    e = elem(launch)
    cname, fmt, ch = TYPES[e]
    if launch in UINT4:
        cname, fmt = UINT4[launch], 'u32'
    mode = 1 if launch.endswith('clamp') else 0
    key = '%s<%s,%d>' % (kern, cname, mode)
    ent = [m for dm, m in ents.items() if dm.startswith('void' + key + '(') or dm.startswith(key + '(')]
    if not ent:
        raise SystemExit('no entry for %s (%s)' % (launch, key))
    eb = {'u8': 1, 'u16': 2, 'f32': 4, 'u32': 4}[fmt] * ch
    nbytes = size(os.path.join(d, 'src.bin'))
    surf = lambda n, b: {'name': n, 'buffer': b, 'dims': dims, 'format': fmt, 'channels': ch, **({'layers': layers} if layers else {})}
    spec = {
        'kernel': ent[0], 'grid': [N // 128, 1, 1], 'block': [128, 1, 1],
        'description': 'surf.cu %s: %s through a surface (suld/sust .b, %s)' % (launch, key, 'clamp' if mode else 'zero'),
        'buffers': [
            {'name': 'out', 'type': 'u8', 'count': N * eb},
            {'name': 'src', 'type': 'u8', 'count': nbytes, 'file': copy_in(launch, os.path.join(d, 'src.bin'), 'src')},
            {'name': 'dst', 'type': 'u8', 'count': nbytes, 'file': copy_in(launch, os.path.join(d, 'dst_in.bin'), 'dst_in')},
            {'name': 'rc', 'type': 's32', 'count': N * ncoord, 'file': copy_in(launch, os.path.join(d, 'rc.bin'), 'rc')},
            {'name': 'wc', 'type': 's32', 'count': N * ncoord, 'file': copy_in(launch, os.path.join(d, 'wc.bin'), 'wc')},
        ],
        'surfaces': [surf('S', 'src'), surf('D', 'dst')],
        'args': [{'buffer': 'out'}, {'surface': 'S'}, {'surface': 'D'}, {'buffer': 'rc'}, {'buffer': 'wc'}, {'u32': N}],
        'outputs': ['out', 'dst'],
    }
    out = write(launch, variant, spec)
    if MODEL:
        o, dst = model_surf(d, eb, dims + [layers or 1], ncoord if not layers else ncoord - 1, mode)
        spec['description'] += ' (expected outputs from the PTX ISA model, not the GPU)'
        write(launch, variant, spec)
        open(os.path.join(out, 'expected', 'out.bin'), 'wb').write(o)
        open(os.path.join(out, 'expected', 'dst.bin'), 'wb').write(dst)
        return
    shutil.copy(os.path.join(d, 'out.bin'), os.path.join(out, 'expected', 'out.bin'))
    shutil.copy(os.path.join(d, 'dst.bin'), os.path.join(out, 'expected', 'dst.bin'))


def model_surf(d, eb, dims, nxyz, mode):
    """The ISA's suld.b/sust.b on a packed array: byte x, out-of-range
    coordinates clamped to the nearest element (clamp) or dropped (zero);
    dims are [w, (h, (d,))] + [layers], coordinates (x, [y, [z]], [layer])."""
    import array
    def ints(p):
        a = array.array('i')
        a.frombytes(open(p, 'rb').read())
        return a.tolist()
    src = open(os.path.join(d, 'src.bin'), 'rb').read()
    dst = bytearray(open(os.path.join(d, 'dst_in.bin'), 'rb').read())
    rc, wc = ints(os.path.join(d, 'rc.bin')), ints(os.path.join(d, 'wc.bin'))
    full = dims[:nxyz] + [1] * (3 - nxyz) + [dims[-1]]  # w, h, d, layers
    k = len(rc) // N
    def offset(c):
        # the layer index is .u32 (PTX ISA, suld): a negative one is huge
        c = list(c[:nxyz]) + [0] * (3 - nxyz) + ([c[nxyz] & 0xffffffff] if k > nxyz else [0])
        c[0] *= eb
        lim = [full[0] * eb - eb, full[1] - 1, full[2] - 1, full[3] - 1]
        for i in range(4):
            if c[i] < 0 or c[i] > lim[i]:
                if mode == 0:
                    return None
                c[i] = min(max(c[i], 0), lim[i])
        return c[0] + eb * full[0] * (c[1] + full[1] * (c[2] + full[2] * c[3]))
    out = bytearray()
    for i in range(N):
        o = offset(rc[k * i:k * i + k])
        v = bytes(eb) if o is None else src[o:o + eb]
        out += v
        o = offset(wc[k * i:k * i + k])
        if o is not None:
            dst[o:o + eb] = v
    return bytes(out), bytes(dst)

def tex_layered_case(variant, launch, ents, line):
    d = os.path.join(res, variant, launch)
    two = launch.startswith('tex2dl')
    m = re.search(r'address=(\d) filter=(\d) norm=(\d) dims=(\d+)x(\d+)x(\d+)', line)
    am, fm, norm, w, h, l = map(int, m.groups())
    kern = 'tex2d_layered' if two else 'tex1d_layered'
    ent = [mm for dm, mm in ents.items() if dm.startswith(kern + '(')][0]
    dims = [w, h] if two else [w]
    spec = {
        'kernel': ent, 'grid': [N // 128, 1, 1], 'block': [128, 1, 1],
        'description': 'surf.cu %s: layered %s texture (%s)' % (launch, '2D' if two else '1D', line.strip()),
        'buffers': [
            {'name': 'out', 'type': 'f32', 'count': N},
            {'name': 'img', 'type': 'f32', 'count': w * max(h, 1) * l, 'file': copy_in(launch, os.path.join(d, 'img.bin'), 'img')},
            {'name': 'coords', 'type': 'f32', 'count': N * (2 if two else 1), 'file': copy_in(launch, os.path.join(d, 'coords.bin'), 'coords')},
            {'name': 'layer', 'type': 's32', 'count': N, 'file': copy_in(launch, os.path.join(d, 'layer.bin'), 'layer')},
        ],
        'textures': [{'name': 't', 'buffer': 'img', 'dims': dims, 'layers': l, 'format': 'f32',
                      'address': ['wrap', 'clamp', 'mirror', 'border'][am], 'filter': ['point', 'linear'][fm], 'normalized': bool(norm)}],
        'args': [{'buffer': 'out'}, {'texture': 't'}, {'buffer': 'coords'}, {'buffer': 'layer'}, {'u32': N}],
        'outputs': ['out'],
    }
    out = write(launch, variant, spec)
    shutil.copy(os.path.join(d, 'out.bin'), os.path.join(out, 'expected', 'out.bin'))

def ent_of(ents, prefix):
    e = [m for dm, m in ents.items() if dm.startswith(prefix + '(')]
    if not e:
        raise SystemExit('no entry ' + prefix)
    return e[0]

def simple_case(variant, launch, kernel, desc, buffers, objs, args, outputs, expected):
    """buffers: (name, type, count, file in the launch folder or None or bytes)."""
    d = os.path.join(res, variant, launch)
    bl = []
    for name, typ, count, f in buffers:
        b = {'name': name, 'type': typ, 'count': count}
        if isinstance(f, bytes):
            p = os.path.join(root, 'cases', launch, 'inputs')
            os.makedirs(p, exist_ok=True)
            open(os.path.join(p, name + '.bin'), 'wb').write(f)
            b['file'] = '../inputs/%s.bin' % name
        elif f:
            b['file'] = copy_in(launch, os.path.join(d, f), name)
        bl.append(b)
    spec = {'kernel': kernel, 'grid': [N // 128, 1, 1], 'block': [128, 1, 1], 'description': desc, 'buffers': bl}
    spec.update(objs)
    spec['args'] = args
    spec['outputs'] = outputs
    out = write(launch, variant, spec)
    for name, data in expected.items():
        open(os.path.join(out, 'expected', name + '.bin'), 'wb').write(data)

def read(variant, launch, f):
    return open(os.path.join(res, variant, launch, f), 'rb').read()

def sured_case(v, launch, ents):
    bufs = [('init%d' % k, 'u32', 48, 'init%d.bin' % k) for k in range(5)]
    bufs += [('coords', 's32', 2 * N, 'coords.bin'), ('vals', 'u32', N, 'vals.bin')]
    surfs = [{'name': 's%d' % k, 'buffer': 'init%d' % k, 'dims': [8, 6], 'format': 'u32'} for k in range(5)]
    args = [{'surface': 's%d' % k} for k in range(5)] + [{'buffer': 'coords'}, {'buffer': 'vals'}, {'u32': N}]
    simple_case(v, launch, ent_of(ents, 'sured_ops'), 'surf.cu sured: sured.b add.u32/min.s32/max.u32(clamp)/and/or, 8x6, colliding',
                bufs, {'surfaces': surfs}, args, ['init%d' % k for k in range(5)],
                {'init%d' % k: read(v, launch, 'dst%d.bin' % k) for k in range(5)})

SUSTP = {'sustp_f32x4': ('sustp_f32', 'f32', 4), 'sustp_f32x1': ('sustp_f32', 'f32', 1), 'sustp_u8x4': ('sustp_u32', 'u8', 4),
         'sustp_s16x2': ('sustp_u32', 's16', 2), 'sustp_f16x2': ('sustp_f32', 'f16', 2), 'sustp1_f32': ('sustp1_f32', 'f32', 1),
         'sustp_unorm8x4': ('sustp_f32', 'unorm8', 4)}

def sustp_case(v, launch, ents):
    k, fmt, ch = SUSTP[launch]
    norm = fmt == 'unorm8'
    if norm:
        fmt = 'u8'
    eb = {'f32': 4, 'u8': 1, 's16': 2, 'f16': 2}[fmt] * ch
    nv = N if k == 'sustp1_f32' else 4 * N
    bufs = [('img', 'u8', 256 * eb, 'init.bin'), ('coords', 's32', 2 * N, 'coords.bin'), ('vals', 'u32', 4 * N, 'vals.bin')]
    simple_case(v, launch, ent_of(ents, k), 'surf.cu %s: sust.p (formatted) into a 16x16 %s x %d surface' % (launch, fmt, ch),
                bufs, {'surfaces': [dict({'name': 's', 'buffer': 'img', 'dims': [16, 16], 'format': fmt, 'channels': ch}, **({'normalized': True} if norm else {}))]},
                [{'surface': 's'}, {'buffer': 'coords'}, {'buffer': 'vals'}, {'u32': N}], ['img'], {'img': read(v, launch, 'dst.bin')})

SUQ = [([40, 24], 0, 'f32', 1), ([300], 0, 'u8', 4), ([12, 10, 6], 0, 'f32', 2), ([12, 10], 5, 'u16', 1), ([64], 4, 'f32', 1)]

def suq_case(v, launch, ents):
    out = read(v, launch, 'out.bin')
    for i, (dims, layers, fmt, ch) in enumerate(SUQ):
        eb = {'f32': 4, 'u8': 1, 'u16': 2}[fmt] * ch
        n = eb * max(layers, 1)
        for x in dims:
            n *= x
        s = {'name': 's', 'buffer': 'arr', 'dims': dims, 'format': fmt, 'channels': ch}
        if layers:
            s['layers'] = layers
        simple_case(v, '%s_%d' % (launch, i), ent_of(ents, 'suq_all'), 'surf.cu suq: every query on a %s surface %s x %d layers' % (fmt, dims, layers),
                    [('out', 'u32', 8, b'\xff' * 32), ('arr', 'u8', n, None)], {'surfaces': [s]},
                    [{'buffer': 'out'}, {'surface': 's'}], ['out'], {'out': out[32 * i:32 * i + 32]})

TXQ = [([40, 24], 0, 'f32', 1, 'clamp', 'linear', False, 'element'), ([20, 12], 5, 'f32', 1, 'wrap', 'point', True, 'element'), None,
       ([300], 0, 'u8', 4, 'mirror', 'point', True, 'normalized'), ([12, 10, 6], 0, 'f32', 2, 'clamp', 'point', False, 'element')]

def txq_case(v, launch, ents):
    out = read(v, launch, 'out.bin')
    for i, t in enumerate(TXQ):
        if t is None:
            continue  # the cube map
        dims, layers, fmt, ch, am, fm, norm, rd = t
        eb = {'f32': 4, 'u8': 1}[fmt] * ch
        n = eb * max(layers, 1)
        for x in dims:
            n *= x
        tx = {'name': 't', 'buffer': 'arr', 'dims': dims, 'format': fmt, 'channels': ch, 'address': am, 'filter': fm,
              'normalized': norm, 'read': rd}
        if layers:
            tx['layers'] = layers
        simple_case(v, '%s_%d' % (launch, i), ent_of(ents, 'txq_all'), 'surf.cu txq: every query on a texture %s' % json.dumps(t),
                    [('out', 'u32', 32, b'\xff' * 128), ('arr', fmt, n // {'f32': 4, 'u8': 1}[fmt], None)], {'textures': [tx]},
                    [{'buffer': 'out'}, {'texture': 't'}], ['out'], {'out': out[84 * i:84 * i + 84] + b'\xff' * 44})

class LCG:
    """surf.cu's rnd(): each group's process starts at seed 12345."""
    def __init__(self):
        self.s = 12345
    def rnd(self):
        self.s = (self.s * 1664525 + 1013904223) & 0xffffffff
        return self.s >> 8
    def irange(self, lo, hi):
        return lo + self.rnd() % (hi - lo + 1)

def error_case(v, launch, kernel, desc, bufs, objs, args, grid, block, err):
    spec = {'kernel': kernel, 'grid': grid, 'block': block, 'description': desc, 'buffers': bufs}
    spec.update(objs)
    spec['args'] = args
    spec['outputs'] = [bufs[0]['name']]
    out = write(launch, v, spec)
    open(os.path.join(out, 'expected', 'ERROR'), 'w').write(err)

def bytes_case(v, launch, ents, line):
    """s2dbytes_*: byte x coordinates, unaligned ones too; the GPU stopped the
    launch (cudaErrorMisalignedAddress) and saved nothing, so the inputs are
    regenerated from surf.cu's generator."""
    e = elem(launch)
    cname, fmt, ch = TYPES[e]
    mode = 1 if launch.endswith('clamp') else 0
    eb = {'u8': 1, 'u16': 2, 'f32': 4, 'u32': 4}[fmt] * ch
    W, H = 40, 24
    g = LCG()
    src = bytes(g.rnd() & 255 for _ in range(W * H * eb))
    dst = bytes(g.rnd() & 255 for _ in range(W * H * eb))
    rc, wc = [], []
    for i in range(N):
        rc += [g.irange(-2 * eb, (W + 1) * eb), g.irange(-1, H)]
    for i in range(N):
        y, x = i % H, (i // H) * 3
        wc += [x * eb + ((1 + i % (eb - 1 if eb > 1 else 1)) if i % 5 == 0 else 0), y]
    pack = lambda a: b''.join(int(x).to_bytes(4, 'little', signed=True) for x in a)
    key = 's2d_bytes<%s,%d>' % (cname, mode)
    ent = [m for dm, m in ents.items() if dm.startswith('void' + key + '(') or dm.startswith(key + '(')][0]
    d = os.path.join(root, 'cases', launch, 'inputs')
    os.makedirs(d, exist_ok=True)
    for name, data in (('src', src), ('dst_in', dst), ('rc', pack(rc)), ('wc', pack(wc))):
        open(os.path.join(d, name + '.bin'), 'wb').write(data)
    surf = lambda n, b: {'name': n, 'buffer': b, 'dims': [W, H], 'format': fmt, 'channels': ch}
    bufs = [{'name': 'out', 'type': 'u8', 'count': N * eb},
            {'name': 'src', 'type': 'u8', 'count': len(src), 'file': '../inputs/src.bin'},
            {'name': 'dst', 'type': 'u8', 'count': len(dst), 'file': '../inputs/dst_in.bin'},
            {'name': 'rc', 'type': 's32', 'count': 2 * N, 'file': '../inputs/rc.bin'},
            {'name': 'wc', 'type': 's32', 'count': 2 * N, 'file': '../inputs/wc.bin'}]
    error_case(v, launch, ent, 'surf.cu %s: suld/sust.b at byte x coordinates, some unaligned (%s)' % (launch, line.strip()),
               bufs, {'surfaces': [surf('S', 'src'), surf('D', 'dst')]},
               [{'buffer': 'out'}, {'surface': 'S'}, {'surface': 'D'}, {'buffer': 'rc'}, {'buffer': 'wc'}, {'u32': N}],
               [N // 128, 1, 1], [128, 1, 1], 'cudaErrorMisalignedAddress\nthe launch failed: misaligned address\n')

def trap_case(v, launch, ents):
    img = b''.join(struct.pack('<f', float(i)) for i in range(40))
    d = os.path.join(root, 'cases', launch, 'inputs')
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, 'img.bin'), 'wb').write(img)
    bufs = [{'name': 'out', 'type': 'f32', 'count': 32}, {'name': 'img', 'type': 'f32', 'count': 40, 'file': '../inputs/img.bin'}]
    error_case(v, launch, ent_of(ents, 'surf_trap'), 'surf.cu surf_trap: thread 5 reads x = w+3 of a 40x1 f32 surface with .trap',
               bufs, {'surfaces': [{'name': 's', 'buffer': 'img', 'dims': [40, 1], 'format': 'f32'}]},
               [{'buffer': 'out'}, {'surface': 's'}, {'s32': 40}], [1, 1, 1], [32, 1, 1],
               'cudaErrorIllegalAddress\nan illegal memory access was encountered (at synchronize)\n')

def brighten_case(v, launch, ents):
    px, out = read(v, launch, 'px.bin'), read(v, launch, 'out_px.bin')
    simple_case(v, 'surf_brighten', ent_of(ents, 'surf_brighten_u8x4'),
                'surf.cu surf_brighten_u8x4: an in-place filter through a 33x17 uchar4 surface (read, modify, write the same element)',
                [('img', 'u8', len(px), px)], {'surfaces': [{'name': 's', 'buffer': 'img', 'dims': [33, 17], 'format': 'u8', 'channels': 4}]},
                [{'surface': 's'}, {'s32': 33}, {'s32': 17}], ['img'], {'img': out})
    spec_p = os.path.join(root, 'cases', 'surf_brighten', v, 'spec.json')
    sp = json.load(open(spec_p))
    sp['grid'], sp['block'] = [3, 3, 1], [16, 8, 1]
    json.dump(sp, open(spec_p, 'w'), indent=1)

def cube_case(v, launch, ents, line):
    m = re.search(r'filter=(\d) face=(\d+)x\d+ layers=(\d+)', line)
    fm, w, l = int(m.group(1)), int(m.group(2)), int(m.group(3))
    layered = launch.startswith('cubel')
    tex = {'name': 't', 'buffer': 'img', 'dims': [w, w], 'cube': True, 'format': 'f32', 'address': 'clamp',
           'filter': ['point', 'linear'][fm], 'normalized': True}
    bufs = [('out', 'f32', N, None), ('img', 'f32', w * w * 6 * l, 'img.bin'), ('coords', 'f32', 3 * N, 'coords.bin')]
    args = [{'buffer': 'out'}, {'texture': 't'}, {'buffer': 'coords'}]
    if layered:
        tex['layers'] = l
        bufs.append(('layer', 's32', N, 'layer.bin'))
        args.append({'buffer': 'layer'})
    args.append({'u32': N})
    simple_case(v, launch, ent_of(ents, 'tex_cube_layered' if layered else 'tex_cube'), 'surf.cu %s: %s' % (launch, line.strip()),
                bufs, {'textures': [tex]}, args, ['out'], {'out': read(v, launch, 'out.bin')})

def layered4_case(v, launch, ents, line):
    tex = {'name': 't', 'buffer': 'img', 'dims': [16, 9], 'layers': 3, 'format': 'f32', 'channels': 4, 'address': 'clamp',
           'filter': 'linear'}
    simple_case(v, launch, ent_of(ents, 'tex2d_layered4'), 'surf.cu %s: %s' % (launch, line.strip()),
                [('out', 'f32', 4 * N, None), ('img', 'f32', 16 * 9 * 3 * 4, 'img.bin'), ('coords', 'f32', 2 * N, 'coords.bin'),
                 ('layer', 's32', N, 'layer.bin')], {'textures': [tex]},
                [{'buffer': 'out'}, {'texture': 't'}, {'buffer': 'coords'}, {'buffer': 'layer'}, {'u32': N}], ['out'],
                {'out': read(v, launch, 'out.bin')})

def main():
    os.makedirs(os.path.join(root, 'ptx'), exist_ok=True)
    for v in ('O3', 'G'):
        # the .file of the source names the recording machine's folder
        src = open(os.path.join(res, 'surf.%s.ptx' % v)).read()
        src = re.sub(r'"[^"\n]*/surf(_rec)?\.cu"', '"testdata/surfaces/gen/surf.cu"', src)
        open(os.path.join(root, 'ptx', 'surf.%s.ptx' % v), 'w').write(src)
    lines = {}
    for v in ('O3', 'G'):
        for f in os.listdir(os.path.join(res, v)):
            if f.startswith('launches.'):
                for ln in open(os.path.join(res, v, f)):
                    lines[ln.split(' ')[0].rstrip(':')] = ln
    n = 0
    for v in ('O3', 'G'):
        ents = entries(os.path.join(root, 'ptx', 'surf.%s.ptx' % v))
        txt = ''.join(open(os.path.join(res, v, f)).read() for f in os.listdir(os.path.join(res, v)) if f.startswith('launches.'))
        for launch in sorted(set(re.findall(r'^(s2dbytes_\w+): ERROR launch: cudaErrorMisalignedAddress', txt, re.M))):
            bytes_case(v, launch, ents, lines[launch])
            n += 1
        if re.search(r'^surf_trap: result cudaErrorIllegalAddress', txt, re.M):
            trap_case(v, 'surf_trap', ents)
            n += 1
        for launch in sorted(os.listdir(os.path.join(res, v))):
            if not launch_ok(v, launch):
                continue
            if re.match(r's2d_', launch):
                surf_case(v, launch, 's2d', [40, 24], 0, 2, ents)
            elif re.match(r's1d_', launch):
                surf_case(v, launch, 's1d', [300], 0, 1, ents)
            elif re.match(r's3d_', launch):
                surf_case(v, launch, 's3d', [12, 10, 6], 0, 3, ents)
            elif re.match(r's2dl_', launch):
                surf_case(v, launch, 's2dl', [12, 10], 5, 3, ents)
            elif re.match(r's1dl_', launch):
                surf_case(v, launch, 's1dl', [64], 4, 2, ents)
            elif re.match(r'tex[12]dl_', launch) and not MODEL:
                tex_layered_case(v, launch, ents, lines[launch])
            elif re.match(r's2dbytes_', launch) and not MODEL:
                surf_case(v, launch, 's2d_bytes', [40, 24], 0, 2, ents)
            elif launch == 'sured' and not MODEL:
                sured_case(v, launch, ents)
            elif launch in SUSTP and not MODEL:
                sustp_case(v, launch, ents)
            elif launch == 'suq' and not MODEL:
                suq_case(v, launch, ents)
            elif launch == 'txq' and not MODEL:
                txq_case(v, launch, ents)
            elif launch.startswith('cube') and not MODEL:
                cube_case(v, launch, ents, lines[launch])
            elif launch == 'tex2dl4_linear' and not MODEL:
                layered4_case(v, launch, ents, lines[launch])
            elif launch == 'surf_filter' and not MODEL:
                brighten_case(v, launch, ents)
            else:
                continue
            n += 1
    print('%d cases written' % n)

main()
