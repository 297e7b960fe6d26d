// Package listing describes the kernels of a loaded module as `ptxas -v`
// would, from what the PTX declares: parameters and their layout, virtual
// registers by type, static shared memory, the local depot, the constant
// bank, the functions each kernel calls and its performance directives. It
// scans tokens rather than parsing bodies, so listing a module of thousands
// of kernels costs about one read of it.
//
// It does not lower or check code (vm.Module.Kernel does) and does not print:
// cmd/ptxrun formats what it returns.
package listing
