#!/bin/bash
# run.sh OUT — ptxvm issue 28: the surface and texture recordings. From inside
# this folder on the GPU machine (sm_90, nvcc 13); about 1 minute.
#   surf.cu: surfaces (suld/sust.b, sust.p, sured, suq), layered and cube
#     textures; each launch group its own process:
#     OUT/surf/{surf.O3.ptx,surf.G.ptx,O3/<launch>/*.bin,O3/launches.<group>.txt,...}
#   mip.cu: mipmapped textures (tex.level, tex.grad), cube maps, tld4 on
#     cube/a2d/acube; compiled once per kernel family (-DFAM=n) so that a
#     module the driver refuses spoils only its family:
#     OUT/mip/{ptx/mip<n>.<O3|G>.ptx,O3/<group>/*.bin,...}
#   q.cu: one txq/suq query per module (a refused query fails its module or
#     kernel): OUT/mip/q/<query>.{txt,bin}, OUT/mip/ptx/q.<query>.ptx
# SEED=k (k > 0) draws held-out inputs (a different random stream).
# Then: make_cases.py OUT/surf and make_mip_cases.py OUT/mip.
set -u
out=${1:?usage: run.sh OUT}
mkdir -p "$out/surf/O3" "$out/surf/G" "$out/mip/ptx" "$out/mip/q" "$out/mip/O3" "$out/mip/G"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
seed=${SEED:-0}
export PATH=/usr/local/cuda/bin:$PATH
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
{ date -u; nvcc --version; nvidia-smi --query-gpu=name,driver_version --format=csv; echo "SEED=$seed"; } >"$out/versions.txt" 2>&1
t0=$(date +%s)
txq="txq.width txq.height txq.depth txq.channel_data_type txq.channel_order txq.normalized_coords txq.array_size
txq.num_mipmap_levels txq.num_samples txq.filter_mode txq.addr_mode_0 txq.addr_mode_1 txq.addr_mode_2 txq.force_unnormalized_coords"
txql="txq.level.width txq.level.height txq.level.depth"
suq="suq.width suq.height suq.depth suq.channel_data_type suq.channel_order suq.array_size suq.memory_layout"
fams="1 2 3 4 5 6 7 8 9 10 11 12 13 14"
{
	echo "-arch=sm_90 -std=c++17 -O3 -lineinfo -ptx $here/surf.cu -o $out/surf/surf.O3.ptx"
	echo "-arch=sm_90 -std=c++17 -G -O0 -ptx $here/surf.cu -o $out/surf/surf.G.ptx"
	echo "-arch=sm_90 -std=c++17 -O3 -lineinfo $here/surf.cu -o $build/surf.O3"
	echo "-arch=sm_90 -std=c++17 -G -O0 $here/surf.cu -o $build/surf.G"
	for f in $fams; do
		echo "-arch=sm_90 -std=c++17 -O3 -lineinfo -DFAM=$f -ptx $here/mip.cu -o $out/mip/ptx/mip$f.O3.ptx"
		echo "-arch=sm_90 -std=c++17 -G -O0 -DFAM=$f -ptx $here/mip.cu -o $out/mip/ptx/mip$f.G.ptx"
		echo "-arch=sm_90 -std=c++17 -O3 -lineinfo -DFAM=$f $here/mip.cu -o $build/mip$f.O3"
		echo "-arch=sm_90 -std=c++17 -G -O0 -DFAM=$f $here/mip.cu -o $build/mip$f.G"
	done
	for op in $txq; do echo "-arch=sm_90 -O3 -DOP=$op $here/q.cu -o $build/q.$op"; echo "-arch=sm_90 -O3 -DOP=$op -ptx $here/q.cu -o $out/mip/ptx/q.$op.ptx"; done
	for op in $txql; do echo "-arch=sm_90 -O3 -DOP=$op -DLEVEL $here/q.cu -o $build/q.$op"; echo "-arch=sm_90 -O3 -DOP=$op -DLEVEL -ptx $here/q.cu -o $out/mip/ptx/q.$op.ptx"; done
	for op in $suq; do echo "-arch=sm_90 -O3 -DOP=$op -DSURF $here/q.cu -o $build/q.$op"; echo "-arch=sm_90 -O3 -DOP=$op -DSURF -ptx $here/q.cu -o $out/mip/ptx/q.$op.ptx"; done
} >"$build/jobs"
xargs -P 16 -L 1 sh -c 'nvcc "$@" >/dev/null 2>&1 || echo "COMPILE FAILED: nvcc $*"' sh <"$build/jobs"
echo "compiled $(wc -l <"$build/jobs") jobs in $(( $(date +%s) - t0 )) s"
sgroups=${SURF_GROUPS:-"main sustp_f32x4 sustp_f32x1 sustp_u8x4 sustp_s16x2 sustp_unorm8x4 sustp_f16x2 sustp1_f32 sured
s2dbytes_b32_clamp s2dbytes_b32_zero s2dbytes_v4b8_zero s2dbytes_v2b64_clamp surf_trap"}
mgroups=${MIP_GROUPS:-"1:lodsweep1d_ll 1:lod1d_ll 1:lod1d_pp 1:lod1d_lp_mirror
2:lodsweep2d_ll 2:lodsweep2d_pl 2:lodsweep2d_lp 2:lodsweep2d_pp 2:lodsweep2d_ll_bias 2:lod2d_ll 2:lod2d_ll_wrap 2:lod2d_ll_border 2:lod2d_lp 2:lod2d_pl 2:lod2d_pp 2:lod2d_ll_bias
3:lodsweep3d_ll 3:lod3d_ll 3:lod3d_pp 4:gradsweep1d_ll 4:grad1d_ll
5:gradsweep2d_ll 5:gradsweep2d_lp 5:gradsweep2d_ll_aniso16 5:gradsweep2d_ll_aniso4 5:grad2d_ll 5:grad2d_pp 5:grad2d_ll_aniso16
5:gradprobe0 5:gradprobe1 5:gradprobe2 5:gradprobe3 5:gradprobe4 5:gradprobe5 5:gradprobe6 5:gradprobe7
5:gradprobe10 5:gradprobe11 5:gradprobe12 5:gradprobe13 5:gradprobe14 5:gradprobe15 5:gradprobe16 5:gradprobe17
5:gradprobe18 5:gradprobe19 5:gradprobe20 5:gradprobe21 5:gradprobe22 5:gradprobe23
5:gradprobe24 5:gradprobe25 5:gradprobe26 5:gradprobe27
5:gradprobe28 5:gradprobe29 5:gradprobe30 5:gradprobe31 5:gradprobe32 5:gradprobe33 5:gradprobe34 5:gradprobe35 5:gradprobe36 5:gradprobe37 5:gradprobe38
6:gradsweep3d_ll 6:grad3d_ll 6:grad3dprobe0 6:grad3dprobe1 6:grad3dprobe2 6:grad3dprobe3 6:grad3dprobe4
6:grad3dprobe5 6:grad3dprobe6 6:grad3dprobe7 6:grad3dprobe8 6:grad3dprobe9 6:grad3dprobe10
6:grad3dprobe11 6:grad3dprobe12 6:grad3dprobe13 6:grad3dprobe14 6:grad3dprobe15 6:grad3dprobe16 6:grad3dprobe17 6:grad3dprobe18
13:gradsweepcube_ll 13:gradcube_ll
13:gradcubeprobe0 13:gradcubeprobe1 13:gradcubeprobe2 13:gradcubeprobe3 13:gradcubeprobe4 13:gradcubeprobe5
13:gradcubeprobe6 13:gradcubeprobe7 13:gradcubeprobe8 13:gradcubeprobe9 13:gradcubeprobe10 14:tld4mip2d 14:tld4mip2d_clamp 7:lodsweepcube_ll 7:lodcube_ll 7:lodcube_pp 8:lod2dl_ll
9:tld4cube 10:tld4a2d 10:tld4a2d_wrap 11:tld4acube 12:cube16_point 12:cube16_linear"}
runv() {
	v=$1
	for g in $sgroups; do
		SEED=$seed timeout 20 "$build/surf.$v" "$out/surf/$v" "$g" >"$out/surf/$v/stderr.$g.txt" 2>&1
		echo "surf $v $g rc=$?"
	done
	[ -x "$build/surf.$v" ] && cuobjdump -sass "$build/surf.$v" 2>&1 | gzip -c >"$out/surf/surf.$v.sass.gz"
	for fg in $mgroups; do
		f=${fg%%:*} g=${fg#*:}
		[ -x "$build/mip$f.$v" ] || { echo "mip $v $g: no binary mip$f"; continue; }
		timeout 20 "$build/mip$f.$v" "$out/mip/$v" "$g" "$seed" >"$out/mip/$v/stderr.$g.txt" 2>&1
		echo "mip $v $g rc=$?"
	done
}
runq() {
	for op in $txq $txql $suq; do
		[ -x "$build/q.$op" ] || { echo "$op: no binary" >"$out/mip/q/$op.txt"; continue; }
		timeout 20 "$build/q.$op" "$out/mip/q/$op.bin" >"$out/mip/q/$op.txt" 2>&1
		echo "rc=$?" >>"$out/mip/q/$op.txt"
	done
}
runv O3 >"$build/r1.log" 2>&1 &
runv G >"$build/r2.log" 2>&1 &
runq &
wait
cat "$build/r1.log" "$build/r2.log"
for f in $fams; do
	[ -x "$build/mip$f.O3" ] && cuobjdump -sass "$build/mip$f.O3" 2>&1 | gzip -c >"$out/mip/ptx/mip$f.O3.sass.gz"
done
grep -h "ERROR" "$out"/surf/O3/launches.*.txt "$out"/mip/O3/launches.*.txt
grep -h "ERROR\\|FAILED\\|no binary" "$out"/mip/q/*.txt
echo "total $(( $(date +%s) - t0 )) s"
du -sh "$out"
exit 0
