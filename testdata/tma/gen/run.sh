#!/bin/bash
# run.sh OUT — ptxvm issue 24 items 4 and 6 (bulk copies, TMA, wgmma), from
# inside this folder on the GPU machine (H100/H200, nvcc 12.3+). Compiles
# every program (in parallel) to PTX and to a binary at -O3 (-lineinfo) and,
# for the corpus programs, at -G -O0; runs each case in its own process and
# writes under OUT:
#   ptx/<prog>.<O3|G>.ptx  sass/<prog>.<O3|G>.sass   what nvcc emitted and what ran
#   O3/<case>/ G/<case>/                            per case: meta.txt and .bin files
#   versions.txt compile.txt                        toolchain, GPU, compiler messages
set -u
out=${1:?usage: run.sh OUT}
mkdir -p "$out/ptx" "$out/sass"
here=$(cd "$(dirname "$0")" && pwd)
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
{
	date -u
	nvcc --version
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
} >"$out/versions.txt" 2>&1
# (the programs present: a request may carry some of them only)
SM90="$(cd "$here" && ls bulk.cu tma.cu tma_red.cu bench_tma.cu red_*.cu rs2s_*.cu 2>/dev/null | sed 's/\.cu$//')"
SM90A="$(cd "$here" && ls wg_*.cu bench_wg.cu matmul_tma_wgmma.cu 2>/dev/null | sed 's/\.cu$//')"
CORPUS="bulk tma tma_red wg_f16 matmul_tma_wgmma"
# binarch: a binary's targets. For sm_90a only SASS for sm_90a: nvcc 13's
# -arch=sm_90a also embeds compute_90 PTX, which ptxas refuses for wgmma
# (the second recording).
binarch() {
	if [ "$1" = sm_90a ]; then echo "-gencode arch=compute_90a,code=sm_90a"; else echo "-arch=$1"; fi
}
compile() { # prog arch variant
	local p=$1 a=$2 v=$3 flags="-O3 -lineinfo"
	[ "$v" = G ] && flags="-G -O0"
	{
		nvcc -arch=$a -std=c++17 $flags -ptx "$here/$p.cu" -o "$out/ptx/$p.$v.ptx" &&
			{ nvcc $(binarch $a) -std=c++17 $flags "$here/$p.cu" -o "$build/$p.$v" -lcuda ||
				nvcc $(binarch $a) -std=c++17 $flags "$here/$p.cu" -o "$build/$p.$v" -L/usr/local/cuda/lib64/stubs -lcuda; } &&
			cuobjdump -sass "$build/$p.$v" >"$out/sass/$p.$v.sass"
	} >"$build/compile.$p.$v.txt" 2>&1 || echo "COMPILE FAILED $p $v" >>"$build/compile.$p.$v.txt"
}
t0=$(date +%s)
n=0
for p in $SM90 $SM90A; do
	a=sm_90
	case $p in wg_* | bench_wg | matmul_tma_wgmma) a=sm_90a ;; esac
	compile $p $a O3 &
	case " $CORPUS " in *" $p "*) compile $p $a G & ;; esac
	n=$((n + 1))
	if [ $((n % 12)) = 0 ]; then wait; fi
done
wait
cat "$build"/compile.*.txt >"$out/compile.txt" 2>/dev/null
grep -h "COMPILE FAILED" "$build"/compile.*.txt
echo "compiled in $(( $(date +%s) - t0 )) s"
one() { # binary variant case
	timeout 20 "$build/$1.$2" "$out/$2" $3 >>"$out/run.$2.txt" 2>&1
	echo "$1 $3 $2 rc=$?" | tee -a "$out/run.$2.txt"
}
for v in O3 G; do
	mkdir -p "$out/$v"
	for p in bulk tma tma_red matmul_tma_wgmma $(cd "$here" && ls red_*.cu rs2s_*.cu wg_*.cu 2>/dev/null | sed 's/\.cu$//'); do
		[ -x "$build/$p.$v" ] || continue
		case $p in
		bulk) cases="g2s s2g s2s" ;;
		tma) cases=$("$build/$p.$v" list) ;;
		tma_red) cases="tred_add_f32 tred_min_s32" ;;
		wg_*) cases=$("$build/$p.$v" list) ;;
		*) cases=x ;;
		esac
		for c in $cases; do one $p $v $c; done
	done
done
for p in bench_wg bench_tma; do
	[ -x "$build/$p.O3" ] && one $p O3 x
done
echo "all done in $(( $(date +%s) - t0 )) s"
du -sh "$out"
# G's files equal to O3's (the inputs, and outputs that agree) are removed
# and listed in G/same_as_O3.txt.
if [ -d "$out/G" ]; then
	(cd "$out/G" && find . -name '*.bin' | while read -r f; do
		if cmp -s "$f" "../O3/$f"; then echo "$f"; rm -f "$f"; fi
	done) >"$out/G/same_as_O3.txt"
fi
du -sh "$out"
