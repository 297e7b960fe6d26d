#!/usr/bin/env python3
"""Generator of the ptxvm PTX semantics conformance suite.

    python3 testdata/conformance/gen/gen.py --out testdata/conformance --dry-run
    python3 testdata/conformance/gen/gen.py --out testdata/conformance --run --tar $OUT/conformance.tgz

--dry-run writes PTX modules, launch specs, inputs and forms.json (no ptxas,
no GPU) and checks that every spec is self-consistent.  --run additionally
assembles every module with ptxas (dropping and logging forms ptxas rejects,
then retrying), runs every spec on the GPU through testdata/nvcc/gen/runspec.py
and writes expected/*.bin.  See README.md in this directory.
"""

import argparse
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ptxgen import emit_module, emit_entry, module_header, PTX_TARGET, PTX_VERSION  # noqa: E402
from vectors import default_vectors, to_array, spec_buffer  # noqa: E402
import forms_int  # noqa: E402
import forms_float  # noqa: E402
import forms_cvt  # noqa: E402
import forms_cmp  # noqa: E402
import forms_warp  # noqa: E402
import forms_atom  # noqa: E402
import forms_fma  # noqa: E402
import forms_addr  # noqa: E402
import forms_carry  # noqa: E402
import forms_warpdiv  # noqa: E402
import forms_mma2  # noqa: E402
import forms_mma3  # noqa: E402
import forms_ptxforms  # noqa: E402
import forms_issue24  # noqa: E402
import forms_handwritten24  # noqa: E402

REPO = HERE.parents[2]
RUNSPEC_DIR = Path(os.environ.get('CONFORMANCE_RUNSPEC_DIR', REPO / 'testdata' / 'nvcc' / 'gen'))
BLOCK = 128
MAX_RETRIES = int(os.environ.get('CONFORMANCE_PTXAS_PASSES', '6'))  # ptxas passes before a module's remaining forms are dropped

# family -> (form builder, extra module-scope PTX)
FAMILY_BUILDERS = [
    ('int', forms_int.int_forms, ''),
    ('bits', forms_int.bits_forms, ''),
    ('f32', forms_float.f32_forms, ''),
    ('f64', forms_float.f64_forms, ''),
    ('half', forms_float.half_forms, ''),
    ('cvt', forms_cvt.cvt_forms, ''),          # splits into cvt_int, cvt_i2f, cvt_f2i, cvt_f2f, cvt_pack
    ('setp', forms_cmp.setp_forms, ''),
    ('select', forms_cmp.select_forms, ''),
    ('warp', forms_warp.warp_forms, ''),
    ('atom', forms_atom.atom_forms, forms_atom.HEADER),
    # issue 7: what ptxas and the GPU do to PTX nobody here wrote
    ('fma', forms_fma.fma_forms, ''),          # splits into fma_f32, fma_f64, fma_half
    ('addr', forms_addr.addr_forms, ''),
    ('carry', forms_carry.carry_forms, ''),
    ('warpdiv', forms_warpdiv.warpdiv_forms, ''),
    ('barerr', forms_warpdiv.barerr_forms, ''),
    ('ptxforms', forms_ptxforms.ptx_forms, ''),
    ('video', forms_ptxforms.video_forms, ''),
    # issue 24: asynchronous copies, matrix loads/stores, mbarriers
    # (generated into testdata/conformance/issue24)
    ('cpasync', forms_issue24.cpasync_forms, ''),
    ('ldmatrix', forms_issue24.ldmatrix_forms, ''),
    ('stmatrix', forms_issue24.stmatrix_forms, ''),
    ('movmatrix', forms_issue24.movmatrix_forms, ''),
    ('mbarrier', forms_issue24.mbarrier_forms, ''),
    # mma.sync test vectors, recorded only (testdata/conformance/issue24/mma_vectors)
    ('mma', forms_issue24.mma_forms, ''),
    # the other mma types and wmma, recorded only (testdata/conformance/issue24/mma_vectors2)
    ('mma2', forms_mma2.mma2_forms, ''),
    # the remaining mma.sync/mma.sp/wmma forms, recorded only (testdata/conformance/issue24/mma_vectors3)
    ('mma3', forms_mma3.mma3_forms, forms_mma3.VERSION),
    # issue 24 item 7: the rest of hand-written PTX (testdata/conformance/issue24/handwritten)
    ('vecreg', forms_handwritten24.vecreg_forms, ''),
    ('retpred', forms_handwritten24.retpred_forms, ''),
    ('regexpr', forms_handwritten24.regexpr_forms, ''),
    ('vec8', forms_handwritten24.vec8_forms, ''),
    ('param64', forms_handwritten24.param64_forms, ''),
]

