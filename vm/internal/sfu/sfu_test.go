package sfu

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The tests read the tables from ./tables and the validation sets from
// ../../../testdata/sfu (PTXVM_SFU_TABLES / PTXVM_SFU_TESTDATA override
// them, e.g. to check a dry run in /tmp). Dry-run data is accepted here:
// fakesfu.py follows the same hypotheses as the models, so on dry-run data
// every check must pass too; that tests the reader, the recipes and the
// models end to end.

var (
	tablesDir   = envOr("PTXVM_SFU_TABLES", "tables")
	testdataDir = envOr("PTXVM_SFU_TESTDATA", "../../../testdata/sfu")
	loadErr     error
)

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func TestMain(m *testing.M) {
	src, err := dirSource(tablesDir, testdataDir, true)
	if err != nil {
		loadErr = err
	} else {
		testSrc.Store(src)
	}
	os.Exit(m.Run())
}

const noData = "no SFU data yet: run `python3 testdata/sfu/gen/gen.py --out testdata/sfu --tar $OUT/sfu.tgz` " +
	"on the GPU machine and unpack the tarball at the repository root (testdata/sfu/gen/README.md)"

// needData skips the test when the data is absent and fails it when the
// data exists but cannot be read.
func needData(t *testing.T, validation bool) *source {
	t.Helper()
	if loadErr != nil {
		t.Fatalf("reading the SFU manifests: %v", loadErr)
	}
	s := cur()
	if s.tables == nil {
		t.Skip(noData)
	}
	if validation && s.testdata == nil {
		t.Skip("no validation sets in " + testdataDir + ": " + noData)
	}
	if s.tables.DryRun {
		t.Logf("dry-run data (fakesfu.py stands in for the GPU): checking the pipeline, not the hardware")
	}
	return s
}

// model evaluates the dataset's instruction with the Go models.
func model(instr string, x uint64) (uint64, bool) {
	switch instr {
	case "rcp.approx.ftz.f64":
		return RcpApproxFtz64(x)
	case "rsqrt.approx.ftz.f64":
		return RsqrtApproxFtz64(x)
	case "mul.rz.f32":
		return uint64(mulRZ(uint32(x), c2PiInv, false)), true
	case "mul.rz.ftz.f32":
		return uint64(mulRZ(uint32(x), c2PiInv, true)), true
	}
	y, ok := Approx32(instr, uint32(x))
	return uint64(y), ok
}

func fmtVal(v uint64, width int) string {
	if width == 64 {
		return fmt.Sprintf("%016x (%.17g)", v, math.Float64frombits(v))
	}
	return fmt.Sprintf("%08x (%.9g)", v, f32(uint32(v)))
}

// ulpDist is the signed distance between two results in ulps (for u64
// results, of the upper words).
func ulpDist(got, want uint64, width int) int64 {
	if width == 64 {
		got, want = got>>32, want>>32
	}
	return ord32(uint32(got)) - ord32(uint32(want))
}

// checkModel compares the model with a decoded dataset, at every step-th
// input, and reports the mismatches: how many, the first few, and where
// (by input exponent).
func checkModel(t *testing.T, d *Dataset, in, out []uint64, step int) {
	t.Helper()
	w := d.width()
	var bad, notOK int
	var first []string
	byExp := map[string]int{}
	for i := 0; i < len(in); i += step {
		x := in[i]
		got, ok := model(d.Instr, x)
		if !ok {
			notOK++
			continue
		}
		if got == out[i] {
			continue
		}
		bad++
		if len(first) < 12 {
			first = append(first, fmt.Sprintf("  x=%s gpu=%s model=%s (%+d ulp)",
				fmtVal(x, w), fmtVal(out[i], w), fmtVal(got, w), ulpDist(got, out[i], w)))
		}
		var e uint64
		if w == 64 {
			e = x >> 52 & 0x7FF
		} else {
			e = x >> 23 & 0xFF
		}
		byExp[fmt.Sprintf("%s e=%d", map[bool]string{false: "+", true: "-"}[x>>(w-1) != 0], e)]++
	}
	if notOK > 0 {
		t.Errorf("%s (%s): model not available for %d of %d inputs checked", d.Name, d.Instr, notOK, (len(in)+step-1)/step)
	}
	if bad > 0 {
		type kv struct {
			k string
			v int
		}
		var hist []kv
		for k, v := range byExp {
			hist = append(hist, kv{k, v})
		}
		sort.Slice(hist, func(i, j int) bool { return hist[i].v > hist[j].v || hist[i].v == hist[j].v && hist[i].k < hist[j].k })
		if len(hist) > 12 {
			hist = hist[:12]
		}
		var hs []string
		for _, h := range hist {
			hs = append(hs, fmt.Sprintf("%s:%d", h.k, h.v))
		}
		t.Errorf("%s (%s, %s): model differs from the GPU on %d of %d inputs checked\n%s\n  by input sign/exponent: %s",
			d.Name, d.Instr, d.Purpose, bad, (len(in)+step-1)/step, strings.Join(first, "\n"), strings.Join(hs, " "))
	}
}

