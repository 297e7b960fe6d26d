#!/bin/sh
# sched.sh OUTDIR [PROBE...] — build and run probes of the H100's timing on
# the GPU machine; PROBE is sched (placement and fetch, sched.cu), latency
# (load latencies and barriers under load, latency.cu), turnaround (from
# a block's end to the next block's start, turnaround.cu), phases (where
# reduce_shared's blocks are in their lives, phases.cu) or contend (how
# its trees on one SM slow each other, contend.cu) or burst (where a
# one-wave transpose's blocks spend their lives, burst.cu); all of these by
# default. The mechanism probes of issue 23 (mech.h; replayed by
# scheduler/timing/mech_test.go): atomics (L2, warp-aggregated and shared
# atomics, atomics.cu), mlp (misses in flight, mlp.cu), dramscale (the L2
# and DRAM at scale, dramscale.cu), pipes (shuffle, SFU, conversion and FMA
# pipes under many warps, pipes.cu), icache (many-warp loops of 8-128 KB,
# icache.cu), casspin (shared atomics that ptxas makes compare-and-store
# loops, with equal and distinct values per lane, casspin.cu), tensor
# (mma.sync, ldmatrix and cp.async chains, tensor.cu); `mech` names all
# seven. For each: OUTDIR/PROBE.jsonl.gz (the
# records), OUTDIR/PROBE.ptx.gz (the probes' PTX, which the timing tests
# run), OUTDIR/PROBE.sass.gz (their machine code), OUTDIR/PROBE.log.
# The probes build in parallel, then run one at a time (each under a
# 300-second timeout where timeout(1) exists); one that fails leaves its
# log and the others go on.
set -eu
out=${1:?usage: sched.sh OUTDIR [PROBE...]}
shift
here=$(dirname "$0")
mkdir -p "$out"
probes=""
for p in ${@:-sched latency turnaround phases contend burst}; do
	case $p in
	mech) probes="$probes atomics mlp dramscale pipes icache casspin tensor" ;;
	*) probes="$probes $p" ;;
	esac
done
for p in $probes; do
	{
		{
			nvcc --version | tail -2
			nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
			nvcc -arch=sm_90 -O3 -ptx -o "$out/$p.ptx" "$here/$p.cu"
			nvcc -arch=sm_90 -O3 -o "$out/$p" "$here/$p.cu"
			cuobjdump -sass "$out/$p" >"$out/$p.sass"
		} >"$out/$p.log" 2>&1 || { echo "build failed" >>"$out/$p.log"; rm -f "$out/$p"; }
	} &
done
wait
to=""
if command -v timeout >/dev/null 2>&1; then to="timeout 300"; fi
for p in $probes; do
	{
		if [ -x "$out/$p" ]; then
			s=$(date +%s)
			rc=0
			$to "$out/$p" "$out/$p.jsonl" || rc=$?
			echo "rc $rc ($(($(date +%s) - s)) s)"
			[ "$rc" = 0 ]
		else
			false
		fi
	} >>"$out/$p.log" 2>&1 || echo "$p failed: see $out/$p.log" >&2
	rm -f "$out/$p"
	gzip -9 -f "$out/$p.sass" "$out/$p.jsonl" "$out/$p.ptx" 2>/dev/null || true
done
