package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// summaryOrder is the memory summary's figures in the order a reader wants
// them, with a short label; figures not listed are left to --metrics.
var summaryOrder = []struct{ name, label string }{
	{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global load requests"},
	{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global load sectors"},
	{"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio", "  sectors per request"},
	{"l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "  L1 hit rate %"},
	{"ptxvm__global_ld_requested_per_fetched.ratio", "  bytes asked for per byte fetched"},
	{"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global store requests"},
	{"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global store sectors"},
	{"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio", "  sectors per request"},
	{"ptxvm__global_st_requested_per_written.ratio", "  bytes stored per byte written"},
	{"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "global atomic requests"},
	{"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "global reduction requests"},
	{"l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", "local load requests"},
	{"l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", "local store requests"},
	{"ptxvm__local_bytes.sum", "  local bytes"},
	{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared load wavefronts"},
	{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "  bank conflicts"},
	{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared store wavefronts"},
	{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "  bank conflicts"},
	{"ptxvm__shared_bank_conflicts_per_request.ratio", "  conflicts per shared instruction"},
	{"ptxvm__shared_wavefronts_op_atom.sum", "shared atomic wavefronts"},
	{"l1tex__t_requests_pipe_tex_mem_texture.sum", "texture requests"},
	{"ptxvm__tex_hit_rate.pct", "  texture hit rate %"},
	{"ptxvm__const_requests.sum", "constant/param loads"},
	{"ptxvm__const_wavefronts_per_request.ratio", "  accesses per load"},
	{"l1tex__t_sector_hit_rate.pct", "L1 sector hit rate %"},
	{"lts__t_sectors_op_read.sum", "L2 read sectors"},
	{"lts__t_sectors_op_write.sum", "L2 write sectors"},
	{"lts__t_sector_hit_rate.pct", "L2 sector hit rate %"},
	{"dram__bytes_read.sum", "DRAM bytes read"},
	{"dram__bytes_write.sum", "DRAM bytes written"},
}

// FormatValue prints a figure: integers as integers, others with up to two
// decimals.
func FormatValue(v float64) string {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

func dims(d [3]uint32) string { return fmt.Sprintf("(%d,%d,%d)", d[0], d[1], d[2]) }

func bytesKiB(b int) string {
	if b%1024 == 0 {
		return fmt.Sprintf("%d KiB", b/1024)
	}
	return fmt.Sprintf("%d B", b)
}

// WriteText prints the report for people: the launch, in timing mode the
// timing section (cycles, time, occupancy, stall reasons, where the stall
// cycles went, the lines and instructions with most stall cycles), the
// memory summary, then the top instructions by sectors, by excess sectors and by bank
// conflicts, each with its PTX and CUDA lines and diagnosis, then the CUDA
// lines with the most traffic.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	l := &r.Launch
	fmt.Fprintf(tw, "kernel\t%s\n", kernelTitle(r.Kernel))
	fmt.Fprintf(tw, "launch\tgrid %s x block %s, %d B static + %d B dynamic shared\n", dims(l.Grid), dims(l.Block), l.StaticShared, l.DynamicShared)
	fmt.Fprintf(tw, "gpu\t%s (%d SMs), %s mode\n", r.GPU, l.SMs, r.Mode)
	regs := fmt.Sprintf("%d registers per thread", l.Registers)
	switch l.RegisterSource {
	case "estimated":
		regs += " (estimated from the PTX, typically within 20% of ptxas's: give ptxas's with --regs)"
	}
	fmt.Fprintf(tw, "occupancy\t%.1f%%: %d blocks per SM, limited by %s; %s\n", l.Occupancy, l.BlocksPerSM, strings.Join(l.Limiters, ", "), regs)
	fmt.Fprintf(tw, "memory\t%s shared carveout, %s L1\n", bytesKiB(l.Carveout), bytesKiB(l.L1))
	fmt.Fprintf(tw, "PTX instructions\t%d warp, %d thread\n", l.WarpInsts, l.ThreadInsts)
	tw.Flush()
	if r.Timing != nil {
		r.Timing.writeText(w, l.Occupancy)
	}

	fmt.Fprintln(w, "\nMemory summary")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	have := map[string]float64{}
	for _, f := range r.Summary {
		have[f.Name] = f.Value
	}
	for _, s := range summaryOrder {
		if v, ok := have[s.name]; ok {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.label, FormatValue(v), s.name)
		}
	}
	tw.Flush()

	lists := []struct {
		title string
		ids   []int32
		col   string
		val   func(*Inst) string
	}{
		{"Top instructions by sectors", r.TopSectors, "SECTORS", func(in *Inst) string { return fmt.Sprint(in.Sectors) }},
		{"Top instructions by excess sectors (beyond what their bytes need)", r.TopExcess, "EXCESS", func(in *Inst) string { return fmt.Sprint(in.Excess) }},
		{"Top instructions by bank conflicts", r.TopConflicts, "CONFLICTS", func(in *Inst) string { return fmt.Sprint(in.Conflicts) }},
	}
	for _, ls := range lists {
		fmt.Fprintf(w, "\n%s\n", ls.title)
		if len(ls.ids) == 0 {
			fmt.Fprintln(w, "  none")
			continue
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  %s\tREQUESTS\tPTX\tCUDA\tINSTRUCTION\tDIAGNOSIS\n", ls.col)
		for _, id := range ls.ids {
			in := r.Inst(id)
			cuda := in.CUDA
			if cuda == "" {
				cuda = "-"
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\n", ls.val(in), in.Requests, in.PTXLine, cuda, in.PTX, in.Diagnosis.Text)
		}
		tw.Flush()
	}
	if len(r.Lines) > 0 {
		fmt.Fprintln(w, "\nCUDA lines by traffic")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  LINE\tREQUESTS\tSECTORS\tEXCESS\tCONFLICTS\tINSTRUCTIONS\n")
		for i, ln := range r.Lines {
			if i == Top {
				break
			}
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%d\n", ln.CUDA, ln.Requests, ln.Sectors, ln.Excess, ln.Conflicts, len(ln.Insts))
		}
		tw.Flush()
	}
	return nil
}

// writeTiming prints the timing section: the cycles, time, occupancy,
// issue-slot use and IPC, the stall reasons per issued instruction under
// Nsight Compute's names, where the stall cycles went in words, and the
// stall cycles per CUDA line and per PTX instruction.
func (t *Timing) writeText(w io.Writer, theoretical float64) {
	fmt.Fprintln(w, "\nTiming (the cycle-level model)")
	if s := t.Sampling; s != nil {
		fmt.Fprintf(w, "  SAMPLED: %s.\n  The figures but the cycles and time count the %d blocks simulated in detail only.\n", s.Describe(), s.Detailed)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if s := t.Sampling; s != nil {
		fmt.Fprintf(tw, "  cycles\t%d ± %d (±%.2f%%), a sampled estimate\tptxvm__sampled_cycles_estimate\n", t.Cycles, s.Error, s.ErrorPct())
		fmt.Fprintf(tw, "  time\t%s at %s MHz, a sampled estimate\tptxvm__sampled_duration_ns_estimate\n", duration(t.DurationNs), FormatValue(t.ClockMHz))
	} else {
		fmt.Fprintf(tw, "  cycles\t%d\tsm__cycles_elapsed.max\n", t.Cycles)
		fmt.Fprintf(tw, "  time\t%s at %s MHz\tgpu__time_duration.sum\n", duration(t.DurationNs), FormatValue(t.ClockMHz))
	}
	fmt.Fprintf(tw, "  achieved occupancy\t%.1f%% (theoretical %.1f%%, %d warps per SM)\tsm__warps_active.avg.pct_of_peak_sustained_active\n", t.Occupancy, theoretical, t.WarpsPerSM)
	fmt.Fprintf(tw, "  issue slots used\t%.1f%%\tptxvm__issue_slot_utilization.pct\n", t.IssueUtil)
	fmt.Fprintf(tw, "  IPC\t%.2f per busy SM cycle\tptxvm__ipc_per_busy_sm_cycle\n", t.IPC)
	fmt.Fprintf(tw, "  machine instructions\t%d warp, %d thread (estimated from the SASS cost table)\tsmsp__inst_executed.sum\n", t.MachineInsts, t.MachineThreadInsts)
	tw.Flush()

	fmt.Fprintln(w, "\nStall reasons (warp-cycles per issued instruction: smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  REASON\tPER ISSUE\tSHARE\tMEANING\n")
	for _, s := range t.Stalls {
		if s.PerIssue < 0.005 && s.Reason != "selected" {
			continue // 0.00: under a hundredth of a cycle per instruction
		}
		share := "-"
		if s.Reason != "selected" {
			share = fmt.Sprintf("%.0f%%", 100*s.Share)
		}
		fmt.Fprintf(tw, "  %s\t%.2f\t%s\t%s\n", s.Reason, s.PerIssue, share, s.Meaning)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nWhere the stall cycles went")
	if len(t.Sources) == 0 {
		fmt.Fprintln(w, "  the warps never waited")
	}
	for i, s := range t.Sources {
		if i == Top {
			break
		}
		fmt.Fprintf(w, "  %s\n", s.Sentence)
	}

	if len(t.Lines) > 0 {
		fmt.Fprintln(w, "\nSource lines by stall cycles, STALLED + WAITED ON (STALLED: warps waiting to issue the line's instructions, as ncu's source view counts; WAITED ON: warps waiting for their results)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  LINE\tSTALLED + WAITED ON\tSTALLED\tTOP REASON\tWAITED ON\tTOP REASON\tMACHINE INSTRUCTIONS\n")
		for i, ln := range t.Lines {
			if i == Top || ln.StallCycles+ln.WaitedOnCycles == 0 {
				break
			}
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%d\t%s\t%d\n", ln.Where, ln.StallCycles+ln.WaitedOnCycles, ln.StallCycles, dash(TopReasonOf(ln.Stalls)), ln.WaitedOnCycles, dash(TopReasonOf(ln.WaitedOn)), ln.Issued)
		}
		tw.Flush()
	}
	if ids := t.TopInsts(Top); len(ids) > 0 {
		fmt.Fprintln(w, "\nTop instructions by stall cycles, STALLED + WAITED ON (STALLED: warps waiting to issue it; WAITED ON: warps waiting for its results)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  STALLED + WAITED ON\tSTALLED\tTOP REASON\tWAITED ON\tTOP REASON\tPTX\tCUDA\tINSTRUCTION\n")
		for _, id := range ids {
			in := t.Inst(id)
			fmt.Fprintf(tw, "  %d\t%d\t%s\t%d\t%s\t%s\t%s\t%s\n", in.StallCycles+in.WaitedOnCycles, in.StallCycles, dash(TopReasonOf(in.Stalls)), in.WaitedOnCycles, dash(TopReasonOf(in.WaitedOn)),
				in.PTXLine, dash(in.CUDA), in.PTX)
		}
		tw.Flush()
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// duration prints nanoseconds as ns, us or ms.
func duration(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g us", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}
