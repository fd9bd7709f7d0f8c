package arena_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/internal/testprog"
)

// TestPlaceReadOnly: Place never puts an arena that holds a block other
// than a constant into a read-only level (FORMATS.md rule 7), however
// fast: it takes the next level that holds the arena, or fails saying why.
// An arena of constants only may go there.
func TestPlaceReadOnly(t *testing.T) {
	prof := testprog.Profile("hw",
		testprog.Level{Name: "ROM", Capacity: 4096, Align: 16, Latency: 1, Bandwidth: 4, ReadOnly: true},
		testprog.Level{Name: "SRAM", Capacity: 1024, Align: 16, Latency: 10, Bandwidth: 1})
	mixed := testprog.New("p", 2).
		Block("w", 256, "constant", 0, 1, testprog.Reads(1)).
		Block("a", 256, "activation", 0, 1, testprog.Reads(1)).
		Program()
	lay, l, _, err := arena.Place(testprog.Bind(mixed, prof), arena.Seed000{})
	require.NoError(t, err)
	assert.Equal(t, 1, l, "SRAM, not the read-only ROM")
	assert.Equal(t, int32(1), lay.Segs[1][0].Level)

	big := testprog.New("p", 2).
		Block("w", 256, "constant", 0, 1, testprog.Reads(1)).
		Block("a", 1024, "activation", 0, 1, testprog.Reads(1)).
		Program()
	_, _, _, err = arena.Place(testprog.Bind(big, prof), arena.Seed000{})
	assert.EqualError(t, err, "planner seed000 needs an arena larger than every writable level (SRAM 1024 B); read-only ROM holds constants only")

	constants := testprog.New("p", 2).
		Block("w", 256, "constant", 0, 1, testprog.Reads(1)).
		Block("v", 2048, "constant", 0, 1, testprog.Reads(1)).
		Program()
	_, l, _, err = arena.Place(testprog.Bind(constants, prof), arena.Seed000{})
	require.NoError(t, err)
	assert.Equal(t, 0, l, "constants only: the read-only ROM holds them")
}
