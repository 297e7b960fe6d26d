package sasscost

import "github.com/ptxvm/ptxvm/vm"

// The tensor-core forms' costs, from the SASS ptxas 13.0 makes of them for
// sm_90 and an H200 microbenchmark (testdata/perf/gen/micro/mma3_bench.py,
// records in testdata/perf/micro/mma3/bench.jsonl and, for the forms the
// first run left out, bench2.jsonl: cycles per operation
// of one warp running a dependent chain, c1w1, and of 8 independent chains
// in 16 warps of one block, c8w16, i.e. four warps per sub-partition).
// Slots are relative to HMMA.16816.F32 (m16n8k16 f16: c8w16 24.93 cycles,
// the tensor pipe's one instruction per 6 cycles per sub-partition of the
// GPU profile): slots = c8w16 / 24.93. Latency is set so that the timing
// model's dependent chain takes the measured c1w1 plus 5 (the m16n8k16 f16
// chain measured 29 cycles, the profile's latency is 34): L = c1w1 + 5
// for one slot; for n >= 2 slots, which issue lat/(n+1) apart and finish
// lat after the last (scheduler/timing), lat = (c1w1 + 5)(n+1)/(2n).
// Checked by running the microbenchmark's PTX (nvcc 11.8 -ptx of the
// mma3_*.cu groups it can compile: all but fp8) in timing mode: every
// 16-warp figure 2-4% below the GPU's; the chains of the emulated forms
// within 10%, those of one-instruction forms up to 5 cycles (17%) long and
// wmma tf32's 30% long, f64's 27% (docs/semantics.md). Forms ptxas emulates (int4 through IMMA.S8 and unpacking, .b1
// .xor through BMMA.AND and popc arithmetic, m8n8k4 .f16 through shuffles
// and FFMA) are costed as their measured throughput on the tensor pipe
// too: an approximation of where their instructions go (ALU, FMA, MIO),
// not of how many cycles they take.

