package ncu

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Launch is one profiled launch: a row of a table.
type Launch struct {
	// Corpus is the folder under testdata (nvcc, perf, apps); Table the
	// CSV's base name (O3, G, access.O3, ...).
	Corpus, Table string
	// Index is the launch's row; Case and Variant name its case folder
	// (testdata/<corpus>/cases/<case>/<variant>); Kernel is the mangled
	// entry; Repeat numbers repeated launches of one case (0 for the
	// first).
	Index                 int
	Case, Variant, Kernel string
	Repeat                int
	row                   map[string]string
	testdata              string
}

// Name is corpus/table/case, unique but for repeats.
func (l *Launch) Name() string {
	n := l.Corpus + "/" + l.Table + "/" + l.Case
	if l.Repeat > 0 {
		n += fmt.Sprintf("#%d", l.Repeat)
	}
	return n
}

// SpecPath is the launch's spec.json.
func (l *Launch) SpecPath() string {
	return filepath.Join(l.testdata, l.Corpus, "cases", l.Case, l.Variant, "spec.json")
}

// Raw returns the metric's text as ncu wrote it ("" when absent).
func (l *Launch) Raw(metric string) string { return l.row[metric] }

// Value returns the metric as a number: thousands separators dropped, a
// trailing " (...)" ignored; false when the metric is absent or not a
// number ("n/a").
func (l *Launch) Value(metric string) (float64, bool) {
	s, ok := l.row[metric]
	if !ok {
		return 0, false
	}
	if i := strings.Index(s, " ("); i >= 0 {
		s = s[:i]
	}
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// Int is Value as an int (0 when absent).
func (l *Launch) Int(metric string) int {
	v, _ := l.Value(metric)
	return int(v)
}

// Has reports whether the table has the metric with a numeric value.
func (l *Launch) Has(metric string) bool {
	_, ok := l.Value(metric)
	return ok
}

// base is a table's path without .csv or .csv.gz.
func base(p string) string {
	return strings.TrimSuffix(strings.TrimSuffix(p, ".gz"), ".csv")
}

// Tables lists the CSV tables (.csv or .csv.gz) under testdata that have
// their .launches.json, sorted; corpora that are not there are skipped.
func Tables(testdata string) ([]string, error) {
	var all []string
	for _, pat := range []string{"*.csv", "*.csv.gz"} {
		m, err := filepath.Glob(filepath.Join(testdata, "*", "ncu", pat))
		if err != nil {
			return nil, err
		}
		all = append(all, m...)
	}
	var out []string
	for _, p := range all {
		if _, err := os.Stat(base(p) + ".launches.json"); err == nil {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

type launchEntry struct {
	Launch  int    `json:"launch"`
	Case    string `json:"case"`
	Kernel  string `json:"kernel"`
	Variant string `json:"variant"`
	Repeat  int    `json:"repeat"`
}

// Read reads one table and its launches.json.
func Read(csvPath string) ([]*Launch, error) {
	f, err := os.Open(csvPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var in io.Reader = f
	if strings.HasSuffix(csvPath, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", csvPath, err)
		}
		defer z.Close()
		in = z
	}
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", csvPath, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no rows", csvPath)
	}
	data, err := os.ReadFile(base(csvPath) + ".launches.json")
	if err != nil {
		return nil, err
	}
	var ents []launchEntry
	if err := json.Unmarshal(data, &ents); err != nil {
		return nil, fmt.Errorf("%s: %w", csvPath, err)
	}
	table := filepath.Base(base(csvPath))
	ncuDir := filepath.Dir(csvPath)
	corpusDir := filepath.Dir(ncuDir)
	testdata := filepath.Dir(corpusDir)
	variant := table
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		variant = table[i+1:]
	}
	head := recs[0]
	// The first row after the header holds units when its ID is empty.
	rows := recs[1:]
	if len(rows) > 0 && len(rows[0]) > 0 && rows[0][0] == "" {
		rows = rows[1:]
	}
	byID := map[int][]string{}
	for _, rec := range rows {
		id, err := strconv.Atoi(rec[0])
		if err != nil {
			return nil, fmt.Errorf("%s: row ID %q", csvPath, rec[0])
		}
		byID[id] = rec
	}
	var out []*Launch
	for _, e := range ents {
		rec, ok := byID[e.Launch]
		if !ok {
			continue // a launch ncu did not profile
		}
		l := &Launch{Corpus: filepath.Base(corpusDir), Table: table, Index: e.Launch, Case: e.Case,
			Variant: variant, Kernel: e.Kernel, Repeat: e.Repeat, row: map[string]string{}, testdata: testdata}
		if e.Variant != "" {
			l.Variant = e.Variant
		}
		for i, h := range head {
			if i < len(rec) {
				l.row[h] = rec[i]
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// PublicCorpus is the corpus of kernels nobody on the project wrote
// (testdata/public): a check of the timing model that nothing is fitted or
// tested against, whose PTX a clone does not have (it is rebuilt from the
// projects' sources). ReadAll leaves it out; ReadWithPublic reads it too.
const PublicCorpus = "public"

// ReadAll reads every table under testdata but the public corpus's.
func ReadAll(testdata string) ([]*Launch, error) { return read(testdata, false) }

// ReadWithPublic reads every table under testdata, the public corpus's
// too (for the calibration tool's report).
func ReadWithPublic(testdata string) ([]*Launch, error) { return read(testdata, true) }

func read(testdata string, public bool) ([]*Launch, error) {
	tables, err := Tables(testdata)
	if err != nil {
		return nil, err
	}
	var out []*Launch
	for _, t := range tables {
		if !public && filepath.Base(filepath.Dir(filepath.Dir(t))) == PublicCorpus {
			continue
		}
		ls, err := Read(t)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}
