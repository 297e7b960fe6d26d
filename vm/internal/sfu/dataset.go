package sfu

import (
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The tables the models use are embedded from tables/ (written there by
// testdata/sfu/gen/gen.py on the GPU machine); the validation sets live in
// testdata/sfu and are read by the tests only. Both directories hold a
// manifest.json describing their datasets.

//go:embed tables
var embedded embed.FS

// manifestFormat is the "format" of the manifests this reader understands.
const manifestFormat = "ptxvm-sfu/1"

// Manifest is one directory's manifest.json.
type Manifest struct {
	Format   string          `json:"format"`
	DryRun   bool            `json:"dry_run"`
	Role     string          `json:"role"`
	Env      json.RawMessage `json:"env"`
	Datasets []*Dataset      `json:"datasets"`
	Dropped  []struct {
		Name  string `json:"name"`
		Bytes int    `json:"bytes"`
	} `json:"dropped"`
	Skipped []struct {
		Name string `json:"name"`
		Why  string `json:"why"`
	} `json:"skipped"`

	fsys fs.FS
}

// Predictor is what a dataset's residuals are relative to.
type Predictor struct {
	Kind  string `json:"kind"`  // "ref" or "sincos"
	Fn    string `json:"fn"`    // reference function, or "sin"/"cos"
	Table string `json:"table"` // sincos: the quadrant table
	Ftz   bool   `json:"ftz"`
}

// Encoding says how a dataset's outputs are stored.
type Encoding struct {
	Kind     string `json:"kind"` // "codes" or "rle"
	Codec    string `json:"codec"`
	File     string `json:"file"`
	Bytes    int    `json:"bytes"`
	RawBytes int    `json:"raw_bytes"`
	Planes   int    `json:"planes"`
	Classes  int    `json:"classes"` // >0: the first plane is grouped by refClass
}

// Dataset is one recorded input set and the GPU's outputs for it.
type Dataset struct {
	Name          string    `json:"name"`
	Instr         string    `json:"instr"` // the PTX instruction that ran
	Role          string    `json:"role"`  // "table" or "validation"
	Type          string    `json:"type"`  // "u32" or "u64"
	N             int       `json:"n"`
	Segments      []segment `json:"segments"`
	Stride        int       `json:"stride"`
	InputsSHA256  string    `json:"inputs_sha256"`
	OutputsSHA256 string    `json:"outputs_sha256"`
	Predictor     Predictor `json:"predictor"`
	Encoding      Encoding  `json:"encoding"`
	Purpose       string    `json:"purpose"`
	Priority      int       `json:"priority"`

	m *Manifest
}

func (d *Dataset) width() int {
	if d.Type == "u64" {
		return 64
	}
	return 32
}

func (d *Dataset) stride() int {
	if d.Stride < 1 {
		return 1
	}
	return d.Stride
}

func readManifest(fsys fs.FS) (*Manifest, error) {
	b, err := fs.ReadFile(fsys, "manifest.json")
	if err != nil {
		return nil, err
	}
	m := &Manifest{fsys: fsys}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("manifest.json: %v", err)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("manifest.json: format %q, want %q", m.Format, manifestFormat)
	}
	for _, d := range m.Datasets {
		d.m = m
		total := 0
		for i := range d.Segments {
			if err := d.Segments[i].prepare(); err != nil {
				return nil, fmt.Errorf("%s: %v", d.Name, err)
			}
			total += d.Segments[i].Count
		}
		if want := (total + d.stride() - 1) / d.stride(); want != d.N {
			return nil, fmt.Errorf("%s: n %d, segments give %d", d.Name, d.N, want)
		}
	}
	return m, nil
}

func (d *Dataset) rawBytes() ([]byte, error) {
	z, err := fs.ReadFile(d.m.fsys, d.Encoding.File)
	if err != nil {
		return nil, err
	}
	return decompress(d.Encoding.Codec, z, d.Encoding.RawBytes)
}

// source is a set of manifests: the tables and, for tests, the validation
// sets. Tables are decoded on first use.
type source struct {
	tables, testdata *Manifest
	allowDryRun      bool

	fixed [nTabs]tableEntry // the models' tables, by id (no lock on the fast path)
	tanhT [256]tableEntry   // tanh_e<E>, by biased exponent
	mu    sync.Mutex
	other map[string]*tableEntry

	tanhOnce       sync.Once
	tanhLo, tanhHi int
}

type tableEntry struct {
	once sync.Once
	t    *table
	err  error
}

// tabID names the tables the models use.
type tabID int

const (
	tRcp tabID = iota
	tRsqrt
	tSqrt
	tEx2Pos
	tEx2Neg
	tLg2
	tSinQ0
	tRcp64H
	tRsqrt64H
	nTabs
)

var tabNames = [nTabs]string{"rcp_m", "rsqrt_m", "sqrt_m", "ex2_pos", "ex2_neg", "lg2_m", "sin_q0", "rcp64h_m", "rsqrt64h_m"}

func newSource(tables, testdata *Manifest, allowDryRun bool) *source {
	return &source{tables: tables, testdata: testdata, allowDryRun: allowDryRun, other: map[string]*tableEntry{}}
}

func (s *source) dataset(name string) *Dataset {
	for _, m := range []*Manifest{s.tables, s.testdata} {
		if m == nil {
			continue
		}
		for _, d := range m.Datasets {
			if d.Name == name {
				return d
			}
		}
	}
	return nil
}

// tab returns one of the models' tables, or nil when it is not available.
func (s *source) tab(id tabID) *table {
	e := &s.fixed[id]
	e.once.Do(func() { e.t, e.err = s.load(tabNames[id]) })
	return e.t
}

// tanhTab returns the tanh table of binade e, or nil.
func (s *source) tanhTab(e uint32) *table {
	en := &s.tanhT[e&0xFF]
	en.once.Do(func() { en.t, en.err = s.load("tanh_e" + strconv.Itoa(int(e&0xFF))) })
	return en.t
}

// table returns a decoded table by name, or nil when it is not available.
func (s *source) table(name string) *table {
	t, _ := s.tableErr(name)
	return t
}

func (s *source) tableErr(name string) (*table, error) {
	for id, n := range tabNames {
		if n == name {
			e := &s.fixed[id]
			s.tab(tabID(id))
			return e.t, e.err
		}
	}
	if e, err := strconv.Atoi(strings.TrimPrefix(name, "tanh_e")); err == nil && strings.HasPrefix(name, "tanh_e") && e >= 0 && e < 256 {
		en := &s.tanhT[e]
		s.tanhTab(uint32(e))
		return en.t, en.err
	}
	s.mu.Lock()
	e := s.other[name]
	if e == nil {
		e = &tableEntry{}
		s.other[name] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.t, e.err = s.load(name) })
	return e.t, e.err
}

