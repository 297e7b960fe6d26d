// Package spec reads launch specs (version 1, docs/launch-spec.md): a PTX
// module and kernel, the grid and block, device buffers with their initial
// contents, module symbols, texture objects, the kernel's arguments, the
// buffers to write back and how closely they must match (a
// compare.Tolerance). Load and Parse check a spec and say where it is wrong;
// Prepare makes it a launch on a vm.Device, ready to run; Prepared.Outputs
// reads the results back.
//
// A buffer's contents come from a raw little-endian file, a NumPy .npy file
// (package npy), a fill rule (rand through splitmix64, iota, const; see
// Fill), or are zeros; a large file is mapped, not read. The kernel may be
// named as nvcc mangled it, by its C++ signature or name, or by a unique
// part of either (listing.Resolve). Arguments are checked against the
// kernel's parameters: count, buffer or scalar, float or integer, width,
// and whether the value fits (signedness from the C++ type where the name
// is mangled, since nvcc declares every integer parameter .uN).
//
// It does not run launches (package scheduler does) nor compare outputs
// (package compare does).
package spec
