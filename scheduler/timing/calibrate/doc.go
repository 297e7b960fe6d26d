// Command calibrate fits and checks the timing model against the GPU
// corpora under testdata/ (see the README's "Timing: cycles, stall reasons, occupancy" section):
//
//	go run ./scheduler/timing/calibrate forms    # PTX form counts of every corpus launch → scheduler/sasscost/data/launches.json
//	go run ./scheduler/timing/calibrate sass     # fit the SASS cost table on them → scheduler/sasscost/tables/h100.json
//	go run ./scheduler/timing/calibrate cycles   # cycle error over the calibration launches, with baselines and pairs
//	go run ./scheduler/timing/calibrate fit      # fit the H100 timing parameters → scheduler/gpu/profiles/h100.json
//	go run ./scheduler/timing/calibrate pairs    # the ratio pairs of the perf corpus, GPU against model
//	go run ./scheduler/timing/calibrate regs     # refit the register estimate on the corpus's ptxas -v reports
//
// Run it from the repository root. It is a tool for the people who keep
// the model calibrated; the tests check its results without running it.
package main