# Families whose SASS (nvdisasm -c of ptxas -arch=sm_90) and ptxas -v report
# are recorded: ptxas/<family>.txt, and sass/<family>.sass for the
# contraction probes (fma_*, whose per-form SASS is also in forms.json
# "sass") or sass/<family>.sass.gz (gzip) for the others.
SASS_FAMILIES = ('fma_f32', 'fma_f64', 'fma_half', 'addr', 'carry', 'warpdiv', 'barerr', 'ptxforms', 'video',
                 'cpasync', 'ldmatrix', 'stmatrix', 'movmatrix', 'mbarrier', 'mma', 'mma2',
                 'vecreg', 'retpred', 'regexpr', 'vec8', 'param64')


def all_forms(only=None):
    forms = []
    header = {}
    for group, builder, extra in FAMILY_BUILDERS:
        fs = builder()
        for f in fs:
            header[f.family] = extra
        forms += fs
    ids = {}
    for f in forms:
        if f.id in ids:
            raise SystemExit('duplicate form id %s' % f.id)
        ids[f.id] = f
        if not re.match(r'^[A-Za-z_][A-Za-z0-9_]*$', f.id):
            raise SystemExit('bad form id %r' % f.id)
    if only:
        wanted = set(only)
        groups = {g for g, _, _ in FAMILY_BUILDERS}
        unknown = wanted - groups - {f.family for f in forms}
        if unknown:
            raise SystemExit('unknown family %s (families: %s)' % (
                ', '.join(sorted(unknown)), ', '.join(sorted({f.family for f in forms}))))
        forms = [f for f in forms if f.family in wanted or any(
            f.family.startswith(w + '_') or f.family == w for w in wanted)]
    return forms, header


def families_of(forms):
    out = {}
    for f in forms:
        out.setdefault(f.family, []).append(f)
    return out


# ------------------------------------------------------------------ writing

def form_vectors(f):
    if f.vecgen is not None:
        vec = f.vecgen(f)
    else:
        vec = default_vectors(f.id, f.ins, f.n, f.extra)
    return vec


