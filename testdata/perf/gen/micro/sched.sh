#!/bin/sh
# sched.sh OUTDIR [PROBE...] — build and run probes of the H100's timing on
# the GPU machine; PROBE is sched (placement and fetch, sched.cu), latency
# (load latencies and barriers under load, latency.cu), turnaround (from
# a block's end to the next block's start, turnaround.cu), phases (where
# reduce_shared's blocks are in their lives, phases.cu) or contend (how
# its trees on one SM slow each other, contend.cu) or burst (where a
# one-wave transpose's blocks spend their lives, burst.cu); all by default. For
# each: OUTDIR/PROBE.jsonl.gz (the records), OUTDIR/PROBE.ptx.gz (the
# probes' PTX, which the timing tests run), OUTDIR/PROBE.sass.gz (their
# machine code), OUTDIR/PROBE.log.
set -eu
out=${1:?usage: sched.sh OUTDIR [PROBE...]}
shift
here=$(dirname "$0")
mkdir -p "$out"
for p in ${@:-sched latency turnaround phases contend burst}; do
	{
		nvcc --version | tail -2
		nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
		nvcc -arch=sm_90 -O3 -ptx -o "$out/$p.ptx" "$here/$p.cu"
		nvcc -arch=sm_90 -O3 -o "$out/$p" "$here/$p.cu"
		cuobjdump -sass "$out/$p" >"$out/$p.sass"
		"$out/$p" "$out/$p.jsonl"
		echo "rc $?"
	} >"$out/$p.log" 2>&1 || echo "$p failed: see $out/$p.log" >&2
	rm -f "$out/$p"
	gzip -9 -f "$out/$p.sass" "$out/$p.jsonl" "$out/$p.ptx" || true
done
