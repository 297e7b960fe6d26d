#!/bin/bash
# Records Nsight Compute's per-unit L2 counters (tags, data banks, fills,
# the crossbar ports and the fabric between the L2's two partitions) of the
# perf corpus's transposes, copies and store stream on the GPU machine, one
# launch each, caches flushed, clocks as the card runs them; then merges
# them into l2units.csv (one row a case, ncu's raw names); then copy_perm
# at 8 and 32 MiB with strides of 1, 8 and 32 words into strides.csv. Run
# from the repository root with OUT set to where the CSVs go; about 50 s on
# the H200.
set -e
M="gpu__time_duration.sum,sm__cycles_elapsed.avg,lts__cycles_elapsed.avg,lts__cycles_elapsed.avg.per_second,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests.sum,lts__t_tag_requests.sum,lts__d_sectors_fill_device.sum,lts__d_sectors.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum"
for u in lts__t_tag_requests lts__t_sectors lts__d_sectors lts__d_sectors_fill_device lts__xbar2lts_cycles_active lts__lts2xbar_cycles_active lts__t_sectors_srcunit_tex lts__t_sectors_srcunit_ltcfabric dram__throughput lts__d_atomic_input_cycles_active lts__t_sectors_op_read lts__t_sectors_op_write; do
  M="$M,$u.avg.pct_of_peak_sustained_elapsed,$u.max.pct_of_peak_sustained_elapsed"
done
M="$M,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
tmp=$(mktemp -d)
for c in transpose_padded_2048:transpose_padded transpose_padded_3072:transpose_padded transpose_padded_4096:transpose_padded \
         transpose_shared_2048:transpose_shared transpose_shared_4096:transpose_shared transpose_naive_4096:transpose_naive \
         store_fill_64MiB:store_fill copy_perm_stride1:copy_perm copy_perm_stride32:copy_perm; do
  n=${c%%:*}; k=${c##*:}
  ncu --clock-control none --cache-control all --csv --page raw --metrics "$M" -k "regex:^$k\$" \
    python3 testdata/nvcc/gen/runspec.py --no-write testdata/perf/cases/$n/O3/spec.json > $tmp/$n.csv
done
merge() { python3 - "$1" "$2" <<'PY'
import csv, glob, os, sys
rows, head = [], None
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    r = list(csv.reader(open(f)))
    i = next(i for i, row in enumerate(r) if row and row[0] == "ID")
    head = ["case"] + r[i]
    units = ["unit"] + r[i + 1]
    rows.append([os.path.basename(f)[:-4]] + r[-1])
w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(head); w.writerow(units); w.writerows(rows)
PY
}
merge "$tmp" "$OUT/l2units.csv"
# The strides: copy_perm at 8 and 32 MiB, strides of 1, 8 and 32 words
# (specs/, the perf corpus's calib.O3.ptx) -> strides.csv.
rm -f "$tmp"/*.csv
for f in testdata/h200/perf/l2units/specs/cp_*.json; do
  ncu --clock-control none --cache-control all --csv --page raw --metrics "$M" -k "regex:^copy_perm\$" \
    python3 testdata/nvcc/gen/runspec.py --no-write "$f" > "$tmp/$(basename "$f" .json).csv"
done
merge "$tmp" "$OUT/strides.csv"
