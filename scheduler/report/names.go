package report

import "github.com/ptxvm/ptxvm/ptx/demangle"

// kernelTitle is a kernel's demangled signature and mangled name, as
// ptxrun run prints them; a name that is not mangled stands alone.
func kernelTitle(mangled string) string {
	if d, err := demangle.Demangle(mangled); err == nil && d != mangled {
		return d + "  (" + mangled + ")"
	}
	return mangled
}

// sideTitle labels one side of a comparison: what was run (the spec's
// path), then its kernel, so that two specs of one kernel read apart.
func sideTitle(r *Report) string {
	if r.From != "" {
		return r.From + ": " + kernelTitle(r.Kernel)
	}
	return kernelTitle(r.Kernel)
}
