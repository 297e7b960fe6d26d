#!/bin/sh
# sched.sh OUTDIR — build and run the placement and fetch probes (sched.cu)
# on the GPU machine: OUTDIR/sched.jsonl.gz (the records), OUTDIR/sched.ptx.gz
# (the probes' PTX, which the timing tests run), OUTDIR/sched.sass.gz (their
# machine code, for the instruction counts of the fetch kernels),
# OUTDIR/sched.log.
set -eu
out=${1:?usage: sched.sh OUTDIR}
here=$(dirname "$0")
mkdir -p "$out"
{
	nvcc --version | tail -2
	nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
	nvcc -arch=sm_90 -O3 -ptx -o "$out/sched.ptx" "$here/sched.cu"
	nvcc -arch=sm_90 -O3 -o "$out/sched" "$here/sched.cu"
	cuobjdump -sass "$out/sched" >"$out/sched.sass"
	"$out/sched" "$out/sched.jsonl"
	echo "rc $?"
} >"$out/sched.log" 2>&1
rm -f "$out/sched"
gzip -9 -f "$out/sched.sass" "$out/sched.jsonl" "$out/sched.ptx"
