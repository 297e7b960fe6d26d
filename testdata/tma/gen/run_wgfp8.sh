#!/bin/bash
# run_wgfp8.sh OUT — the fp8 and .b1 wgmma recording (ptxvm issue 24), from
# a folder holding gen_wgfp8.py's output (wgx_*.cu, bench_*.cu, inputs/,
# cases.txt) with rec.h and dev.h, on the GPU machine. Compiles every
# program for sm_90a in parallel (PTX, binary, SASS), runs each case in its
# own process; writes under OUT: ptx/ sass/ <case>/{dout.bin,meta.txt}
# bench_*/meta.txt versions.txt compile.txt run.txt.
set -u
out=${1:?usage: run_wgfp8.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/ptx" "$out/sass"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
{
	date -u
	nvcc --version
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
} >"$out/versions.txt" 2>&1
t0=$(date +%s)
compile() { # prog
	local p=$1
	{
		nvcc -arch=sm_90a -std=c++17 -O3 -lineinfo -ptx "$here/$p.cu" -o "$out/ptx/$p.ptx"
		nvcc -gencode arch=compute_90a,code=sm_90a -std=c++17 -O3 -lineinfo "$here/$p.cu" -o "$build/$p" &&
			cuobjdump -sass "$build/$p" >"$out/sass/$p.sass"
	} >"$build/compile.$p.txt" 2>&1 || echo "COMPILE FAILED $p" >>"$build/compile.$p.txt"
}
progs=$(cd "$here" && ls wgx_*.cu bench_*.cu probe_*.cu 2>/dev/null | sed 's/\.cu$//')
for p in $progs; do compile "$p" & done
wait
for p in $progs; do echo "== $p"; cat "$build/compile.$p.txt"; done >"$out/compile.txt" 2>&1
grep -h "COMPILE FAILED" "$build"/compile.*.txt
echo "compiled in $(($(date +%s) - t0)) s"
while read -r p c; do
	[ -x "$build/$p" ] || { echo "$p $c not built" | tee -a "$out/run.txt"; continue; }
	timeout 30 "$build/$p" "$out" "$c" "$here/inputs" >>"$out/run.txt" 2>&1
	echo "$p $c rc=$?" | tee -a "$out/run.txt"
done <"$here/cases.txt"
for p in bench_fp8 bench_b1; do
	[ -x "$build/$p" ] || continue
	timeout 60 "$build/$p" "$out" >>"$out/run.txt" 2>&1
	echo "$p rc=$?" | tee -a "$out/run.txt"
done
gzip -9 "$out"/sass/*.sass 2>/dev/null
echo "all done in $(($(date +%s) - t0)) s"
du -sh "$out"
