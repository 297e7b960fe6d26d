// Package spec reads launch specs (version 1): a PTX module and kernel, the
// grid and block, device buffers with their initial contents, module symbols,
// texture objects, the kernel's arguments, the buffers to write back and how
// closely they must match (a compare.Tolerance). Load and Parse check a spec
// and say where it is wrong; Prepare makes it a launch on a vm.Device, ready
// to run; Prepared.Outputs reads the results back.
//
// It does not run launches (package scheduler does) nor compare outputs
// (package compare does).
package spec
