package ptx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSourceLines(t *testing.T) {
	src := ".version 8.5\n.target sm_90\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}"
	m, err := ParseLazy("k.ptx", []byte(src))
	require.NoError(t, err)
	got := m.SourceLines(7, 1, 7, 8, 9, 0)
	assert.Equal(t, map[int]string{1: ".version 8.5", 7: "ret;", 8: "}"}, got)
	assert.Empty(t, m.SourceLines())
}
