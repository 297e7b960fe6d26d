#!/usr/bin/env bash
# Records issue 7's GPU ground truth in one go, on the GPU machine, from the
# repository root:
#
#     OUT=/some/dir bash testdata/apps/gen/record_issue7.sh
#
# 1. conformance families that should not hang (fma_*, addr, carry,
#    ptxforms, video)  -> testdata/conformance/issue7   ($OUT/conf7a.tgz)
# 2. the application corpus, four builds, ncu         -> testdata/apps
#                                                        ($OUT/apps.tgz)
# 3. conformance families that may hang or fault the GPU (barerr, warpdiv),
#    last, with a short stall timeout and a hang budget ($OUT/conf7b.tgz)
#
# Each phase's output is tee'd to $OUT/<phase>.log; $OUT/toolchain.txt holds
# the versions. The whole run stays within TOTAL seconds (default 420): the
# application corpus gets what phase 1 leaves minus a reserve for phase 3.
# Unpack on the development machine with tar -xzf X.tgz -C <repo root>, in
# the order conf7a, apps, conf7b (conf7b's forms.json is the merged one).
set -u -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:?set OUT to a directory for the tarballs and logs}
TOTAL=${TOTAL:-420}
RESERVE=${RESERVE:-100}
T0=$(date +%s)
for d in /usr/local/cuda/bin /usr/local/cuda-13*/bin; do
    [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
done
PY=${PYTHON:-python3}
elapsed() { echo $(( $(date +%s) - T0 )); }

{
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvcc --version | tail -2
    ptxas --version | tail -1
    nvdisasm --version | tail -1
    cuobjdump --version | tail -1
    (ncu --version || /opt/nvidia/nsight-compute/*/ncu --version) 2>/dev/null | tail -1
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
    $PY -c 'import sys, cupy, numpy; print("python", sys.version.split()[0], "cupy", cupy.__version__, "numpy", numpy.__version__)'
} >"$OUT/toolchain.txt" 2>&1
cat "$OUT/toolchain.txt"

CONF=testdata/conformance/gen/gen.py
C7=testdata/conformance/issue7

echo "=== phase 1: conformance (no hangs expected) t=$(elapsed)s"
$PY $CONF --out $C7 --run --only fma --only addr --only carry --only ptxforms --only video \
    --stall 20 --max-hangs 3 --tar "$OUT/conf7a.tgz" 2>&1 | tee "$OUT/conf7a.log" | tail -25
rc1=$?

BUDGET=$(( TOTAL - $(elapsed) - RESERVE ))
[ $BUDGET -lt 150 ] && BUDGET=150
echo "=== phase 2: application corpus, budget ${BUDGET}s t=$(elapsed)s"
$PY testdata/apps/gen/gen.py --out testdata/apps --budget $BUDGET --spec-timeout 30 \
    --ncu-variants O3,nofma,fast,G --tar "$OUT/apps.tgz" 2>&1 | tee "$OUT/apps.log" | tail -30
rc2=$?

echo "=== phase 3: conformance (may hang or fault) t=$(elapsed)s"
$PY $CONF --out $C7 --run --only barerr --only warpdiv --stall 8 --max-hangs 8 \
    --tar "$OUT/conf7b.tgz" 2>&1 | tee "$OUT/conf7b.log" | tail -25
rc3=$?

echo "=== summary t=$(elapsed)s (exit codes: conf7a $rc1, apps $rc2, conf7b $rc3)"
$PY - <<'EOF'
import json
try:
    m = json.load(open("testdata/apps/manifest.json"))
    vs = list(m["variants"])
    print("apps: %d cases; elapsed %ss" % (len(m["cases"]), m.get("elapsed_s")))
    print("%-8s %6s %6s %6s" % ("variant", "ok", "fail", "ncu"))
    for v in vs:
        ok = sum(1 for e in m["cases"] if e["status"].get(v) == "ok")
        nc = sum(1 for e in m["cases"] if v in e.get("ncu", {}))
        print("%-8s %6d %6d %6d" % (v, ok, len(m["cases"]) - ok, nc))
    cyc = sorted(((e["ncu"]["O3"].get("sm__cycles_elapsed.max", 0), e["name"]) for e in m["cases"]
                  if "O3" in e.get("ncu", {})), reverse=True)
    print("O3 launches >= 30000 cycles: %d: %s" % (sum(1 for c, _ in cyc if c >= 30000),
          ", ".join("%s=%d" % (n, c) for c, n in cyc[:14])))
except Exception as e:
    print("apps summary failed:", e)
try:
    f = json.load(open("testdata/conformance/issue7/forms.json"))
    per = {}
    for r in f["forms"]:
        s = r["status"].split(":")[0]
        per.setdefault(r["family"], {}).setdefault(s, 0)
        per[r["family"]][s] += 1
    print("conformance/issue7:")
    for fam in sorted(per):
        print("  %-10s %s" % (fam, " ".join("%s=%d" % kv for kv in sorted(per[fam].items()))))
except Exception as e:
    print("conformance summary failed:", e)
EOF
ls -la "$OUT"
