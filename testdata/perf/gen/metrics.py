"""Nsight Compute metric lists of the perf corpus.

HIER    every launch (access and calibration cases): the nvcc corpus's list
        (testdata/nvcc/gen/gen.py NCU_METRICS) plus what the memory-hierarchy
        model is compared against: L1 sectors hit/miss by operation, L1<->L2
        traffic, L2 sectors and hits by operation and source, DRAM sectors,
        shared wavefronts and conflicts for atomics, texture and constant-cache
        counters, SASS instruction counts by operation.
TIMING  calibration launches add: cycles (elapsed/active, max/avg), every
        stall reason as ratio, per-warp-active fraction, average latency and
        raw warp-cycle count, issue and IPC figures, occupancy, pipes, the
        per-opcode SASS mix (an instanced metric: --print-metric-instances).
REPEAT  the cycle and time counters only (one pass), for the repeated runs.
SOURCE  per-SASS-instruction counters: the SourceCounters, WarpStateStats and
        InstructionStats sections plus the PC-sampling stall groups.

Names that ncu rejects are dropped at run time (gen.py checks them against
`ncu --query-metrics` first, then drops any that ncu still refuses) and
listed in manifest.json.
"""

import importlib.util
import os
import sys

NVCC_GEN_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                             "nvcc", "gen"))


