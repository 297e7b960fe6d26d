// Package ncu reads the Nsight Compute tables of the GPU corpora under
// testdata/ (testdata/<corpus>/ncu/<table>.csv or .csv.gz, `ncu --csv --page raw`, one
// row per launch, with <table>.launches.json naming each row's case), for
// the tests that compare the emulator's figures with the GPU's.
//
// It does not run anything or know what a metric means.
package ncu
