package vm

import (
	"encoding/binary"
	"os"
	"testing"
)

// TestDumpRcp is a tool, not a test: with PTXVM_RCP_IN naming a file of
// little-endian f32 bit patterns, it writes MUFU.RCP of each (the
// recorded tables) to PTXVM_RCP_OUT. testdata/surfaces/gen/cubegrad.py
// uses it to model cube-map tex.grad in Python. Skipped otherwise.
func TestDumpRcp(t *testing.T) {
	in := os.Getenv("PTXVM_RCP_IN")
	if in == "" {
		t.Skip("PTXVM_RCP_IN not set")
	}
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, len(b)&^3)
	for i := 0; i+4 <= len(b); i += 4 {
		binary.LittleEndian.PutUint32(out[i:], approxF32(OpFRcp, binary.LittleEndian.Uint32(b[i:]), 0, false, false))
	}
	if err := os.WriteFile(os.Getenv("PTXVM_RCP_OUT"), out, 0o644); err != nil {
		t.Fatal(err)
	}
}