def write_case(out, f):
    d = out / 'cases' / f.family / f.id
    (d / 'inputs').mkdir(parents=True, exist_ok=True)
    vec = form_vectors(f)
    bufs = []
    outputs = []
    nbytes = 0
    for (name, t, nelem, role) in f.buffers():
        st, count = spec_buffer(t, nelem, approx_out=(f.approx and role == 'out'))
        b = {'name': name, 'type': st, 'count': count}
        if role in ('in', 'inout'):
            if name not in vec:
                raise SystemExit('%s: no vector for input %s' % (f.id, name))
            if len(vec[name]) != nelem:
                raise SystemExit('%s: input %s has %d values, buffer %d' % (f.id, name, len(vec[name]), nelem))
            arr = to_array(t, vec[name])
            if arr.nbytes != count * SIZE[st]:
                raise SystemExit('%s: input %s is %d bytes, buffer %d x %s' % (f.id, name, arr.nbytes, count, st))
            arr.tofile(d / 'inputs' / (name + '.bin'))
            nbytes += arr.nbytes
            b['file'] = 'inputs/%s.bin' % name
        if role in ('out', 'inout'):
            outputs.append(name)
        bufs.append(b)
    assert f.n % BLOCK == 0, f.id
    spec = {
        'module': '../../../ptx/%s.ptx' % f.family,
        'kernel': f.id,
        'grid': [f.n // BLOCK, 1, 1],
        'block': [BLOCK, 1, 1],
        'dynamic_shared_bytes': 0,
        'buffers': bufs,
        'args': [{'buffer': b['name']} for b in bufs] + [{'u32': f.n}],
        'outputs': outputs,
    }
    if f.approx:
        spec['tolerance'] = f.spec_tolerance()
    spec['description'] = 'ptxvm conformance form %s (%s): %s' % (f.id, f.family, ' | '.join(
        f.ptx_text().splitlines()))
    with open(d / 'spec.json', 'w') as fh:
        json.dump(spec, fh, indent=1)
        fh.write('\n')
    return nbytes


def form_record(f, status):
    rec = {
        'id': f.id,
        'family': f.family,
        'opcode': f.main_opcode(),
        'ptx': f.ptx_text(),
        'inputs': [{'name': n, 'type': t} for (n, t, _) in f.ins] if f.bufs is None else
        [{'name': b[0], 'type': b[1], 'role': b[3]} for b in f.bufs if b[3] in ('in', 'inout')],
        'outputs': [{'name': n, 'type': t} for (n, t) in f.outs] if f.bufs is None else
        [{'name': b[0], 'type': b[1], 'role': b[3]} for b in f.bufs if b[3] in ('out', 'inout')],
        'buffers': [dict(zip(('name', 'type', 'count', 'role'),
                             (name,) + spec_buffer(t, ne, f.approx and role == 'out') + (role,)))
                    for (name, t, ne, role) in f.buffers()],
        'vectors': f.n,
        'approx': bool(f.approx),
        'kind': f.kind,
        'spec': 'cases/%s/%s/spec.json' % (f.family, f.id),
        'status': status,
    }
    doms = {n: d for (n, t, d) in f.ins if d is not None}
    if doms:
        rec['domains'] = {n: (list(d) if isinstance(d, tuple) else d) for n, d in doms.items()}
    if f.approx:
        rec['tolerance'] = f.spec_tolerance()
        rec['isa_error_bound'] = f.tol or {}
    if f.mask is not None:
        rec['member_mask'] = '0x%08x' % f.mask
        rec['nonmember_sentinel'] = 'lanes outside member_mask branch around the instruction; their outputs hold 0xDEADBEEF (0xDEAD for 16-bit)'
    if f.note:
        rec['note'] = f.note
    if f.record_error:
        rec['record_error'] = True
    if f.hang_risk:
        rec['hang_risk'] = int(f.hang_risk)
    return rec


def write_modules(out, fams, header):
    spans = {}
    (out / 'ptx').mkdir(parents=True, exist_ok=True)
    for fam, fs in fams.items():
        txt, sp = emit_module(fs, header.get(fam, ''))
        with open(out / 'ptx' / ('%s.ptx' % fam), 'w') as fh:
            fh.write(txt)
        spans[fam] = sp
    return spans


def clean(out, fams, full):
    """Remove what a previous run of this generator wrote for these families."""
    if full:
        for sub in ('ptx', 'cases', 'sass', 'ptxas'):
            p = out / sub
            if p.exists():
                shutil.rmtree(p)
        return
    for fam in fams:
        p = out / 'cases' / fam
        if p.exists():
            shutil.rmtree(p)
        for m in (out / 'ptx' / ('%s.ptx' % fam), out / 'sass' / ('%s.sass' % fam),
                  out / 'sass' / ('%s.sass.gz' % fam), out / 'ptxas' / ('%s.txt' % fam)):
            if m.exists():
                m.unlink()


# ------------------------------------------------------------------ checking

ENTRY_RE = re.compile(r'^\.visible \.entry (\w+)\(\n(.*?)\n\)', re.S | re.M)
SIZE = {'u8': 1, 's8': 1, 'u16': 2, 's16': 2, 'f16': 2, 'bf16': 2, 'u32': 4, 's32': 4, 'f32': 4, 'u64': 8, 's64': 8,
        'f64': 8}


def check_suite(out, ids):
    """Self-consistency of every generated spec; returns a list of problems."""
    problems = []
    entries = {}
    for mod in (out / 'ptx').glob('*.ptx'):
        txt = mod.read_text()
        for m in ENTRY_RE.finditer(txt):
            params = [p.strip().rstrip(',').split()[-1] for p in m.group(2).split('\n')]
            entries[(mod.resolve(), m.group(1))] = params
    for fid in ids:
        found = list((out / 'cases').glob('*/%s/spec.json' % fid))
        if len(found) != 1:
            problems.append('%s: %d spec files' % (fid, len(found)))
            continue
        sp = found[0]
        spec = json.loads(sp.read_text())
        mod = (sp.parent / spec['module']).resolve()
        if not mod.exists():
            problems.append('%s: module %s missing' % (fid, mod))
            continue
        params = entries.get((mod, spec['kernel']))
        if params is None:
            problems.append('%s: entry %s not in %s' % (fid, spec['kernel'], mod.name))
            continue
        if len(params) != len(spec['args']):
            problems.append('%s: %d params, %d args' % (fid, len(params), len(spec['args'])))
        names = {b['name']: b for b in spec['buffers']}
        for p, a in zip(params, spec['args']):
            if 'buffer' in a:
                if a['buffer'] not in names:
                    problems.append('%s: arg buffer %s undefined' % (fid, a['buffer']))
                elif p != 'p_' + a['buffer']:
                    problems.append('%s: param %s bound to buffer %s' % (fid, p, a['buffer']))
            elif p != 'p_n':
                problems.append('%s: scalar arg for param %s' % (fid, p))
        for b in spec['buffers']:
            if b['type'] not in SIZE:
                problems.append('%s: buffer %s type %s' % (fid, b['name'], b['type']))
                continue
            if 'file' in b:
                fp = sp.parent / b['file']
                want = b['count'] * SIZE[b['type']]
                if not fp.exists() or fp.stat().st_size != want:
                    problems.append('%s: %s size %s, want %d' % (
                        fid, b['file'], fp.stat().st_size if fp.exists() else 'missing', want))
        for o in spec['outputs']:
            if o not in names:
                problems.append('%s: output %s not a buffer' % (fid, o))
        threads = spec['grid'][0] * spec['block'][0]
        n = spec['args'][-1].get('u32')
        if n is None or n > threads:
            problems.append('%s: n=%s threads=%d' % (fid, n, threads))
        if spec['block'][0] % 32:
            problems.append('%s: block not a multiple of 32' % fid)
    return problems


def dir_bytes(p):
    return sum(f.stat().st_size for f in Path(p).rglob('*') if f.is_file())


# ------------------------------------------------------------------ ptxas

def find_ptxas():
    p = shutil.which('ptxas')
    if p:
        return p
    for c in ('/usr/local/cuda/bin/ptxas', '/usr/local/cuda-13.0/bin/ptxas'):
        if os.path.exists(c):
            return c
    raise SystemExit('ptxas not found (put the CUDA bin directory on PATH)')


PTXAS_MSG = re.compile(r'line (\d+); (error|warning)\s*:\s*(.*)')


def ptxas_run(ptxas, path):
    try:
        r = subprocess.run([ptxas, '-arch=' + PTX_TARGET, '-o', os.devnull, str(path)],
                           capture_output=True, text=True, timeout=900)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return -1, 'ptxas timed out'


def ptxas_fix(out, fams, header, jobs, log):
    """Assemble every module; drop entries ptxas rejects, rewrite, retry.
    Returns ({form id: message} dropped, {form id: [warnings]})."""
    ptxas = find_ptxas()
    dropped, warnings = {}, {}
    live = {fam: list(fs) for fam, fs in fams.items()}
    pending = set(live)
    for attempt in range(MAX_RETRIES):
        if not pending:
            break
        spans = {}
        for fam in pending:
            txt, sp = emit_module(live[fam], header.get(fam, ''))
            (out / 'ptx' / ('%s.ptx' % fam)).write_text(txt)
            spans[fam] = sp
        t0 = time.time()
        with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
            res = dict(zip(pending, ex.map(lambda fam: ptxas_run(ptxas, out / 'ptx' / ('%s.ptx' % fam)),
                                           list(pending))))
        log('ptxas pass %d: %d modules in %.1fs' % (attempt + 1, len(pending), time.time() - t0))
        nxt = set()
        for fam, (rc, msg) in res.items():
            by_line = {}
            for line in msg.splitlines():
                m = PTXAS_MSG.search(line)
                if m:
                    by_line.setdefault((int(m.group(1)), m.group(2)), []).append(m.group(3).strip())
            owner = {}
            for fid, (a, b) in spans[fam].items():
                owner[fid] = (a, b)

            def who(ln):
                for fid, (a, b) in owner.items():
                    if a <= ln <= b:
                        return fid
                return None
            bad = {}
            for (ln, kind), msgs in by_line.items():
                fid = who(ln)
                text = 'line %d: %s' % (ln - owner[fid][0] + 1 if fid else ln, '; '.join(msgs))
                if kind == 'warning':
                    if fid:
                        warnings.setdefault(fid, []).append(text)
                    continue
                if fid:
                    bad.setdefault(fid, []).append(text)
            if rc == 0:
                continue
            if not bad:
                # nothing attributable: assemble entries one by one
                log('  %s: ptxas failed without a line in an entry; isolating entries' % fam)
                bad = isolate(ptxas, live[fam], header.get(fam, ''), jobs)
                if not bad:
                    log('  %s: could not isolate the failure: %s' % (fam, msg.strip()[:2000]))
                    for f in live[fam]:
                        dropped[f.id] = 'module failed as a whole: ' + msg.strip()[:500]
                    live[fam] = []
                    continue
            for fid, msgs in bad.items():
                dropped[fid] = 'ptxas: ' + ' | '.join(msgs)[:1000]
                log('  dropped %s: %s' % (fid, dropped[fid]))
            live[fam] = [f for f in live[fam] if f.id not in bad]
            nxt.add(fam)
        pending = nxt
    for fam in pending:   # still failing after MAX_RETRIES: drop the rest
        for f in live[fam]:
            dropped[f.id] = 'module still failing after %d ptxas passes' % MAX_RETRIES
        live[fam] = []
    return dropped, warnings, live


def isolate(ptxas, forms, extra, jobs):
    tmp = Path(tempfile.mkdtemp(prefix='conf_iso_'))
    try:
        def one(f):
            p = tmp / ('%s.ptx' % f.id)
            p.write_text(module_header(extra) + emit_entry(f))
            rc, msg = ptxas_run(ptxas, p)
            errs = [m.group(3) for m in map(PTXAS_MSG.search, msg.splitlines()) if m and m.group(2) == 'error']
            if not errs:
                errs = [' '.join(ln.strip() for ln in msg.splitlines()
                                 if ln.strip() and 'assembly aborted' not in ln)[:300]]
            return f.id, rc, errs
        bad = {}
        with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
            for fid, rc, errs in ex.map(one, forms):
                if rc != 0:
                    bad[fid] = errs
        return bad
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------ GPU runs

def worker(manifest, results, start):
    """Runs specs [start:] of manifest in this process; one JSON line per spec."""
    sys.path.insert(0, str(RUNSPEC_DIR))
    import runspec  # noqa: E402
    items = json.loads(Path(manifest).read_text())
    with open(results, 'a') as res:
        for i in range(start, len(items)):
            fid, spec, record_error = items[i]
            t0 = time.time()
            try:
                outs = runspec.run_spec(spec)
                runspec.write_expected(spec, outs)
                res.write(json.dumps({'i': i, 'id': fid, 'status': 'ok', 's': round(time.time() - t0, 4)}) + '\n')
                res.flush()
            except Exception as e:  # noqa: BLE001
                msg = '%s: %s' % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else '')
                rec = {'i': i, 'id': fid, 'status': 'failed', 'error': msg[:500]}
                if record_error and not isinstance(e, runspec.SpecError) and \
                        runspec.error_name(str(e)) not in ('unknown', 'hang'):
                    rec.update(status='error', error=runspec.write_error(spec, '%s: %s' % (type(e).__name__, e)),
                               s=round(time.time() - t0, 4))
                res.write(json.dumps(rec) + '\n')
                res.flush()
                if not context_healthy():
                    sys.exit(3)


