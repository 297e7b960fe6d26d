package sanitize

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

const prefix = "========= "

// WriteText prints the report in compute-sanitizer's style: one record
// per finding, then the summary line.
func (r *Report) WriteText(w io.Writer, ptxFile string) {
	fmt.Fprintf(w, "%sPTXVM SANITIZE (%s): kernel %s\n", prefix, r.Tool, r.Kernel)
	for i := range r.Findings {
		f := &r.Findings[i]
		head := "Error"
		if f.Severity == SevWarning {
			head = "Warning"
		}
		switch {
		case f.Tool == "racecheck" && len(f.Sites) == 2:
			count := fmt.Sprintf("%d hazards", f.Count)
			if f.Warnings > 0 && f.Warnings < f.Count {
				count += fmt.Sprintf(", %d of them between lanes of one warp (warnings)", f.Warnings)
			}
			fmt.Fprintf(w, "%s%s: %s at %s %#x in block (%s) [%s]\n", prefix, head, f.Title, f.Space, f.Addr, dim(f.Sites[1].Block), count)
			for _, s := range f.Sites {
				fmt.Fprintf(w, "%s    %s Thread (%s) at %s\n", prefix, s.Access, dim(s.Thread), where(&s, ptxFile))
			}
		case len(f.Sites) == 0:
			fmt.Fprintf(w, "%s%s\n", prefix, f.Title)
		default:
			title := f.Title
			if f.Size > 0 && f.Tool == "initcheck" {
				title = fmt.Sprintf("%s of size %d bytes", f.Title, f.Size)
			}
			fmt.Fprintf(w, "%s%s [%d hazards]\n", prefix, title, f.Count)
			for k, s := range f.Sites {
				if k > 0 {
					fmt.Fprintf(w, "%s    and\n", prefix)
				}
				fmt.Fprintf(w, "%s    at %s\n", prefix, where(&s, ptxFile))
				fmt.Fprintf(w, "%s    by thread (%s) in block (%s)\n", prefix, dim(s.Thread), dim(s.Block))
			}
			if f.Tool == "initcheck" || f.Tool == "memcheck" && f.Space != "" && !strings.HasPrefix(f.Detail, "Access") {
				fmt.Fprintf(w, "%s    Address %#x\n", prefix, f.Addr)
			}
		}
		if f.Detail != "" {
			fmt.Fprintf(w, "%s    %s\n", prefix, f.Detail)
		}
		fmt.Fprintf(w, "%s\n", prefix)
	}
	if r.Failure != "" {
		fmt.Fprintf(w, "%sThe launch failed: %s\n", prefix, r.Failure)
	}
	word := "errors"
	if r.Errors == 1 {
		word = "error"
	}
	if strings.Contains(r.Tool, "racecheck") || r.Tool == "all" {
		var hz, warn int
		for _, f := range r.Findings {
			if f.Tool == "racecheck" {
				hz += f.Count
				warn += f.Warnings
			}
		}
		fmt.Fprintf(w, "%sRACECHECK SUMMARY: %d hazards (%d errors, %d warnings)\n", prefix, hz, hz-warn, warn)
	}
	fmt.Fprintf(w, "%sERROR SUMMARY: %d %s\n", prefix, r.Errors, word)
}

// where is "PTX line N (op) in file.cu:LINE" for a site.
func where(s *Site, ptxFile string) string {
	out := fmt.Sprintf("%s:%d", ptxFile, s.PTXLine)
	if s.Op != "" {
		out += " (" + s.Op + ")"
	}
	if s.Source != "" {
		out += " in " + s.Source
	}
	if s.Inlined != "" {
		out += " inlined from " + s.Inlined
	}
	return out
}

func dim(v [3]uint32) string { return fmt.Sprintf("%d,%d,%d", v[0], v[1], v[2]) }

// JSON writes the report as one indented JSON object.
func (r *Report) JSON(w io.Writer) error {
	out := *r
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&out)
}
