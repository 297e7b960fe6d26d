#!/bin/bash
# run.sh OUT — ptxvm issue 28 (surfaces, layered/cube/mipmapped textures,
# txq/suq). From inside this folder on the GPU machine (sm_90, nvcc 12+).
# Compiles surf.cu to PTX and to a binary at -O3 -lineinfo and at -G -O0 (in
# parallel), runs each binary's launch groups (each a separate process, one after another, so a
# trap or an illegal instruction spoils only its own group) and writes:
#   OUT/surf.O3.ptx OUT/surf.G.ptx   the PTX nvcc emits
#   OUT/surf.O3.sass.gz OUT/surf.G.sass.gz  cuobjdump -sass
#   OUT/<O3|G>/<launch>/*.bin        inputs and outputs
#   OUT/<O3|G>/launches.<group>.txt  launch shapes and CUDA errors by name
#   OUT/versions.txt
set -u
out=${1:?usage: run.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
{
	date -u
	nvcc --version
	nvidia-smi --query-gpu=name,driver_version --format=csv
} >"$out/versions.txt" 2>&1
t0=$(date +%s)
nvcc -arch=sm_90 -std=c++17 -O3 -lineinfo -ptx "$here/surf.cu" -o "$out/surf.O3.ptx" >"$build/c1.log" 2>&1 &
nvcc -arch=sm_90 -std=c++17 -G -O0 -ptx "$here/surf.cu" -o "$out/surf.G.ptx" >"$build/c2.log" 2>&1 &
nvcc -arch=sm_90 -std=c++17 -O3 -lineinfo "$here/surf.cu" -o "$build/surf_O3" >"$build/c3.log" 2>&1 &
nvcc -arch=sm_90 -std=c++17 -G -O0 "$here/surf.cu" -o "$build/surf_G" >"$build/c4.log" 2>&1 &
wait
cat "$build"/c?.log
echo "compiled in $(( $(date +%s) - t0 )) s"
groups="main sustp_f32x4 sustp_f32x1 sustp_u8x4 sustp_s16x2 sustp_unorm8x4 sustp_f16x2 sustp1_f32 sured
s2dbytes_b32_clamp s2dbytes_b32_zero s2dbytes_v4b8_zero s2dbytes_v2b64_clamp surf_trap"
runv() {
	v=$1
	[ -x "$build/surf_$v" ] || { echo "$v: no binary"; return 1; }
	mkdir -p "$out/$v"
	for g in $groups; do
		timeout 10 "$build/surf_$v" "$out/$v" "$g" >"$out/$v/stderr.$g.txt" 2>&1
		echo "$v $g rc=$?"
	done
	cuobjdump -sass "$build/surf_$v" 2>&1 | gzip -c >"$out/surf.$v.sass.gz"
}
runv O3 >"$build/r1.log" 2>&1 &
runv G >"$build/r2.log" 2>&1 &
wait
cat "$build/r1.log" "$build/r2.log"
cat "$out"/O3/launches.*.txt
echo "total $(( $(date +%s) - t0 )) s"
du -sh "$out"
exit 0
