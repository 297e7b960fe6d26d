package shard_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/shard"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		text string
		env  map[string]string
		want shard.Shard
		err  string // a substring of the error; "" for none
	}{
		{"first of four", "0/4", nil, shard.Shard{Index: 0, Count: 4}, ""},
		{"last of four", "3/4", nil, shard.Shard{Index: 3, Count: 4}, ""},
		{"one shard", "0/1", nil, shard.Shard{Index: 0, Count: 1}, ""},
		{"index too large", "4/4", nil, shard.Shard{}, "counts from 0, so it must be less than 4 (0/4 to 3/4)"},
		{"negative index", "-1/4", nil, shard.Shard{}, "is not a whole number from 0 to 3"},
		{"no count", "2", nil, shard.Shard{}, "write I/N"},
		{"zero shards", "0/0", nil, shard.Shard{}, "at least 1"},
		{"not numbers", "a/b", nil, shard.Shard{}, "not a whole number"},
		{"kubernetes", "env/8", map[string]string{"JOB_COMPLETION_INDEX": "5"}, shard.Shard{Index: 5, Count: 8}, ""},
		{"kubernetes index past N", "env/4", map[string]string{"JOB_COMPLETION_INDEX": "4"}, shard.Shard{}, "JOB_COMPLETION_INDEX=4 makes shard 4, but there are only 4 shards"},
		{"kubernetes without N", "env", map[string]string{"JOB_COMPLETION_INDEX": "1"}, shard.Shard{}, "write env/N"},
		{"kubernetes before slurm", "env/8", map[string]string{"JOB_COMPLETION_INDEX": "2", "SLURM_ARRAY_TASK_ID": "7"}, shard.Shard{Index: 2, Count: 8}, ""},
		{"slurm from 0", "env", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8"}, shard.Shard{Index: 3, Count: 8}, ""},
		{"slurm from 1", "env", map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"}, shard.Shard{Index: 7, Count: 8}, ""},
		{"slurm in steps", "env", map[string]string{"SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, shard.Shard{Index: 3, Count: 4}, ""},
		{"slurm, N given", "env/16", map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "4"}, shard.Shard{Index: 9, Count: 16}, ""},
		{"slurm without count", "env", map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, shard.Shard{}, "SLURM_ARRAY_TASK_COUNT is not set"},
		{"slurm off the range", "env/4", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "1"}, shard.Shard{}, "not in the array's range"},
		{"no variables", "env/4", nil, shard.Shard{}, "neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID"},
		{"bad variable", "env/4", map[string]string{"JOB_COMPLETION_INDEX": "x"}, shard.Shard{}, `JOB_COMPLETION_INDEX="x" is not a whole number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := shard.Parse(tc.text, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// The shards of a list are disjoint, cover it, keep its order and differ
// in size by one at most.
func TestSelectPartitions(t *testing.T) {
	list := make([]int, 23)
	for i := range list {
		list[i] = i
	}
	for _, n := range []int{1, 2, 3, 5, 23, 30} {
		seen := map[int]int{}
		minLen, maxLen := len(list), 0
		for i := 0; i < n; i++ {
			part := shard.Select(shard.Shard{Index: i, Count: n}, list)
			assert.IsIncreasing(t, append([]int{-1}, part...), "order kept")
			for _, x := range part {
				seen[x]++
			}
			minLen, maxLen = min(minLen, len(part)), max(maxLen, len(part))
		}
		assert.Len(t, seen, len(list), "%d shards cover the list", n)
		for x, c := range seen {
			assert.Equal(t, 1, c, "%d shards: item %d in one shard only", n, x)
		}
		assert.LessOrEqual(t, maxLen-minLen, 1, "%d shards: balanced", n)
	}
	assert.Equal(t, list, shard.Select(shard.All, list), "the zero Shard is the whole list")
	assert.Equal(t, []int{1, 4, 7}, shard.Select(shard.Shard{Index: 1, Count: 3}, list[:9]))
}
