#!/usr/bin/env python3
"""make_mip_cases.py RESULTS — turn a recording of mip.cu and q.cu (run.sh's
second part: RESULTS/ptx, RESULTS/<O3|G>/<group>, RESULTS/q) into corpus
cases under testdata/surfaces: ptx/mip<F>.{O3,G}.ptx, ptx/q.<query>.ptx and
cases/<group>/{inputs,O3,G}/ (mipmapped 1D/2D/3D/cube/layered textures with
tex.level and tex.grad, tld4 on cube/a2d/acube, a 16x16 cube map) and
cases/q_<query>_<object>/O3 (one txq/suq query per module; a query the
driver refused is an error case). Standard library only."""
import json, os, re, shutil, struct, sys

res = sys.argv[1]
# make_mip_cases.py RESULTS GROUP[,GROUP...] [SUFFIX]: only those groups'
# cases (named GROUP+SUFFIX), the PTX in ptx/ left as it is (the device
# code of gen/mip.cu is unchanged; recordings 12 and 13 add host code only)
ONLY = sys.argv[2].split(',') if len(sys.argv) > 2 else None
SUFFIX = sys.argv[3] if len(sys.argv) > 3 else ''
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
B = 128

# group -> (family, kernel prefix, dims, per-sample coordinate floats, layered)
FAM = {1: ('k_lod1d', 1), 2: ('k_lod2d', 2), 3: ('k_lod3d', 3), 4: ('k_grad1d', 1), 5: ('k_grad2d', 2),
       6: ('k_grad3d', 3), 7: ('k_lodcube', 4), 8: ('k_lod2dl', 5), 9: ('k_tld4cube', 4), 10: ('k_tld4a2d', 5),
       11: ('k_tld4acube', 6), 12: ('k_cube', 4), 13: ('k_gradcube', 4), 14: ('k_tld4mip', 2)}

def fam_of(group):
    for k, v in [('lodsweep1d', 1), ('lod1d', 1), ('lodsweep2d', 2), ('lod2dl', 8), ('lod2d', 2), ('lodsweep3d', 3),
                 ('lod3d', 3), ('gradsweep1d', 4), ('grad1d', 4), ('gradsweep2d', 5), ('grad2d', 5), ('gradsweep3d', 6),
                 ('grad3d', 6), ('gradprobe', 5), ('lodsweepcube', 7), ('lodcube', 7), ('tld4cube', 9), ('tld4a2d', 10), ('tld4acube', 11),
                 ('cube16', 12), ('gradsweepcube', 13), ('gradcube', 13), ('tld4mip', 14)]:
        if group.startswith(k):
            return v
    return None

def entries(ptx):
    return re.findall(r'\.entry\s+(\w+)\(', open(ptx).read())

def write_ptx():
    os.makedirs(os.path.join(root, 'ptx'), exist_ok=True)
    for f in sorted(os.listdir(os.path.join(res, 'ptx'))):
        if not f.endswith('.ptx'):
            continue
        src = open(os.path.join(res, 'ptx', f)).read()
        src = re.sub(r'"[^"\n]*/(mip|q)\.cu"', r'"testdata/surfaces/gen/\1.cu"', src)
        open(os.path.join(root, 'ptx', f), 'w').write(src)

def launch_line(v, group):
    p = os.path.join(res, v, 'launches.%s.txt' % group)
    txt = open(p).read() if os.path.exists(p) else ''
    return txt

def copy_in(case, data, name):
    d = os.path.join(root, 'cases', case, 'inputs')
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, name + '.bin'), 'wb').write(data)
    return '../inputs/%s.bin' % name

def write(case, variant, spec, expected):
    d = os.path.join(root, 'cases', case, variant)
    os.makedirs(os.path.join(d, 'expected'), exist_ok=True)
    with open(os.path.join(d, 'spec.json'), 'w') as f:
        json.dump(spec, f, indent=1)
        f.write('\n')
    for name, data in expected.items():
        open(os.path.join(d, 'expected', name if name == 'ERROR' else name + '.bin'), 'wb').write(data)

ADDR = ['wrap', 'clamp', 'mirror', 'border']

