package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is shard Index of Count. The zero Shard is the whole list.
type Shard struct {
	Index, Count int
}

// All is the whole list, unsharded.
var All = Shard{}

// Has reports whether item i of the list belongs to the shard.
func (s Shard) Has(i int) bool {
	return s.Count <= 1 || i%s.Count == s.Index
}

// Sharded reports whether s is a part of the list rather than all of it.
func (s Shard) Sharded() bool { return s.Count > 1 }

// String is I/N, or "all".
func (s Shard) String() string {
	if s.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Select returns the items of list that belong to the shard, in order.
func Select[T any](s Shard, list []T) []T {
	if !s.Sharded() {
		return list
	}
	var out []T
	for i, x := range list {
		if s.Has(i) {
			out = append(out, x)
		}
	}
	return out
}

// The variables the environment forms read.
const (
	// EnvKubernetes is set by a Kubernetes Indexed Job in each pod: the
	// pod's completion index, from 0.
	EnvKubernetes = "JOB_COMPLETION_INDEX"
	// EnvSlurm is set by Slurm in each task of a job array: the task's ID
	// within the --array range.
	EnvSlurm = "SLURM_ARRAY_TASK_ID"
	// The Slurm array's lowest ID, step and number of tasks.
	envSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	envSlurmStep  = "SLURM_ARRAY_TASK_STEP"
	envSlurmCount = "SLURM_ARRAY_TASK_COUNT"
)

// Parse reads a shard written as
//
//	I/N    shard I of N, 0 ≤ I < N
//	env/N  I from the environment: JOB_COMPLETION_INDEX (a Kubernetes
//	       Indexed Job with completions N), else SLURM_ARRAY_TASK_ID,
//	       counted from the array's first ID in its steps
//	       (SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP)
//	env    the same, with N from SLURM_ARRAY_TASK_COUNT (a Kubernetes Job
//	       does not give its pods the number of completions: write env/N)
//
// getenv looks up an environment variable ("" when unset); os.Getenv does.
func Parse(text string, getenv func(string) string) (Shard, error) {
	idx, cnt, hasCount := strings.Cut(strings.TrimSpace(text), "/")
	if idx == "env" {
		return fromEnv(text, cnt, hasCount, getenv)
	}
	if !hasCount {
		return Shard{}, fmt.Errorf("shard %q: write I/N (shard I of N, I from 0 to N-1), env/N or env", text)
	}
	n, err := count(text, cnt)
	if err != nil {
		return Shard{}, err
	}
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 {
		return Shard{}, fmt.Errorf("shard %q: the index %q is not a whole number from 0 to %d", text, idx, n-1)
	}
	if i >= n {
		return Shard{}, fmt.Errorf("shard %q: the index counts from 0, so it must be less than %d (0/%d to %d/%d)", text, n, n, n-1, n)
	}
	return Shard{Index: i, Count: n}, nil
}

func count(text, cnt string) (int, error) {
	n, err := strconv.Atoi(cnt)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("shard %q: the number of shards %q is not a whole number of at least 1", text, cnt)
	}
	return n, nil
}

// fromEnv reads the index (and, without cnt, the count) from a Kubernetes
// Indexed Job's or a Slurm job array's variables.
func fromEnv(text, cnt string, hasCount bool, getenv func(string) string) (Shard, error) {
	n := 0
	if hasCount {
		var err error
		if n, err = count(text, cnt); err != nil {
			return Shard{}, err
		}
	}
	num := func(name string) (int, bool, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return 0, false, nil
		}
		x, err := strconv.Atoi(v)
		if err != nil || x < 0 {
			return 0, true, fmt.Errorf("shard %q: %s=%q is not a whole number", text, name, v)
		}
		return x, true, nil
	}
	var i int
	var from string
	if k, ok, err := num(EnvKubernetes); err != nil {
		return Shard{}, err
	} else if ok {
		if n == 0 {
			return Shard{}, fmt.Errorf("shard %q: %s=%d is set (a Kubernetes Indexed Job), but a Job does not tell its pods how many shards there are: write env/N, N the Job's completions", text, EnvKubernetes, k)
		}
		i, from = k, fmt.Sprintf("%s=%d", EnvKubernetes, k)
	} else {
		id, ok, err := num(EnvSlurm)
		if err != nil {
			return Shard{}, err
		}
		if !ok {
			return Shard{}, fmt.Errorf("shard %q: neither %s (a Kubernetes Indexed Job) nor %s (a Slurm job array) is set: run it as one of those, or give the shard as I/N", text, EnvKubernetes, EnvSlurm)
		}
		lo, _, err := num(envSlurmMin)
		if err != nil {
			return Shard{}, err
		}
		step, ok, err := num(envSlurmStep)
		if err != nil {
			return Shard{}, err
		}
		if !ok || step == 0 {
			step = 1
		}
		if id < lo || (id-lo)%step != 0 {
			return Shard{}, fmt.Errorf("shard %q: %s=%d is not in the array's range from %s=%d in steps of %d", text, EnvSlurm, id, envSlurmMin, lo, step)
		}
		i = (id - lo) / step
		from = fmt.Sprintf("%s=%d (array from %d in steps of %d)", EnvSlurm, id, lo, step)
		if n == 0 {
			c, ok, err := num(envSlurmCount)
			if err != nil {
				return Shard{}, err
			}
			if !ok || c < 1 {
				return Shard{}, fmt.Errorf("shard %q: %s is not set, so the number of shards is unknown: write env/N", text, envSlurmCount)
			}
			n = c
		}
	}
	if i >= n {
		return Shard{}, fmt.Errorf("shard %q: %s makes shard %d, but there are only %d shards (0 to %d): is the array or the Job larger than N?", text, from, i, n, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}
