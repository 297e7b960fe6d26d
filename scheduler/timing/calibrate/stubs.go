package main

func cmdCycles(args []string) error { return nil }
func cmdFit(args []string) error    { return nil }
