#!/bin/sh
# gen.sh OUTDIR — record the host-memory corpus on the GPU machine (issue
# 26): builds hostmem.cu, runs it (OUTDIR/hostmem.jsonl), profiles its
# mapped-memory kernels under Nsight Compute (OUTDIR/ncu_mapped.csv: the
# aperture, L2 and DRAM counters; OUTDIR/ncu_mapped_aperture.csv: every
# metric whose name has "aperture" or "pcie"), and keeps the kernels' PTX
# (OUTDIR/hostmem.O3.ptx: the corpus specs run it), their SASS and ptxas
# -v, and the host link as nvidia-smi reports it (OUTDIR/link.txt).
set -u
out=${1:?usage: gen.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
b=$(mktemp -d)
{
	nvcc --version | tail -2
	nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,clocks.sm,clocks.mem --format=csv
	nvidia-smi topo -m
	nvidia-smi -q | sed -n '/PCI/,/Bridge Chip/p'
	nproc
	grep -m1 'model name' /proc/cpuinfo
	free -g
} >"$out/link.txt" 2>&1
nvcc -arch=sm_90 -O3 -ptx -o "$out/hostmem.O3.ptx" "$here/../../../kernels/cuda/hostmem.cu"
nvcc -arch=sm_90 -O3 -Xptxas -v -cubin -o "$b/k.cubin" "$here/../../../kernels/cuda/hostmem.cu" >"$out/ptxas.txt" 2>&1
cuobjdump -sass "$b/k.cubin" | grep -v '^\s*/\* [0-9a-f]* \*/\s*$' >"$out/hostmem.sass" 2>&1
nvcc -arch=sm_90 -O3 -o "$b/hostmem" "$here/hostmem.cu" || exit 1
(cd "$b" && timeout 400 ./hostmem all) >"$out/hostmem.jsonl" 2>"$out/hostmem.err"
echo "hostmem exit $?" >>"$out/hostmem.err"
m='gpu__time_duration.sum,sm__cycles_elapsed.max,launch__registers_per_thread,launch__grid_size,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_aperture_sysmem_op_read.sum,lts__t_sectors_aperture_sysmem_op_write.sum,lts__t_sectors_aperture_device_op_read.sum,lts__t_sectors_aperture_device_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio'
(cd "$b" && timeout 200 ncu --csv --page raw --metrics "$m" ./hostmem mapped) >"$out/ncu_mapped.csv" 2>"$out/ncu_mapped.err"
(cd "$b" && timeout 200 ncu --csv --page raw --metrics 'regex:.*(aperture|pcie).*' ./hostmem mapped) >"$out/ncu_mapped_aperture.csv" 2>"$out/ncu_mapped_aperture.err"
ncu --query-metrics --chip gh100 2>&1 | grep -i -E 'aperture|pcie|sysmem|nvlrx|nvltx' >"$out/ncu_query.txt"
rm -rf "$b"
ls -l "$out"