def context_healthy():
    try:
        import cupy
        cupy.cuda.runtime.deviceSynchronize()
        a = cupy.arange(4)
        int(a.sum())
        return True
    except Exception:  # noqa: BLE001
        return False


def watch(cmd, results, stall):
    """Runs a worker; kills it when the results file has not grown for `stall`
    seconds (a hung launch).  Returns (exit code, stderr tail)."""
    errf = tempfile.TemporaryFile(mode='w+')
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf, text=True)
    last_size, last_change = -1, time.time()
    rc = None
    while rc is None:
        try:
            rc = p.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            size = results.stat().st_size if results.exists() else 0
            if size != last_size:
                last_size, last_change = size, time.time()
            elif time.time() - last_change > stall:
                p.kill()
                p.wait()
                rc = -9
                errf.write('\nworker killed: no progress for %ds (hung launch?)' % stall)
    errf.seek(0)
    err = errf.read().strip()
    errf.close()
    return rc, err


def run_gpu(out, live, log, stall=120, max_hangs=6):
    """Runs every spec in one worker process.  If a launch leaves the CUDA
    context unusable (or the worker dies or hangs), a fresh worker resumes
    after the form it was on.  Forms with record_error have a CUDA error or a
    hang recorded as their expected result (expected/ERROR); forms with
    hang_risk run last and are skipped once max_hangs hangs were seen.
    Returns {form id: status}: "ok", "error: <name>" (recorded), "failed:
    ...", "not run: ..."."""
    sys.path.insert(0, str(RUNSPEC_DIR))
    import runspec  # noqa: E402
    status = {}
    forms, fam_of = {}, {}
    order = []
    for fam, fs in sorted(live.items()):
        for f in fs:
            order.append(f)
            fam_of[f.id] = fam
            forms[f.id] = f
    order.sort(key=lambda f: (int(f.hang_risk), fam_of[f.id]))   # likely hangs last
    items = [(f.id, str(out / 'cases' / f.family / f.id / 'spec.json'), bool(f.record_error)) for f in order]
    if not items:
        return status
    tmp = Path(tempfile.mkdtemp(prefix='conf_run_'))
    secs = {}
    hangs = 0
    t0 = time.time()
    try:
        seg = 0
        while items:
            manifest = tmp / ('manifest%d.json' % seg)
            manifest.write_text(json.dumps(items))
            results = tmp / ('results%d.jsonl' % seg)
            seg += 1
            start, stuck, restart = 0, 0, None
            while start < len(items):
                cmd = [sys.executable, str(Path(__file__).resolve()), '--_worker', str(manifest), str(results),
                       str(start)]
                rc, err = watch(cmd, results, stall)
                done = {}
                if results.exists():
                    for line in results.read_text().splitlines():
                        try:
                            j = json.loads(line)
                        except ValueError:
                            continue
                        done[j['i']] = j
                for j in done.values():
                    if j['status'] == 'ok':
                        status[j['id']] = 'ok'
                    elif j['status'] == 'error':
                        status[j['id']] = 'error: ' + j.get('error', '')
                    else:
                        status[j['id']] = 'failed: ' + j.get('error', '')
                    secs[fam_of[j['id']]] = secs.get(fam_of[j['id']], 0.0) + j.get('s', 0.0)
                last = max(done) if done else -1
                if rc == 0 and last == len(items) - 1:
                    break
                nxt = max(last + 1, start)
                if rc == 3:
                    log('  CUDA context unusable after %s; restarting the worker' % items[last][0])
                    stuck = 0
                else:
                    # died or hung on items[nxt]: record it and go on after it
                    fid, spec, rec_err = items[nxt]
                    hung = rc == -9
                    msg = 'worker exited rc=%s: %s' % (rc, err[-400:])
                    log('  worker rc=%s at %s: %s' % (rc, fid, err[-400:]))
                    if hung:
                        hangs += 1
                    if hung and rec_err:
                        status[fid] = 'error: ' + runspec.write_error(
                            spec, 'timeout after %ds: the kernel did not finish (hang); the runner killed it'
                            % stall)
                    else:
                        status[fid] = 'failed: ' + msg
                    # a worker that hangs on its first spec has started; only
                    # workers that die before any spec count as stuck
                    stuck = stuck + 1 if last < start and not hung else 0
                    nxt += 1
                    if stuck >= 3:
                        log('  worker makes no progress; giving up on the remaining %d specs' % (len(items) - nxt))
                        for it in items[nxt:]:
                            status.setdefault(it[0], 'failed: not run (worker fails to start: %s)' % err[-200:])
                        nxt = len(items)
                    elif hangs >= max_hangs and any(forms[it[0]].hang_risk for it in items[nxt:]):
                        rest = items[nxt:]
                        skipped = [it for it in rest if forms[it[0]].hang_risk]
                        log('  %d hangs: skipping the remaining %d hang-prone forms' % (hangs, len(skipped)))
                        for it in skipped:
                            status[it[0]] = 'not run: skipped after %d hangs' % hangs
                        restart = [it for it in rest if not forms[it[0]].hang_risk]
                        break
                start = nxt
            items = restart or []
        for fam, fs in sorted(live.items()):
            if fs:
                nok = sum(1 for f in fs if status.get(f.id) == 'ok')
                nerr = sum(1 for f in fs if status.get(f.id, '').startswith('error'))
                log('run %-9s %4d/%4d ok, %d expected errors recorded (%.1fs in launches)' % (
                    fam, nok, len(fs), nerr, secs.get(fam, 0.0)))
        log('GPU runs took %.1fs (%d hangs)' % (time.time() - t0, hangs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return status


# ------------------------------------------------------------------ SASS

SASS_FUNC = re.compile(r'^\s*\.section\s+\.text\.([A-Za-z_$][\w$]*),')
SASS_INSN = re.compile(r'/\*[0-9a-f]{4,}\*/\s*(.*?)\s*;?\s*$')


def split_sass(text):
    """{function name: [instruction text, ...]} from nvdisasm -c output."""
    out, cur = {}, None
    for line in text.splitlines():
        m = SASS_FUNC.match(line)
        if m:
            cur = m.group(1)
            out[cur] = []
            continue
        if cur is None:
            continue
        m = SASS_INSN.search(line)
        if m and m.group(1):
            out[cur].append(' '.join(m.group(1).rstrip(' ;').split()))
    return out


def record_sass(out, fams, header, jobs, log):
    """ptxas -v and nvdisasm -c of each SASS family module: writes
    ptxas/<family>.txt and sass/<family>.sass; returns {form id: [SASS]}."""
    ptxas = find_ptxas()
    nvdisasm = shutil.which('nvdisasm') or os.path.join(os.path.dirname(ptxas), 'nvdisasm')
    cuobjdump = shutil.which('cuobjdump') or os.path.join(os.path.dirname(ptxas), 'cuobjdump')
    (out / 'sass').mkdir(parents=True, exist_ok=True)
    (out / 'ptxas').mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix='conf_sass_'))
    per_form = {}

    def one(fam):
        src = out / 'ptx' / ('%s.ptx' % fam)
        cubin = tmp / ('%s.cubin' % fam)
        r = subprocess.run([ptxas, '-arch=' + PTX_TARGET, '-v', str(src), '-o', str(cubin)],
                           capture_output=True, text=True, timeout=900)
        (out / 'ptxas' / ('%s.txt' % fam)).write_text('ptxas -arch=%s -v %s.ptx\n' % (PTX_TARGET, fam) +
                                                      r.stdout + r.stderr)
        if r.returncode != 0:
            return fam, 'ptxas failed: ' + (r.stdout + r.stderr)[-300:], {}
        tool = [nvdisasm, '-c', str(cubin)]
        d = subprocess.run(tool, capture_output=True, text=True, timeout=900)
        if d.returncode != 0:
            tool = [cuobjdump, '-sass', str(cubin)]
            d = subprocess.run(tool, capture_output=True, text=True, timeout=900)
        if d.returncode != 0:
            return fam, 'disassembly failed: ' + d.stderr[-300:], {}
        write_sass(out / 'sass', fam, '// %s of ptxas -arch=%s %s.ptx\n' % (
            ' '.join([os.path.basename(tool[0])] + tool[1:-1]), PTX_TARGET, fam) + d.stdout)
        return fam, 'ok', split_sass(d.stdout)

    todo = [fam for fam in fams if (fam in SASS_FAMILIES or fam.startswith('mma3_')) and fams[fam]]
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        for fam, st, funcs in ex.map(one, todo):
            log('sass %-9s %s (%d functions)' % (fam, st, len(funcs)))
            for f in fams[fam]:
                if f.id in funcs:
                    per_form[f.id] = funcs[f.id]
    shutil.rmtree(tmp, ignore_errors=True)
    return per_form


