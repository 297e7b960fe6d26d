// Package sfu reproduces, bit for bit, the approximate PTX instructions that
// run on the GPU's special-function unit (MUFU): rcp, rsqrt, sqrt, ex2, lg2,
// sin, cos (.approx.f32, with and without .ftz), tanh.approx.f32 and
// rcp/rsqrt.approx.ftz.f64. Their algorithms are not public, so instead of
// computing them it looks the hardware's answers up in tables recorded on an
// H100/H200 (sm_90) by testdata/sfu/gen/gen.py, plus models of how the
// hardware maps any operand onto a table entry (exponent scaling, the
// fixed-point operand of ex2 and sin/cos, the fixed-point sum of lg2, the
// quadrant symmetry of sin/cos); the tests check those models against
// independent real-GPU validation sets.
//
// Data: the tables are embedded from tables/ (manifest.json and one
// compressed file per table, a few MB); the validation sets live in
// testdata/sfu and are read only by the tests. Both are produced in one run
// on the GPU machine (testdata/sfu/gen/README.md). Until they exist, and for
// dry-run (fake) data, Available is false and every function returns
// ok == false, so the caller keeps using its own approximation
// (package fpu).
//
// API: PTX-level functions (RcpApprox32, Ex2Approx32, SinApprox32, ...,
// Approx32 by instruction name, DivApprox32, DivFull32, RcpApproxFtz64,
// RsqrtApproxFtz64, RsqrtApprox64, and the f16/bf16 Ex2Approx16,
// TanhApprox16, Ex2ApproxBF16, TanhApproxBF16) include ptxas's SASS
// sequences around MUFU for the non-.ftz forms; Mufu* are the bare MUFU
// operations. The forms beyond the bare MUFU ones are checked against the
// GPU by the conformance suite (scheduler/suite), not by this package's
// validation sets. Tables are decoded lazily on first use (zlib, in index
// order: TestTableFiles keeps them so, -sfu.recode converts the generator's
// files), each on its own: an int8 residual per entry (8–16 MB per table in
// memory, none for an all-zero plane) against a float64 reference
// evaluated per lookup.
//
// Tests: go test ./vm/internal/sfu runs the reader and model checks when the
// data exists (and skips them, saying why, when it does not); -v adds
// TestHypotheses, which scores the alternatives to each modelling guess.
// PTXVM_SFU_TABLES and PTXVM_SFU_TESTDATA point the tests at other
// directories (e.g. a dry run's).
package sfu
