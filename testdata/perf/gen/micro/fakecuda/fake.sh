#!/bin/sh
# fake.sh OUTDIR PROBE... — without a GPU: build each probe (nvcc, as
# sched.sh does) against fake_cudart.cpp and run it, writing OUTDIR/PROBE.
# {jsonl,ptx}.gz as sched.sh would, with the clock records all zero (every
# "value" 0). For checking a probe's host code and the Go replay tests
# (PTXVM_MECH_DIR=OUTDIR go test ./scheduler/timing -run Mech) against
# the local nvcc's PTX; never for testdata.
set -eu
out=${1:?usage: fake.sh OUTDIR PROBE...}
shift
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
probes=""
for p in "$@"; do
	case $p in
	mech) probes="$probes atomics mlp dramscale pipes icache" ;;
	*) probes="$probes $p" ;;
	esac
done
for p in $probes; do
	{
		nvcc -arch=sm_90 -O3 -ptx -o "$out/$p.ptx" "$here/../$p.cu" &&
			nvcc -arch=sm_90 -O3 -cudart none -o "$out/$p" "$here/../$p.cu" "$here/fake_cudart.cpp" &&
			"$out/$p" "$out/$p.jsonl"
	} >"$out/$p.log" 2>&1 || echo "$p failed: see $out/$p.log" >&2
	rm -f "$out/$p"
	gzip -9 -f "$out/$p.jsonl" "$out/$p.ptx" 2>/dev/null || true
done