// mmaCost is the cost of an OpMma (one warp execution).
func mmaCost(in *vm.Inst) Cost {
	f := in.MmaForm()
	c := func(slots float64, latency int) Cost {
		return Cost{Slots: slots, Pipe: PipeTensor, Latency: latency}
	}
	if !in.MmaExt() { // the first forms
		if f.A == vm.MmaF64 {
			return c(2.49, 26) // DMMA.8: mma_m8n8k4_f64 c1w1 30.02, c8w16 62.09
		}
		return c(1, 0) // HMMA.16816/.1688, IMMA.16832: one instruction (tensor.cu)
	}
	switch {
	case f.Sparse != vm.MmaDense:
		switch {
		case f.A == vm.MmaE4M3 || f.A == vm.MmaE5M2:
			// two HMMA.SP.16832 after unpacking and metadata shuffling:
			// c1w1 146.19, 16 warps of 4 chains 250.90 (bench2.jsonl,
			// sp_m16n8k64_f32_e4m3_ch4: 8 chains ran out of registers)
			return c(10.06, 83)
		case f.A == vm.MmaS4 || f.A == vm.MmaU4:
			if f.K == 128 {
				return c(61.4, 250) // sp_m16n8k128_s32_s4: c1w1 486.06, c8w16 1530.85
			}
			return c(32.0, 156) // sp_m16n8k64_s32_s4: c1w1 298.07, c8w16 798.41 (bench2.jsonl)
		case f.K == 16 && f.A.Bits() == 16, f.K == 8, f.K == 32 && f.A.Bits() == 8:
			// HMMA.SP.16816, HMMA.SP.1688.TF32, IMMA.SP.16832:
			// sp_m16n8k16_f32_f16, sp_m16n8k8_f32_tf32 c1w1 28.03,
			// c8w16 24.66; sp_m16n8k32_s32_s8 25.14
			return c(1, 33)
		}
		// HMMA.SP.16832, HMMA.SP.16816.TF32, IMMA.SP.16864: c1w1 29.04,
		// c8w16 32.56 (sp_m16n8k32_f32_f16, spo_, sp_m16n8k16_f32_tf32),
		// 32.06 (sp_m16n8k64_s32_s8)
		return c(1.31, 34)
	case f.M884F16():
		if f.D == vm.MmaF16 {
			return c(27.4, 217) // mma_m8n8k4_f16_f16: c1w1 413.08, c8w16 684.22
		}
		return c(20.6, 219) // mma_m8n8k4_f32_f16: c1w1 412.08, c8w16 512.80
	case f.A == vm.MmaB1:
		switch {
		case f.Xor && f.M == 8:
			return c(4.37, 70) // mma_m8n8k128_b1_xor: c1w1 107.07, c8w16 108.83
		case f.Xor && f.K == 256:
			return c(7.13, 76) // mma_m16n8k256_b1_xor: c1w1 128.03, c8w16 177.60
		case f.Xor:
			return c(5.83, 71) // mma_m16n8k128_b1_xor: c1w1 113.05, c8w16 145.26 (bench2.jsonl)
		case f.K == 256:
			return c(0.99, 34) // BMMA.168256.AND.POPC: mma_m16n8k256_b1_and c1w1 29.04, c8w16 24.74 (bench2.jsonl)
		}
		return c(0.68, 35) // BMMA.168128/.88128.AND.POPC: mma_m16n8k128_b1_and c1w1 30.02, c8w16 16.96
	case f.A == vm.MmaS4 || f.A == vm.MmaU4:
		switch {
		case f.M == 8:
			return c(17.1, 103) // mma_m8n8k32_s32_s4_s4: c1w1 189.08, c8w16 426.79
		case f.K == 64:
			return c(46.4, 214) // mma_m16n8k64_s32_s4_s4: c1w1 413.44, c8w16 1155.81
		}
		return c(24.5, 130) // mma_m16n8k32_s32_s4_s4: c1w1 245.07, c8w16 611.36
	case f.A == vm.MmaE4M3 || f.A == vm.MmaE5M2:
		switch {
		case f.K == 16 && f.D == vm.MmaF16:
			return c(0.71, 51) // two HMMA.1688.F16: mma_m16n8k16_f16_e4m3 c1w1 46.07, c8w16 17.81 (bench2.jsonl)
		case f.K == 16:
			return c(0.83, 52) // two HMMA.1688: mma_m16n8k16_f32_e4m3 c1w1 47.08, c8w16 20.67
		case f.D == vm.MmaF16:
			return c(0.87, 66) // two HMMA.16816.F16: mma_m16n8k32_f16_e4m3 c1w1 61.12, c8w16 21.70
		}
		return c(0.98, 67) // two HMMA.16816.F32 and FADD: mma_m16n8k32_f32_e4m3/e5m2 c1w1 62.12, c8w16 24.45
	case f.K == 32: // IMMA.16832 u8/mixed: c1w1 29.04, c8w16 24.74
		return c(1, 34)
	case f.M == 8: // IMMA.8816: mma_m8n8k16_s32_s8_s8 c1w1 28.02, c8w16 16.20
		return c(0.65, 33)
	case f.A.Int(): // IMMA.16816: mma_m16n8k16_s32_s8_s8 c1w1 30.02, c8w16 16.96
		return c(0.68, 35)
	}
	return c(0.65, 33) // HMMA.1688.F16: mma_m16n8k8_f16_f16 c1w1 28.02, c8w16 16.24
}

// wmmaCost is the cost of an OpWmmaMma.
func wmmaCost(in *vm.Inst) Cost {
	wf := in.Wmma()
	c := func(slots float64, latency int) Cost {
		return Cost{Slots: slots, Pipe: PipeTensor, Latency: latency}
	}
	switch wf.A {
	case vm.MmaF64:
		return c(2.49, 26) // one DMMA.8: wmma_m8n8k4_f64 as mma_m8n8k4_f64
	case vm.MmaTF32:
		return c(2.57, 33) // four HMMA.1684: wmma_m16n16k8_f32_tf32 c1w1 39.06, c8w16 64.08
	case vm.MmaS8, vm.MmaU8:
		return c(1.31, 33) // two IMMA.16816: wmma_m16n16k16_s32_s8 c1w1 28.04, c8w16 32.67
	case vm.MmaS4, vm.MmaU4:
		return c(17.1, 103) // wmma_m8n8k32_s4 as mma_m8n8k32_s32_s4_s4
	case vm.MmaB1:
		if wf.Xor {
			return c(4.37, 70) // wmma_m8n8k128_b1 (xor) as mma_m8n8k128_b1_xor
		}
		return c(0.65, 33) // one BMMA.88128.AND.POPC: wmma_m8n8k128_b1_and c1w1 28.02, c8w16 16.20 (bench2.jsonl)
	}
	// two HMMA.16816 (every f16/bf16 shape; the mixed accumulators add
	// conversions, not measured): wmma_m16n16k16_f32_f16, _bf16 c1w1
	// 32.06, c8w16 48.80; _f16_f16 47.59; m32n8k16 and m8n32k16 32.06,
	// 48.69 and 48.78 (bench2.jsonl)
	return c(1.96, 37)
}