def write_sass(sdir, fam, text):
    """sass/<fam>.sass (contraction probes) or sass/<fam>.sass.gz."""
    import gzip
    if fam.startswith('fma_'):
        (sdir / ('%s.sass' % fam)).write_text(text)
        return
    with open(sdir / ('%s.sass.gz' % fam), 'wb') as raw:
        with gzip.GzipFile(filename='%s.sass' % fam, mode='wb', fileobj=raw, mtime=0) as f:
            f.write(text.encode())


def toolchain_info():
    info = {}
    for key, cmd in (('ptxas', ['ptxas', '--version']), ('nvdisasm', ['nvdisasm', '--version']),
                     ('nvcc', ['nvcc', '--version']),
                     ('gpu', ['nvidia-smi', '--query-gpu=name,driver_version', '--format=csv,noheader']),
                     ('cupy', [sys.executable, '-c', 'import cupy; print(cupy.__version__)'])):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            txt = (r.stdout or r.stderr).strip().splitlines()
            info[key] = txt[-1] if txt else 'unavailable'
        except (OSError, subprocess.TimeoutExpired) as e:
            info[key] = 'unavailable: %s' % e
    return info


# ------------------------------------------------------------------ main

def make_tar(out, path, families=None):
    """A .tgz of the suite (paths relative to the repository root when --out
    is inside it); with families, only those families' ptx/, cases/, sass/
    and ptxas/ files plus forms.json and run.log."""
    out = out.resolve()
    try:
        arc = str(out.relative_to(REPO))
    except ValueError:
        arc = out.name
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, 'w:gz', compresslevel=9) as tf:
        if families:
            subs = ['forms.json', 'run.log']
            for fam in sorted(families):
                subs += ['ptx/%s.ptx' % fam, 'cases/%s' % fam, 'sass/%s.sass' % fam, 'sass/%s.sass.gz' % fam,
                         'ptxas/%s.txt' % fam]
        else:
            subs = ['forms.json', 'ptx', 'cases', 'run.log', 'sass', 'ptxas']
        for sub in subs:
            p = out / sub
            if p.exists():
                tf.add(p, arcname='%s/%s' % (arc, sub))
    return path.stat().st_size


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', default=str(REPO / 'testdata' / 'conformance'))
    ap.add_argument('--run', action='store_true', help='assemble with ptxas and run on the GPU')
    ap.add_argument('--dry-run', action='store_true', help='write files and check them; no ptxas, no GPU')
    ap.add_argument('--only', action='append', help='family (repeatable); e.g. --only cvt --only warp')
    ap.add_argument('--tar', help='write a .tgz of the generated suite here')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 4)
    ap.add_argument('--list', action='store_true', help='print the families and form counts')
    ap.add_argument('--stall', type=float, default=120.0,
                    help='seconds without progress before a launch counts as hung and its worker is killed')
    ap.add_argument('--max-hangs', type=int, default=6,
                    help='after this many hangs the remaining hang-prone forms are skipped')
    ap.add_argument('--_worker', nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args._worker:
        worker(args._worker[0], args._worker[1], int(args._worker[2]))
        return

    t_start = time.time()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    forms, header = all_forms(args.only)
    fams = families_of(forms)
    if args.list:
        for fam, fs in fams.items():
            print('%-9s %5d' % (fam, len(fs)))
        print('total     %5d' % len(forms))
        return

    logf = open(out / 'run.log', 'w')

    def log(s):
        print(s, flush=True)
        logf.write(s + '\n')
        logf.flush()

    clean(out, fams, full=not args.only)
    write_modules(out, fams, header)
    nbytes = 0
    for f in forms:
        nbytes += write_case(out, f)
    log('wrote %d forms in %d modules (%.1fs)' % (len(forms), len(fams), time.time() - t_start))

    problems = check_suite(out, [f.id for f in forms])
    for p in problems[:50]:
        log('INCONSISTENT: ' + p)
    if problems:
        raise SystemExit('%d self-consistency problems' % len(problems))

    status = {f.id: 'not run' for f in forms}
    dropped, warnings, sass = {}, {}, {}
    tool = None
    if args.run:
        tool = toolchain_info()
        for k, v in tool.items():
            log('toolchain %s: %s' % (k, v))
        dropped, warnings, live = ptxas_fix(out, fams, header, args.jobs, log)
        for fid in dropped:
            f = next(x for x in forms if x.id == fid)
            shutil.rmtree(out / 'cases' / f.family / f.id, ignore_errors=True)
            status[fid] = 'dropped'
        sass = record_sass(out, live, header, args.jobs, log)
        status.update(run_gpu(out, live, log, stall=args.stall, max_hangs=args.max_hangs))

    # forms.json (merged with other families' records under --only)
    records = []
    fpath = out / 'forms.json'
    if args.only and fpath.exists():
        old = json.loads(fpath.read_text())
        records = [r for r in old.get('forms', []) if r['family'] not in fams]
    for f in forms:
        rec = form_record(f, status[f.id])
        if f.id in dropped:
            rec['dropped'] = dropped[f.id]
            del rec['spec']
        if f.id in warnings:
            rec['ptxas_warnings'] = warnings[f.id]
        if f.id in sass:
            if f.family.startswith('fma_'):
                rec['sass'] = sass[f.id]            # the contraction evidence, per probe
            else:
                rec['sass_lines'] = len(sass[f.id])
        if status[f.id].startswith('error: '):
            rec['expected_error'] = status[f.id][len('error: '):]
        records.append(rec)
    records.sort(key=lambda r: (r['family'], r['id']))
    old_tool = {}
    if args.only and fpath.exists():
        old_tool = json.loads(fpath.read_text()).get('toolchain', {})
    meta = {
        'generator': 'testdata/conformance/gen/gen.py',
        'ptx_version': PTX_VERSION,
        'target': PTX_TARGET,
        'block': BLOCK,
        'forms': records,
    }
    if tool or old_tool:
        # --only merges: the toolchain of the last run of each family group
        meta['toolchain'] = dict(old_tool)
        if tool:
            meta['toolchain'].update(tool)
            meta['toolchain']['families'] = sorted(set(meta['toolchain'].get('families', [])) | set(fams))
    with open(fpath, 'w') as fh:
        json.dump(meta, fh, indent=1)
        fh.write('\n')

    raw = dir_bytes(out / 'cases') + dir_bytes(out / 'ptx') + fpath.stat().st_size
    log('suite size: %.1f MB raw (cases %.1f MB, ptx %.1f MB, forms.json %.1f MB)' % (
        raw / 1e6, dir_bytes(out / 'cases') / 1e6, dir_bytes(out / 'ptx') / 1e6, fpath.stat().st_size / 1e6))
    if args.tar:
        size = make_tar(out, args.tar, families=set(fams) if args.only else None)
        log('tarball %s: %.2f MiB' % (args.tar, size / 2 ** 20))
    elif args.dry_run or not args.run:
        tmp = Path(tempfile.mkdtemp(prefix='conf_tar_'))
        size = make_tar(out, tmp / 'c.tgz')
        shutil.rmtree(tmp, ignore_errors=True)
        log('tarball (estimate): %.2f MiB' % (size / 2 ** 20))

    per = {}
    for r in records:
        per.setdefault(r['family'], [0, 0, 0, 0, 0])
        c = per[r['family']]
        c[0] += 1
        c[1] += r['status'] == 'dropped'
        c[2] += r['status'] == 'ok'
        c[3] += r['status'].startswith('error')
        c[4] += r['status'].startswith('failed')
    log('family      forms dropped   ok errors failed')
    for fam in sorted(per):
        c = per[fam]
        log('%-10s %6d %7d %4d %6d %6d' % (fam, *c))
    total = len(records)
    ndrop = sum(c[1] for c in per.values())
    nok = sum(c[2] for c in per.values())
    nerr = sum(c[3] for c in per.values())
    nfail = sum(c[4] for c in per.values())
    nvec = sum(r['vectors'] for r in records if r['status'] != 'dropped')
    log('elapsed %.1fs' % (time.time() - t_start))
    log('SUMMARY forms generated: %d, dropped: %d, run ok: %d, expected errors: %d, failed: %d, not run: %d, '
        'vectors total: %d' % (total, ndrop, nok, nerr, nfail, total - ndrop - nok - nerr - nfail, nvec))
    logf.close()


if __name__ == '__main__':
    main()