def _load_nvcc_gen():
    """testdata/nvcc/gen/gen.py, loaded as module `nvcc_gen` (this directory
    has a gen.py of its own)."""
    mod = sys.modules.get("nvcc_gen")
    if mod is None:
        spec = importlib.util.spec_from_file_location("nvcc_gen", os.path.join(NVCC_GEN_DIR, "gen.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules["nvcc_gen"] = mod
        spec.loader.exec_module(mod)
    return mod


nvcc_gen = _load_nvcc_gen()
NVCC = list(nvcc_gen.NCU_METRICS)

STALLS = ("long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "lg_throttle",
          "tex_throttle", "math_pipe_throttle", "wait", "not_selected", "selected",
          "branch_resolving", "no_instruction", "membar", "dispatch_stall", "drain", "imc_miss",
          "misc", "sleeping")

_L1 = []
for op in ("global_op_ld", "global_op_st", "global_op_atom", "global_op_red", "local_op_ld",
           "local_op_st"):
    _L1 += [f"l1tex__t_requests_pipe_lsu_mem_{op}.sum", f"l1tex__t_sectors_pipe_lsu_mem_{op}.sum",
            f"l1tex__t_sectors_pipe_lsu_mem_{op}_lookup_hit.sum",
            f"l1tex__t_sectors_pipe_lsu_mem_{op}_lookup_miss.sum"]
_L1 += [
    "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
    "l1tex__t_sectors_pipe_lsu.sum", "l1tex__t_sectors_pipe_lsu_lookup_hit.sum",
    "l1tex__t_sectors_pipe_lsu_lookup_miss.sum",
    "l1tex__t_set_accesses_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_set_conflicts_pipe_lsu_mem_global_op_ld.sum",
    # L1 <-> L2 traffic
    "l1tex__m_xbar2l1tex_read_sectors.sum", "l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld.sum",
    "l1tex__m_xbar2l1tex_read_sectors_mem_texture.sum",
    "l1tex__m_l1tex2xbar_write_sectors.sum", "l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum",
    "l1tex__m_l1tex2xbar_req_cycles_active.sum",
    # shared memory
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "l1tex__data_bank_reads.sum", "l1tex__data_bank_writes.sum",
    "l1tex__data_pipe_lsu_wavefronts.sum",
    # texture
    "l1tex__t_requests_pipe_tex_mem_texture_op_tex.sum",
    "l1tex__t_sectors_pipe_tex_mem_texture.sum",
    "l1tex__t_sectors_pipe_tex_mem_texture_lookup_hit.sum",
    "l1tex__t_sectors_pipe_tex_mem_texture_lookup_miss.sum",
    "l1tex__t_sector_pipe_tex_mem_texture_hit_rate.pct",
    "l1tex__texin_requests_mem_texture.sum",
    "l1tex__f_wavefronts.sum",
    "l1tex__t_set_accesses_pipe_tex_mem_texture.sum",
]
_L2 = [
    "lts__t_requests.sum", "lts__t_sectors.sum", "lts__t_sectors_lookup_hit.sum",
    "lts__t_sectors_lookup_miss.sum",
    "lts__t_sector_op_read_hit_rate.pct", "lts__t_sector_op_write_hit_rate.pct",
    "lts__t_sectors_srcunit_tex.sum", "lts__t_sectors_srcunit_tex_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_lookup_miss.sum",
    "lts__t_requests_srcunit_tex.sum",
    "lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum",
    "lts__t_sectors_srcunit_ltcfabric_lookup_miss.sum",
    "lts__d_sectors_fill_device.sum",
]
for op in ("read", "write", "atom", "red"):
    _L2 += [f"lts__t_sectors_srcunit_tex_op_{op}.sum",
            f"lts__t_sectors_srcunit_tex_op_{op}_lookup_hit.sum",
            f"lts__t_sectors_srcunit_tex_op_{op}_lookup_miss.sum",
            f"lts__t_requests_srcunit_tex_op_{op}.sum",
            f"lts__t_sectors_op_{op}.sum"]
_DRAM = ["dram__sectors_read.sum", "dram__sectors_write.sum", "dram__bytes.sum"]
_CONST = ["idc__requests.sum", "idc__requests_lookup_hit.sum", "idc__requests_lookup_miss.sum",
          "smsp__inst_executed_op_ldc.sum"]
_SASS = [f"smsp__sass_inst_executed_op_{op}.sum" for op in (
    "global_ld", "global_st", "global_atom", "global_red", "local_ld", "local_st", "shared_ld",
    "shared_st", "shared_atom", "ld", "st", "atom", "texture", "branch", "memory_8b",
    "memory_16b", "memory_32b", "memory_64b", "memory_128b")]
_SASS += ["smsp__inst_executed_op_global_ld.sum", "smsp__inst_executed_op_global_st.sum",
          "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
          "smsp__inst_executed_op_local_ld.sum", "smsp__inst_executed_op_local_st.sum",
          "smsp__sass_thread_inst_executed.sum", "smsp__thread_inst_executed_pred_on.sum",
          "smsp__inst_issued.sum"]
_LAUNCH = ["launch__grid_size", "launch__block_size", "launch__shared_mem_per_block_static",
           "launch__shared_mem_per_block_dynamic", "launch__shared_mem_config_size",
           "launch__func_cache_config", "launch__waves_per_multiprocessor",
           "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
           "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks",
           "launch__registers_per_thread", "launch__thread_count"]


def _uniq(xs):
    seen, out = set(), []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


HIER = _uniq(NVCC + _L1 + _L2 + _DRAM + _CONST + _SASS + _LAUNCH)

_CYCLES = ["sm__cycles_elapsed.max", "sm__cycles_elapsed.avg", "sm__cycles_elapsed.min",
           "sm__cycles_active.avg", "sm__cycles_active.max", "sm__cycles_active.sum",
           "smsp__cycles_active.avg", "gpc__cycles_elapsed.max", "gpu__time_duration.sum",
           "dram__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second"]
_STALL = []
for r in STALLS:
    _STALL += [f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio",
               f"smsp__warp_issue_stalled_{r}_per_warp_active.pct",
               f"smsp__average_warp_latency_issue_stalled_{r}.ratio",
               f"smsp__warps_issue_stalled_{r}.sum"]
_ISSUE = [
    "smsp__issue_active.sum", "smsp__issue_active.avg.per_cycle_active",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__inst_issued.avg.per_cycle_active", "sm__inst_executed.avg.per_cycle_active",
    "sm__inst_executed.avg.per_cycle_elapsed", "sm__inst_executed.sum",
    "smsp__average_warp_latency_per_inst_issued.ratio",
    "smsp__average_warps_active_per_issue_active.ratio",
    "smsp__warps_active.avg.per_cycle_active", "smsp__warps_active.sum",
    "smsp__warps_eligible.avg.per_cycle_active", "smsp__warps_launched.sum",
    "sm__warps_active.avg.per_cycle_active", "sm__maximum_warps_avg_per_active_cycle",
    "sm__ctas_launched.sum", "smsp__branch_targets_threads_divergent.sum",
    "smsp__sass_branch_targets_threads_divergent.sum", "smsp__inst_executed_op_branch.sum",
]
_PIPES = [f"sm__inst_executed_pipe_{p}.sum" for p in (
    "alu", "fma", "fmaheavy", "fmalite", "fma_type_fp16", "fp64", "lsu", "xu", "tex", "uniform",
    "adu", "cbu", "tensor")]
OPCODE_MIX = "sass__inst_executed_per_opcode"

TIMING = _uniq(HIER + _CYCLES + _STALL + _ISSUE + _PIPES + [OPCODE_MIX])

REPEAT = ["sm__cycles_elapsed.max", "sm__cycles_elapsed.avg", "sm__cycles_active.avg",
          "sm__cycles_active.max", "gpu__time_duration.sum", "smsp__cycles_active.avg"]

# The microbenchmarks' instruction chains under ncu (micro ops).
MICRO_OPS = ["sm__cycles_elapsed.max", "sm__cycles_active.max", "sm__cycles_active.avg",
             "gpu__time_duration.sum", "smsp__inst_executed.sum", "smsp__inst_issued.sum",
             "sm__inst_executed.avg.per_cycle_active", "smsp__issue_active.avg.per_cycle_active",
             "launch__grid_size", "launch__block_size"] + _PIPES

SOURCE_SECTIONS = ["SourceCounters", "WarpStateStats", "InstructionStats", "LaunchStats",
                   "Occupancy"]
SOURCE_METRICS = ["group:smsp__pcsamp_warp_stall_reasons",
                  "group:smsp__pcsamp_warp_stall_reasons_not_issued"]

# Metric names that ncu's query does not list but that it accepts (launch
# statistics, SASS-patched counters): never dropped by the query filter.
UNLISTED_PREFIXES = ("launch__", "sass__", "group:", "profiler__", "device__")


def base_name(metric):
    return metric.split(".", 1)[0]


if __name__ == "__main__":
    for name, lst in (("HIER", HIER), ("TIMING", TIMING), ("REPEAT", REPEAT)):
        print(f"{name}: {len(lst)} metrics")
    if len(sys.argv) > 1 and sys.argv[1] == "--bases":
        print(",".join(sorted({base_name(m) for m in TIMING if not m.startswith(UNLISTED_PREFIXES)})))