def mip_case(v, group, fam):
    d = os.path.join(res, v, group)
    txt = launch_line(v, group)
    if 'ERROR' in txt or not os.path.exists(os.path.join(d, 'out.bin')):
        return False
    m = re.search(r'texture dims=(\d) size=(\d+)x(\d+)x(\d+) levels=(\d+) content=\w+ filter=(\d) mipfilter=(\d) '
                  r'address=(\d) bias=(\S+) minclamp=(\S+) maxclamp=(\S+) maxaniso=(\d+)', txt)
    dims, w, h, dd, levels, fm, mfm, am, bias, minc, maxc, aniso = m.groups()
    dims, w, h, dd, levels, aniso = int(dims), int(w), int(h), int(dd), int(levels), int(aniso)
    if aniso > 1:
        return False  # anisotropic filtering is not modelled
    lv = b''.join(open(os.path.join(d, 'level%d.bin' % k), 'rb').read() for k in range(levels))
    coords = open(os.path.join(d, 'coords.bin'), 'rb').read()
    out = open(os.path.join(d, 'out.bin'), 'rb').read()
    per = 8 if fam == 14 else 1  # tld4mip: two float4 gathers per sample
    n = len(out) // 4 // per
    tex = {'name': 't', 'buffer': 'levels', 'format': 'f32', 'normalized': True, 'address': ADDR[int(am)],
           'filter': ['point', 'linear'][int(fm)], 'levels': levels, 'mip_filter': ['point', 'linear'][int(mfm)]}
    if dims == 1:
        tex['dims'] = [w]
    elif dims == 3:
        tex['dims'] = [w, h, dd]
    else:
        tex['dims'] = [w, h]
    if dims == 4:
        tex['cube'] = True
    if dims == 5:
        tex['layers'] = dd
    if float(bias):
        tex['lod_bias'] = float(bias)
    if float(minc):
        tex['min_lod'] = float(minc)
    if float(maxc) != levels - 1:
        tex['max_lod'] = float(maxc)
    bufs = [{'name': 'out', 'type': 'f32', 'count': n * per},
            {'name': 'levels', 'type': 'f32', 'count': len(lv) // 4, 'file': copy_in(group + SUFFIX, lv, 'levels')},
            {'name': 'coords', 'type': 'f32', 'count': len(coords) // 4, 'file': copy_in(group + SUFFIX, coords, 'coords')}]
    args = [{'buffer': 'out'}, {'texture': 't'}, {'buffer': 'coords'}]
    if fam == 8:
        lay = open(os.path.join(d, 'layer.bin'), 'rb').read()
        bufs.append({'name': 'layer', 'type': 's32', 'count': n, 'file': copy_in(group + SUFFIX, lay, 'layer')})
        args.append({'buffer': 'layer'})
    args.append({'u32': n})
    kern = [e for e in entries(os.path.join(root, 'ptx', 'mip%d.%s.ptx' % (fam, v))) if FAM[fam][0] in e][0]
    spec = {'module': '../../../ptx/mip%d.%s.ptx' % (fam, v), 'kernel': kern, 'grid': [n // B, 1, 1], 'block': [B, 1, 1],
            'description': 'mip.cu %s (FAM=%d%s): %s' % (group, fam, SUFFIX and ', ' + SUFFIX.strip('_'), txt.split('\n')[1].strip()),
            'buffers': bufs, 'textures': [tex], 'args': args, 'outputs': ['out']}
    write(group + SUFFIX, v, spec, {'out': out})
    return True

def plain_case(v, group, fam):
    """tld4 on cube/a2d/acube maps and the 16x16 cube map (not mipmapped)."""
    d = os.path.join(res, v, group)
    txt = launch_line(v, group)
    if 'ERROR' in txt or not os.path.exists(os.path.join(d, 'out.bin')):
        return False
    img = open(os.path.join(d, 'img.bin'), 'rb').read()
    coords = open(os.path.join(d, 'coords.bin'), 'rb').read()
    out = open(os.path.join(d, 'out.bin'), 'rb').read()
    if fam == 12:
        m = re.search(r'cube face=(\d+)x\d+ filter=(\d)', txt)
        w, fm = int(m.group(1)), int(m.group(2))
        tex = {'name': 't', 'buffer': 'img', 'format': 'f32', 'dims': [w, w], 'cube': True, 'normalized': True,
               'address': 'clamp', 'filter': ['point', 'linear'][fm]}
        n = len(out) // 4
        per = 1
    else:
        m = re.search(r'tld4 kind=(\w+) size=(\d+)x(\d+)x(\d+) layers=(\d+) address=(\d)', txt)
        kind, w, h, dd, layers, am = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(6))
        tex = {'name': 't', 'buffer': 'img', 'format': 'f32', 'dims': [w, h], 'normalized': True,
               'address': ADDR[am], 'filter': 'linear'}
        if kind != 'a2d':
            tex['cube'] = True
        if kind != 'cube':
            tex['layers'] = layers
        n = len(out) // 16
        per = 4
    bufs = [{'name': 'out', 'type': 'f32', 'count': n * per},
            {'name': 'img', 'type': 'f32', 'count': len(img) // 4, 'file': copy_in(group, img, 'img')},
            {'name': 'coords', 'type': 'f32', 'count': len(coords) // 4, 'file': copy_in(group, coords, 'coords')}]
    args = [{'buffer': 'out'}, {'texture': 't'}, {'buffer': 'coords'}]
    if fam in (10, 11):
        lay = open(os.path.join(d, 'layer.bin'), 'rb').read()
        bufs.append({'name': 'layer', 'type': 's32', 'count': n, 'file': copy_in(group, lay, 'layer')})
        args.append({'buffer': 'layer'})
    args.append({'u32': n})
    kern = [e for e in entries(os.path.join(root, 'ptx', 'mip%d.%s.ptx' % (fam, v))) if FAM[fam][0] in e][0]
    spec = {'module': '../../../ptx/mip%d.%s.ptx' % (fam, v), 'kernel': kern, 'grid': [n // B, 1, 1], 'block': [B, 1, 1],
            'description': 'mip.cu %s (FAM=%d): %s' % (group, fam, txt.split('\n')[1].strip()),
            'buffers': bufs, 'textures': [tex], 'args': args, 'outputs': ['out']}
    write(group, v, spec, {'out': out})
    return True

# q.cu's objects, in order: (name, channel format, channels, w, h, d, layered, cube, levels, address, filter, norm, readnorm)
OBJS = [('2d_f32_40x24', 'f32', 1, 40, 24, 0, 0, 0, 0, 'clamp', 'linear', False, False),
        ('2dlayered_f32_20x12x5', 'f32', 1, 20, 12, 5, 1, 0, 0, 'wrap', 'point', True, False),
        ('cube_f32_8', 'f32', 1, 8, 8, 6, 0, 1, 0, 'border', 'linear', True, False),
        ('cubelayered_f32_8x3', 'f32', 1, 8, 8, 18, 1, 1, 0, 'clamp', 'point', True, False),
        ('1d_uchar4_300', 'u8', 4, 300, 0, 0, 0, 0, 0, 'mirror', 'point', True, True),
        ('3d_float2_12x10x6', 'f32', 2, 12, 10, 6, 0, 0, 0, 'clamp', 'point', False, False),
        ('1dlayered_ushort2_64x4', 'u16', 2, 64, 0, 4, 1, 0, 0, 'border', 'point', False, False),
        ('2d_short4_17x9', 's16', 4, 17, 9, 0, 0, 0, 0, 'clamp', 'point', False, False),
        ('2d_half_16x8', 'f16', 1, 16, 8, 0, 0, 0, 0, 'wrap', 'linear', True, False),
        ('mip2d_f32_32x16_6', 'f32', 1, 32, 16, 0, 0, 0, 6, 'clamp', 'linear', True, False),
        ('mip3d_f32_16x16x4_5', 'f32', 1, 16, 16, 4, 0, 0, 5, 'wrap', 'point', True, False),
        ('mip1d_f32_64_7', 'f32', 1, 64, 0, 0, 0, 0, 7, 'mirror', 'linear', True, False),
        ('mipcube_f32_16_5', 'f32', 1, 16, 16, 6, 0, 1, 5, 'clamp', 'linear', True, False)]

def obj_bytes(o):
    name, fmt, ch, w, h, d, layered, cube, levels = o[:9]
    esz = {'f32': 4, 'u8': 1, 'u16': 2, 's16': 2, 'f16': 2}[fmt] * ch
    n = 0
    for k in range(max(levels, 1)):
        e = max(1, w >> k) * (max(1, h >> k) if h else 1)
        if d:
            e *= d if (layered or cube) else max(1, d >> k)
        n += e * esz
    return n

def obj_desc(o, surface):
    name, fmt, ch, w, h, d, layered, cube, levels, am, fm, norm, rn = o
    dims = [w] + ([h] if h else []) + ([d] if d and not layered and not cube else [])
    t = {'name': 'o', 'buffer': 'arr', 'dims': dims, 'format': fmt, 'channels': ch}
    if surface:
        # a cube map's surface is its 6 (× layers) faces as a 2D layered array
        if layered or cube:
            t['layers'] = d
        return t
    if layered:
        t['layers'] = d // 6 if cube else d
    if cube:
        t['cube'] = True
    t.update({'address': am, 'filter': fm, 'normalized': norm, 'read': 'normalized' if rn else 'element'})
    if levels:
        t['levels'] = levels
        t['mip_filter'] = 'linear'
    return t

def q_cases():
    n = 0
    qd = os.path.join(res, 'q')
    for f in sorted(os.listdir(qd)):
        if not f.endswith('.txt'):
            continue
        op = f[:-4]
        surf = op.startswith('suq')
        level = '.level.' in op
        txt = open(os.path.join(qd, f)).read()
        ptx = 'q.%s.ptx' % op
        if not os.path.exists(os.path.join(root, 'ptx', ptx)):
            continue
        kern = entries(os.path.join(root, 'ptx', ptx))
        kern = [e for e in kern if 'sanity' not in e][0]
        vals = {}
        for m in re.finditer(r'^\S+ (\S+) level=(\d) -> (-?\d+) \S+( FAILED)?$', txt, re.M):
            vals.setdefault(m.group(1), []).append((int(m.group(2)), int(m.group(3)), bool(m.group(4))))
        refused = re.search(r'ERROR launch error: (\w+) \(([^)]*)\)', txt)
        objs = [o for o in OBJS if not (surf and o[8])]
        for o in objs:
            key = [k for k in vals if k.startswith(o[0] + '_') or k == o[0]]
            if refused:
                if o is not objs[0]:
                    continue
                exp = {'ERROR': ('%s\nthe driver refuses the %s holding %s (%s)\n' % (
                    refused.group(1), 'module' if surf else 'kernel', op, refused.group(2))).encode()}
            elif key:
                got = vals[key[0]]
                exp = {'out': b''.join(struct.pack('<i', x) for _, x, _ in got)}
            else:
                continue
            levels = [0, 1, 2, 3] if level else [0]
            for i, k in enumerate(levels):
                case = 'q_%s_%s' % (op.replace('.', '_'), o[0]) + ('_l%d' % k if level else '')
                spec = {'module': '../../../ptx/' + ptx, 'kernel': kern, 'grid': [1, 1, 1], 'block': [1, 1, 1],
                        'description': 'q.cu %s on %s%s (one query per module)' % (op, o[0], ' level %d' % k if level else ''),
                        'buffers': [{'name': 'out', 'type': 's32', 'count': 1},
                                    {'name': 'arr', 'type': o[1], 'count': obj_bytes(o) // {'u8': 1}.get(o[1], 4 if o[1] == 'f32' else 2)}],
                        ('surfaces' if surf else 'textures'): [obj_desc(o, surf)],
                        'args': [{'buffer': 'out'}, {'surface' if surf else 'texture': 'o'}, {'s32': k}],
                        'outputs': ['out']}
                e = exp if 'ERROR' in exp else {'out': exp['out'][4 * i:4 * i + 4]}
                write(case, 'O3', spec, e)
                n += 1
                if 'ERROR' in exp:
                    break
    return n

def main():
    if ONLY is None:
        write_ptx()
    n = 0
    for v in ('O3', 'G'):
        for g in sorted(os.listdir(os.path.join(res, v))):
            if not os.path.isdir(os.path.join(res, v, g)) or (ONLY is not None and g not in ONLY):
                continue
            fam = fam_of(g)
            if fam is None:
                continue
            if fam in (9, 10, 11, 12):
                n += plain_case(v, g, fam)
            else:
                n += mip_case(v, g, fam)
    if ONLY is None:
        n += q_cases()
    print('%d cases written' % n)

main()