var validationAll = flag.Bool("sfu.validation.all", false, "TestValidation checks the models at every input of the exhaustive sets of more than 2^24 inputs (by default every fifth)")

// bigSet is the size past which a validation set is an exhaustive sweep
// (sin_rev and cos_rev, 2^25 inputs; rcp_edge and rcp_ftz_edge, 23 and 25
// million), checked at every fifth input by default.
const bigSet = 1 << 24

// TestValidation decodes every validation set (checking the recipes and the
// decoder against the manifest's SHA-256 sums) and compares the models
// with the GPU's results, bit for bit: at every input of each set, but at
// every fifth of the four exhaustive sweeps of more than 2^24 inputs
// unless -sfu.validation.all (decoded and summed in full all the same).
// The step is odd so that every residue of the low bits is checked: at a
// step of four, sin_rev's t = j 2^-25 would be checked only where the two
// bits the model truncates are zero.
func TestValidation(t *testing.T) {
	s := needData(t, true)
	for _, d := range s.testdata.Datasets {
		t.Run(d.Name, func(t *testing.T) {
			in, out, err := s.decodeAll(d)
			if err != nil {
				t.Fatal(err)
			}
			step := 1
			if len(in) > bigSet && !*validationAll {
				step = 5
			}
			checkModel(t, d, in, out, step)
		})
	}
	for _, dr := range s.testdata.Dropped {
		t.Logf("validation set %s was dropped by the generator (size budget)", dr.Name)
	}
	for _, sk := range s.testdata.Skipped {
		t.Errorf("dataset %s was not recorded: %s", sk.Name, sk.Why)
	}
}

var tablesAll = flag.Bool("sfu.tables.all", false, "TestTables checks every table (by default every third of tanh's binades) at every input (by default every fifth, and every input of sin_q0)")

// tanhDefault says whether TestTables checks tanh's table of binade e
// without -sfu.tables.all: every third binade, e111 (the first), e114, ...,
// e129: seven of the twenty-one. TestValidation's v_tanh_approx_f32 holds
// the model to the GPU in every binade.
func tanhDefault(e int) bool { return e%3 == 0 }

// TestTables decodes every table (its SHA-256 sums checked in full) and
// checks the models on their inputs: for most tables a consistency check,
// made at every fifth input unless -sfu.tables.all (TestValidation holds
// the models to the GPU); for sin_q0 it checks
// that every grid operand lands in its own table entry. Of tanh's
// twenty-one tables, one a binade, it takes every third unless
// -sfu.tables.all.
func TestTables(t *testing.T) {
	s := needData(t, false)
	for _, d := range s.tables.Datasets {
		t.Run(d.Name, func(t *testing.T) {
			if testing.Short() && d.Name != "sin_q0" {
				t.Skip("-short")
			}
			if e, err := strconv.Atoi(strings.TrimPrefix(d.Name, "tanh_e")); err == nil && !*tablesAll && !tanhDefault(e) {
				t.Skip("one of tanh's binades left to -sfu.tables.all")
			}
			in, out, err := s.decodeAll(d)
			if err != nil {
				t.Fatal(err)
			}
			step := 5 // odd, as in TestValidation: every fourth input was one whose two low bits are zero
			if *tablesAll || d.Name == "sin_q0" {
				step = 1
			}
			checkModel(t, d, in, out, step)
			// the lazily decoded table must agree with the full decode
			tb, err := s.tableErr(d.Name)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(out); i += 997 {
				got := uint64(tb.at(i))
				want := out[i]
				if d.Type == "u64" {
					got = tb.at64(i)
				}
				if got != want {
					t.Fatalf("%s: table.at(%d) = %x, decodeAll %x", d.Name, i, got, want)
				}
			}
		})
	}
}

// TestAvailable: the models answer exactly when tables exist; dry-run
// tables are never used outside tests.
func TestAvailable(t *testing.T) {
	s := cur()
	if _, ok := MufuRcp(one32); ok != (s.tables != nil && s.table("rcp_m") != nil) {
		t.Errorf("MufuRcp ok = %v with tables %v", ok, s.tables != nil)
	}
	if s.tables != nil {
		strict := newSource(s.tables, nil, false)
		if got := strict.table("rcp_m") != nil; got == s.tables.DryRun {
			t.Errorf("dry_run %v: runtime source loads rcp_m = %v", s.tables.DryRun, got)
		}
	}
	empty := newSource(nil, nil, false)
	if empty.table("rcp_m") != nil {
		t.Error("table without data")
	}
}
