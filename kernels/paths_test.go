package kernels_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// machinePath is an absolute path into a machine's own folders (a home,
// a work or scratch folder), as a build records it.
var machinePath = regexp.MustCompile(`(^|[\s"'=(:,\[])/(home|work|tmp)/[^\s"']*`)

// namesMachineDir reports whether b holds one of the folders machinePath
// looks for, between slashes.
func namesMachineDir(b []byte) bool {
	for _, d := range []string{"home", "work", "tmp"} {
		if bytes.Contains(b, []byte("/"+d+"/")) {
			return true
		}
	}
	return false
}

// TestNoMachinePathsCommitted: no committed text file under kernels/ and
// testdata/ (the bundled PTX, the corpora's PTX, build logs, reports)
// names a folder of the machine it was made on: the generators run nvcc
// from the repository's root with relative paths, and the CUDA sources are
// found from the paths recorded relative to it (report/html.FindSources).
// Left out: the generators' own scripts and notes (testdata/*/gen), which
// may name a scratch folder to use, and compressed or binary files.
func TestNoMachinePathsCommitted(t *testing.T) {
	root := filepath.Join("..")
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", "kernels", "testdata").Output()
	if err != nil {
		t.Skipf("no git checkout to list the committed files of: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	require.NotEmpty(t, files)
	scanned := 0
	for _, f := range files {
		if strings.Contains("/"+f, "/gen/") {
			continue
		}
		switch strings.ToLower(filepath.Ext(f)) {
		case ".gz", ".bz2", ".zz", ".xz", ".zst", ".tgz", ".npy", ".bin", ".cubin", ".png", ".ncu-rep":
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the working tree
		}
		if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
			continue // binary
		}
		scanned++
		// A file that names none of machinePath's folders is not run
		// through the regular expression (about 3 s of CPU over the
		// corpora's text).
		if !namesMachineDir(b) {
			continue
		}
		if m := machinePath.Find(b); m != nil {
			line := 1 + bytes.Count(b[:machinePath.FindIndex(b)[0]], []byte("\n"))
			assert.Failf(t, "a machine's folder is committed", "%s:%d: %s", f, line, strings.TrimSpace(string(m)))
		}
	}
	assert.Greater(t, scanned, 1000, "text files scanned")
}