var errNoData = errors.New("no SFU table data (run testdata/sfu/gen/gen.py on the GPU machine)")

func (s *source) load(name string) (*table, error) {
	if s.tables == nil || (s.tables.DryRun && !s.allowDryRun) {
		return nil, errNoData
	}
	d := s.dataset(name)
	if d == nil {
		return nil, fmt.Errorf("no dataset %q", name)
	}
	if d.stride() != 1 {
		return nil, fmt.Errorf("%s: thinned by stride %d, not a complete table", name, d.stride())
	}
	buf, err := d.rawBytes()
	if err != nil {
		return nil, err
	}
	pred := s.predictor(d)
	if pred == nil {
		return nil, fmt.Errorf("%s: predictor %v unavailable", name, d.Predictor)
	}
	input := d.inputFunc()
	t := &table{predAt: func(i int) uint32 { return pred(input(i)) }}
	switch d.Encoding.Kind {
	case "rle":
		t.r, err = readRLE(buf, d.N, t.predAt)
	case "codes":
		var rest []byte
		t.p, rest, err = readPlane(buf, d.N)
		if err == nil && d.Encoding.Classes > 0 {
			var class func(i int) int
			if class, err = d.classFunc(input); err == nil {
				t.p = ungroup(t.p, class)
			}
		}
		if err == nil && d.Type == "u64" {
			t.lo, rest, err = readPlane(rest, d.N)
		}
		if err == nil && len(rest) != 0 {
			err = fmt.Errorf("%d trailing bytes", len(rest))
		}
	default:
		err = fmt.Errorf("unknown encoding %q", d.Encoding.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return t, nil
}

// predictor returns the dataset's prediction as a function of its input.
func (s *source) predictor(d *Dataset) func(x uint64) uint32 {
	p := d.Predictor
	switch p.Kind {
	case "ref":
		return predictFunc(p.Fn, p.Ftz)
	case "sincos":
		if p.Table == d.Name {
			return nil
		}
		tq := s.table(p.Table)
		if tq == nil {
			return nil
		}
		cos := p.Fn == "cos"
		return func(x uint64) uint32 { return sincosPredict(uint32(x), p.Ftz, cos, tq) }
	}
	return nil
}

// sincosPredict is the "sincos" predictor of the data files: the quadrant
// model of sfuspec/gen.py (sincos_model) as the generator implemented it.
// It is deliberately a frozen copy of the first version of mufuSinCos: the
// files depend on it, the model may change.
func sincosPredict(x uint32, ftz, cos bool, tq *table) uint32 {
	t := mulRZ(x, c2PiInv, ftz)
	s, e, m := t&sign32, t>>23&0xFF, t&mask23
	switch {
	case e == 255:
		return canonNaN
	case e == 0:
		if cos {
			return one32
		}
		return s
	}
	var J uint64
	mm := uint64(m | 1<<23)
	switch sh := int(e) - 125; {
	case sh >= 25:
		J = 0
	case sh >= 0:
		J = mm << sh & (1<<25 - 1)
	case sh > -64:
		J = mm >> -sh
	}
	q, f := uint32(J>>23), uint32(J&mask23)
	var sign uint32
	if cos {
		q = (q + 1) & 3
		sign = q >> 1 << 31
	} else {
		sign = s ^ q>>1<<31
	}
	if q&1 != 0 {
		f = ^f & mask23
	}
	return tq.at(int(f))&^sign32 | sign
}

// table is a decoded dataset used for lookups: entry i is the prediction
// for input i corrected by the stored residual.
type table struct {
	predAt func(i int) uint32 // the prediction for input i
	p, lo  plane
	r      *rle
}

// at returns output i (the upper word for u64 datasets).
func (t *table) at(i int) uint32 {
	if t.r != nil {
		return t.r.at(i)
	}
	return unord32(ord32(t.predAt(i)) + t.p.at(i))
}

// at64 returns the whole 64-bit output i of a u64 dataset.
func (t *table) at64(i int) uint64 {
	return uint64(t.at(i))<<32 | uint64(unord32(t.lo.at(i)))
}

// decodeAll regenerates every input and decodes every output of a dataset,
// verifying both against the manifest's SHA-256 sums.
func (s *source) decodeAll(d *Dataset) (in, out []uint64, err error) {
	in = d.inputs()
	if got := sumOf(in, d.width()); got != d.InputsSHA256 {
		return nil, nil, fmt.Errorf("%s: inputs sha256 %s, manifest %s (recipe mismatch)", d.Name, got, d.InputsSHA256)
	}
	pred := s.predictor(d)
	if pred == nil {
		return nil, nil, fmt.Errorf("%s: predictor %+v unavailable", d.Name, d.Predictor)
	}
	buf, err := d.rawBytes()
	if err != nil {
		return nil, nil, err
	}
	out = make([]uint64, len(in))
	switch d.Encoding.Kind {
	case "rle":
		r, err := readRLE(buf, len(in), func(i int) uint32 { return pred(in[i]) })
		if err != nil {
			return nil, nil, err
		}
		for i := range out {
			out[i] = uint64(r.at(i))
		}
	case "codes":
		p, rest, err := readPlane(buf, len(in))
		if err != nil {
			return nil, nil, err
		}
		if d.Encoding.Classes > 0 {
			class, err := d.classFunc(func(i int) uint64 { return in[i] })
			if err != nil {
				return nil, nil, err
			}
			p = ungroup(p, class)
		}
		var lo plane
		if d.Type == "u64" {
			if lo, rest, err = readPlane(rest, len(in)); err != nil {
				return nil, nil, err
			}
		}
		if len(rest) != 0 {
			return nil, nil, fmt.Errorf("%s: %d trailing bytes", d.Name, len(rest))
		}
		for i, x := range in {
			v := uint64(unord32(ord32(pred(x)) + p.at(i)))
			if d.Type == "u64" {
				v = v<<32 | uint64(unord32(lo.at(i)))
			}
			out[i] = v
		}
	default:
		return nil, nil, fmt.Errorf("%s: unknown encoding %q", d.Name, d.Encoding.Kind)
	}
	if got := sumOf(out, d.width()); got != d.OutputsSHA256 {
		return nil, nil, fmt.Errorf("%s: outputs sha256 %s, manifest %s (decoder mismatch)", d.Name, got, d.OutputsSHA256)
	}
	return in, out, nil
}

// classFunc is the class of input i of a class-grouped plane (refClass,
// its function resolved once).
func (d *Dataset) classFunc(input func(i int) uint64) (func(i int) int, error) {
	p := d.Predictor
	value := valueFunc(p.Fn)
	if d.Encoding.Classes != nClasses || p.Kind != "ref" || value == nil || d.Type != "u32" {
		return nil, fmt.Errorf("%s: cannot group by class (classes %d, predictor %+v)", d.Name, d.Encoding.Classes, p)
	}
	ftz := p.Ftz
	return func(i int) int { return classOf(value(uint32(input(i)), ftz)) }, nil
}

func sumOf(v []uint64, width int) string {
	h := sha256.New()
	// The values little-endian, width bits each, hashed a buffer at a
	// time (a Write per value cost as much as the hashing).
	var buf [8 << 10]byte
	k := 0
	if width == 32 {
		for _, x := range v {
			binary.LittleEndian.PutUint32(buf[k:], uint32(x))
			if k += 4; k == len(buf) {
				h.Write(buf[:])
				k = 0
			}
		}
	} else {
		for _, x := range v {
			binary.LittleEndian.PutUint64(buf[k:], x)
			if k += 8; k == len(buf) {
				h.Write(buf[:])
				k = 0
			}
		}
	}
	h.Write(buf[:k])
	return hex.EncodeToString(h.Sum(nil))
}

// The process-wide source: the embedded tables, never dry-run data.
var (
	defOnce sync.Once
	defSrc  *source
	testSrc atomic.Pointer[source] // set by tests
)

func cur() *source {
	if t := testSrc.Load(); t != nil {
		return t
	}
	defOnce.Do(func() {
		sub, err := fs.Sub(embedded, "tables")
		var m *Manifest
		if err == nil {
			m, _ = readManifest(sub)
		}
		defSrc = newSource(m, nil, false)
	})
	return defSrc
}

// Available reports whether real-GPU tables are embedded (generated on the
// GPU machine, not by a dry run). When false, every function here returns
// ok == false and the caller falls back to its own approximation.
func Available() bool { return cur().available() }

// available says whether s may load tables (they may still fail to decode).
func (s *source) available() bool {
	return s.tables != nil && (!s.tables.DryRun || s.allowDryRun)
}

// dirSource builds a source from directories (tests).
func dirSource(tablesDir, testdataDir string, allowDryRun bool) (*source, error) {
	var tm, vm *Manifest
	var err error
	if tablesDir != "" {
		if tm, err = readManifest(os.DirFS(tablesDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if testdataDir != "" {
		if vm, err = readManifest(os.DirFS(testdataDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return newSource(tm, vm, allowDryRun), nil
}
