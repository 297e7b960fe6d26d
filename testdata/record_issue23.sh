#!/bin/sh
# record_issue23.sh PART — the GPU machine's runs of issue 23 (timing that
# holds on kernels it was not tuned on), from the repository root, with
# $OUT the folder whose files come back. Two parts, each well inside one
# device call's ten minutes:
#
#   sh testdata/record_issue23.sh mech     # the mechanism probes and the new perf pairs
#   sh testdata/record_issue23.sh public   # the public corpus (carry testdata/public/src)
#
# mech:   $OUT/mech.tgz (testdata/perf/gen/micro/sched.sh's five new
#         probes: sched/<probe>.{jsonl,ptx,sass}.gz and .log), $OUT/perf_new.tgz
#         (testdata/perf/gen/gen.py --only the new pair launches), $OUT/mech.log
# public: $OUT/public.tgz (testdata/public/gen/gen.py), $OUT/public.log
#
# Unpack here: tar -xzf mech.tgz -C testdata/perf/micro/; tar -xzf
# perf_new.tgz -C testdata/; tar -xzf public.tgz -C testdata/.
set -u
out=${OUT:?set OUT}
case ${1:?usage: record_issue23.sh mech|public} in
mech)
	{
		date -u
		nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
		t0=$(date +%s)
		sh testdata/perf/gen/micro/sched.sh "$out/sched" mech
		echo "probes: $(( $(date +%s) - t0 )) s"
		tar -czf "$out/mech.tgz" -C "$out" sched && rm -rf "$out/sched"
		t0=$(date +%s)
		python3 testdata/perf/gen/gen.py --out testdata/perf --tar "$out/perf_new.tgz" \
			--only reduce_warpatomic_1M,reduce_sharedatomic_1M,reduce_warpatomic_64M,reduce_sharedatomic_64M,matmul_naive_2048 \
			--skip source --budget 380
		echo "perf: $(( $(date +%s) - t0 )) s, rc $?"
		nvidia-smi --query-gpu=clocks.sm --format=csv
	} >"$out/mech.log" 2>&1
	;;
public)
	{
		date -u
		t0=$(date +%s)
		python3 testdata/public/gen/gen.py --out testdata/public --tar "$out/public.tgz" --budget 480
		echo "public: $(( $(date +%s) - t0 )) s, rc $?"
	} >"$out/public.log" 2>&1
	;;
esac
tail -5 "$out"/*.log
