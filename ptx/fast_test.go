package ptx

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// parseBoth parses src with the fast path and with the participle grammars
// alone and requires the same trees, positions included, and errors.
func parseBoth(t *testing.T, name string, src []byte) {
	t.Helper()
	m1, err1 := ParseMode(name, src, AllErrors)
	noFastPath = true
	m2, err2 := ParseMode(name, src, AllErrors)
	noFastPath = false
	require.Equal(t, errText(err2), errText(err1), name)
	require.Equal(t, len(m2.Funcs), len(m1.Funcs), name)
	for i, f := range m2.Funcs {
		require.Equal(t, f.Body, m1.Funcs[i].Body, "%s: %s", name, f.Name)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	var sb strings.Builder
	PrintError(&sb, err)
	return sb.String()
}

// TestFastPathAsGrammar: the hand-written statement parser builds what the
// participle grammars build, on every PTX file of the repository and on
// damaged copies of them (where it must give up and leave the errors to
// the grammars).
func TestFastPathAsGrammar(t *testing.T) {
	var files []string
	require.NoError(t, filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".ptx") {
			files = append(files, path)
		}
		return nil
	}))
	require.NotEmpty(t, files)
	r := rand.New(rand.NewPCG(1, 2))
	// One damaged copy of each small module in every go test run (the
	// suite must stay within minutes on two cores: each round of copies
	// costs about 5 s of CPU; three until 2026-11-29); more with
	// PTXVM_FAST_DAMAGED=N (3: as many as the default made before; 20:
	// about 75 s more).
	damaged := 1
	if n, err := strconv.Atoi(os.Getenv("PTXVM_FAST_DAMAGED")); err == nil && n > 0 {
		damaged = n
	}
	// A file whose bytes another already had is parsed once (the corpora
	// share some modules with kernels/ptx): the same bytes give the same
	// trees and errors.
	seen := map[string]bool{}
	for _, file := range files {
		src := readFile(t, file)
		if seen[string(src)] {
			continue
		}
		seen[string(src)] = true
		parseBoth(t, file, src)
		if testing.Short() || len(src) > 64<<10 {
			continue
		}
		for range damaged {
			b := []byte(string(src))
			for range 1 + r.IntN(4) {
				i := r.IntN(len(b))
				switch r.IntN(3) {
				case 0: // delete a few bytes
					b = append(b[:i], b[min(len(b), i+1+r.IntN(4)):]...)
				case 1: // replace one by a byte that matters to the grammar
					b[i] = ",;:{}[]()<>+-!@|.%\n0x"[r.IntN(21)]
				case 2: // duplicate a few bytes
					j := min(len(b), i+1+r.IntN(8))
					b = append(b[:j], append([]byte(string(b[i:j])), b[j:]...)...)
				}
			}
			parseBoth(t, file+" (damaged)", b)
		}
	}
}

// TestSameTree: the fuzz target's tree comparison sees what the dumps see.
func TestSameTree(t *testing.T) {
	src := readFile(t, "testdata/handwritten_forms.ptx")
	parse := func() *Module {
		m, err := Parse("a.ptx", src)
		require.NoError(t, err)
		return m
	}
	a, b := parse(), parse()
	require.True(t, sameTree(a, b))
	b.Funcs[0].Body[0].Pos.Line += 7 // positions do not count
	require.True(t, sameTree(a, b))
	for _, change := range []func(m *Module){
		func(m *Module) { m.Funcs[0].Name += "x" },
		func(m *Module) { m.Funcs[0].Body = m.Funcs[0].Body[1:] },
		func(m *Module) { m.Funcs[0].Params = nil },
		func(m *Module) { m.Version = "" },
	} {
		b := parse()
		change(b)
		require.False(t, sameTree(a, b))
		require.NotEqual(t, dump(t, a), dump(t, b))
	}
}
