// Command ptxrun runs the PTX that nvcc emits on an emulated GPU.
//
//	ptxrun FILE.ptx               list the kernels of a module and their resources
//	ptxrun run SPEC.json          run a launch spec (or a bundled kernel), write its outputs
//	ptxrun test DIR...            run regression cases against recorded GPU outputs
//	ptxrun demo                   run the bundled kernels and check them
//	ptxrun gpus                   list the GPU profiles
//	ptxrun compare A B            run two specs or bundled kernels, counters side by side
//	ptxrun report SPEC.json       run a launch, write its report as one HTML file
//	ptxrun metrics                list every metric with its meaning
package main
