#!/usr/bin/env python3
"""Trims recorded mma/wmma cases to their first warps (every buffer of the
forms_mma2/forms_mma3 kernels is laid out warp after warp, so the first W
warps' inputs and outputs are a complete, smaller case).

    python3 trim_cases.py WARPS CASEDIR...

Rewrites each CASEDIR's spec.json (grid, block, buffer counts, the thread
count argument) and truncates inputs/*.bin and expected/*.bin in place.
"""
import json
import os
import sys


def trim(case, warps):
    sp = os.path.join(case, 'spec.json')
    spec = json.load(open(sp))
    threads = spec['grid'][0] * spec['block'][0]
    old = threads // 32
    if warps >= old:
        return False
    n = 32 * warps
    spec['grid'] = [1, 1, 1]
    spec['block'] = [n, 1, 1]
    sizes = {'u32': 4, 'u64': 8, 'f32': 4, 'u16': 2}
    for b in spec['buffers']:
        if b['count'] % old:
            raise SystemExit('%s: buffer %s not a multiple of the warps' % (case, b['name']))
        b['count'] = b['count'] // old * warps
        nbytes = b['count'] * sizes[b['type']]
        for p in [os.path.join(case, b['file'])] if 'file' in b else []:
            with open(p, 'r+b') as fh:
                fh.truncate(nbytes)
        p = os.path.join(case, 'expected', b['name'] + '.bin')
        if os.path.exists(p):
            with open(p, 'r+b') as fh:
                fh.truncate(nbytes)
    for a in spec['args']:
        if 'u32' in a and a['u32'] == threads:
            a['u32'] = n
    with open(sp, 'w') as fh:
        json.dump(spec, fh, indent=1)
        fh.write('\n')
    return True


if __name__ == '__main__':
    w = int(sys.argv[1])
    k = sum(trim(c, w) for c in sys.argv[2:])
    print('trimmed %d cases to %d warps' % (k, w))
