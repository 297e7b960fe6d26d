package sfu

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var recode = flag.Bool("sfu.recode", false, "TestTableFiles rewrites the tables directory's files that are bzip2 or class-grouped as zlib in index order, and updates its manifest.json")

// TestTableFiles checks that every table file is zlib, in index order (no
// class grouping), the size the manifest says. Every process that runs a
// kernel with an SFU instruction decodes the tables it uses, and the
// generator's files (testdata/sfu/gen/gen.py: whichever of zlib and bzip2
// is smaller; the first plane of rcp, rsqrt, sqrt and ex2 grouped by class)
// made that 0.3 to 1.5 s of CPU a table: Go's bzip2 reader inflates these
// planes five to ten times slower than zlib, and ungrouping evaluates the
// reference function at each of the table's 8 to 16 million inputs. In
// zlib and index order the tables take about a quarter more room
// (docs/performance.md, 2026-11-29). With -sfu.recode the test converts a
// freshly generated directory: each such file decoded (ungrouped by
// class), deflated at level 9 into a .zz file that must inflate to the same
// plane, the old file removed if its name differs, and the manifest's
// codec, file, bytes and classes rewritten in place. The rest of the
// manifest, the SHA-256 sums of the inputs and outputs included, is
// unchanged: TestTables checks the decoded tables against them.
func TestTableFiles(t *testing.T) {
	s := needData(t, false)
	if tablesDir != "tables" && !*recode {
		t.Skip("the form of the embedded tables only (PTXVM_SFU_TABLES is " + tablesDir + ")")
	}
	fsys := os.DirFS(tablesDir)
	manifest, err := os.ReadFile(filepath.Join(tablesDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	changed := false
	for _, d := range s.tables.Datasets {
		e := d.Encoding
		if (e.Codec != "zlib" || e.Classes != 0) && *recode {
			z, err := recodeFile(fsys, d)
			if err != nil {
				t.Fatalf("%s: %v", d.Name, err)
			}
			file := strings.TrimSuffix(strings.TrimSuffix(e.File, ".bz2"), ".zz") + ".zz"
			re := regexp.MustCompile(`"codec": "[a-z0-9]+",(\s*)"file": "` + regexp.QuoteMeta(e.File) +
				`",(\s*)"bytes": \d+,(\s*"raw_bytes": \d+,\s*"planes": \d+,\s*)"classes": \d+`)
			if n := len(re.FindAllIndex(manifest, -1)); n != 1 {
				t.Fatalf("%s: %d encodings of %s in manifest.json, want 1", d.Name, n, e.File)
			}
			manifest = re.ReplaceAll(manifest, []byte(fmt.Sprintf(`"codec": "zlib",${1}"file": "%s",${2}"bytes": %d,${3}"classes": 0`, file, len(z))))
			if file != e.File {
				if err := os.Remove(filepath.Join(tablesDir, e.File)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(tablesDir, file), z, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s %d bytes (classes %d) -> %s %d bytes", d.Name, e.File, e.Bytes, e.Classes, file, len(z))
			changed = true
			continue
		}
		if e.Codec != "zlib" || e.Classes != 0 {
			t.Errorf("%s: codec %q, classes %d, not zlib in index order (go test -run TestTableFiles -sfu.recode converts it)", d.Name, e.Codec, e.Classes)
		}
		if fi, err := fs.Stat(fsys, e.File); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		} else if fi.Size() != int64(e.Bytes) {
			t.Errorf("%s: %s has %d bytes, manifest %d", d.Name, e.File, fi.Size(), e.Bytes)
		}
	}
	if changed {
		if err := os.WriteFile(filepath.Join(tablesDir, "manifest.json"), manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("rewrote manifest.json: rerun go test -sfu.tables.all to check the tables' sums")
	}
}

// recodeFile returns dataset d's file as zlib in index order, checked to
// inflate to the same bytes.
func recodeFile(fsys fs.FS, d *Dataset) ([]byte, error) {
	z, err := fs.ReadFile(fsys, d.Encoding.File)
	if err != nil {
		return nil, err
	}
	raw, err := decompress(d.Encoding.Codec, z, d.Encoding.RawBytes)
	if err != nil {
		return nil, err
	}
	if d.Encoding.Classes > 0 {
		if raw, err = ungroupFile(d, raw); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	w, err := zlib.NewWriterLevel(&b, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	back, err := decompress("zlib", b.Bytes(), len(raw))
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(back, raw) {
		return nil, fmt.Errorf("zlib round trip differs")
	}
	return b.Bytes(), nil
}

// ungroupFile returns a "codes" file's bytes with its first plane moved
// from class order into index order (the escapes after it too).
func ungroupFile(d *Dataset, raw []byte) ([]byte, error) {
	if d.Encoding.Kind != "codes" || d.Type != "u32" {
		return nil, fmt.Errorf("classes %d with encoding %s, type %s", d.Encoding.Classes, d.Encoding.Kind, d.Type)
	}
	p, rest, err := readPlane(raw, d.N)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%d trailing bytes", len(rest))
	}
	class, err := d.classFunc(d.inputFunc())
	if err != nil {
		return nil, err
	}
	q := ungroup(p, class)
	out := make([]byte, d.N, len(raw))
	for i := range out {
		c := q.at(i)
		if c < -127 || c > 127 {
			out[i] = 0x80
			continue
		}
		out[i] = byte(int8(c))
	}
	for i, b := range out {
		if b == 0x80 {
			c := q.at(i)
			out = binary.AppendUvarint(out, uint64(c<<1^c>>63))
		}
	}
	if len(out) != len(raw) {
		return nil, fmt.Errorf("ungrouped %d bytes, grouped %d", len(out), len(raw))
	}
	return out, nil
}
