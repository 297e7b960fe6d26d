//go:build !unix

package spec

import (
	"os"

	"github.com/ptxvm/ptxvm/memspace"
)

// mapFile reads a file (no mapping on this system).
func mapFile(path string, _ *memspace.Allocation) ([]byte, error) { return os.ReadFile(path) }
