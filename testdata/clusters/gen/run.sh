#!/bin/bash
# run.sh OUT — ptxvm issue 24 item 5 (thread-block clusters), from inside
# this folder on the GPU machine (sm_90, nvcc 12+). Compiles cluster.cu to
# PTX and to a binary at -O3 (with -lineinfo) and at -G -O0, runs every
# launch of the binary (main() in cluster.cu) and writes under OUT:
#   cluster.O3.ptx cluster.G.ptx           the PTX nvcc emits
#   cluster.O3.sass cluster.G.sass         cuobjdump -sass of the binaries
#   O3/ G/                                 per launch: inputs and outputs (.bin), launches.txt
#   versions.txt                           nvcc, driver, GPU
set -u
out=${1:?usage: run.sh OUT}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
{
	date -u
	nvcc --version
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
} >"$out/versions.txt" 2>&1
rc=0
for v in O3 G; do
	if [ $v = O3 ]; then flags="-O3 -lineinfo"; else flags="-G -O0"; fi
	t0=$(date +%s)
	nvcc -arch=sm_90 -std=c++17 $flags -ptx "$here/cluster.cu" -o "$out/cluster.$v.ptx" || rc=1
	nvcc -arch=sm_90 -std=c++17 $flags "$here/cluster.cu" -o "$build/cluster_$v" || { rc=1; continue; }
	cuobjdump -sass "$build/cluster_$v" >"$out/cluster.$v.sass" 2>&1
	echo "$v: compiled in $(( $(date +%s) - t0 )) s"
	timeout 40 "$build/cluster_$v" "$out/$v" || rc=1
	echo "$v: ran, rc so far $rc"
	cat "$out/$v/launches.txt" 2>/dev/null
done
du -sh "$out"
exit $rc
