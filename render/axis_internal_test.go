package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLevelRange(t *testing.T) {
	const KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
	for _, c := range []struct {
		name     string
		used     []Band
		capacity int64
		want     []Band
		shown    bool
	}{
		{"nothing used: the whole level", nil, 4 * KiB, []Band{{0, 4 * KiB}}, true},
		// 900 of 1000 used: the 100 above is under a quarter of 1000.
		{"nearly full: to the capacity", []Band{{0, 900}}, 1000, []Band{{0, 1000}}, true},
		// 100 of 1000: the 900 above is cut; 100/4 = 25, step 16: 112.
		{"a little used: to the top, rounded", []Band{{0, 60}, {40, 100}}, 1000, []Band{{0, 112}}, false},
		// 120 MiB at the bottom and 6 MiB at the top of 2 GiB: the
		// 1.9 GiB between is cut; 120 MiB/4 = 30 MiB, step 16 MiB: 128
		// MiB; the top band [2042 MiB, 2 GiB] ends at the capacity, its
		// step 1 MiB.
		{"bottom and top", []Band{{0, 120 * MiB}, {2042*MiB + 5, 2 * GiB}}, 2 * GiB, []Band{{0, 128 * MiB}, {2042 * MiB, 2 * GiB}}, true},
		// Up to 10 GiB of 80: cut above; 10 GiB/4 = 2.5 GiB, step 2 GiB: 10 GiB.
		{"far below the capacity", []Band{{0, 10 * GiB}}, 80 * GiB, []Band{{0, 10 * GiB}}, false},
		// A gap of 30 in 100 is cut (>= 25); the top band ends at the
		// capacity (5 above it). Steps: 2^floor(log2(30/4)) = 4 for
		// [0, 30] -> [0, 32]; 2^floor(log2(40/4)) = 8 for [60, 100] ->
		// [56, 100].
		{"a gap in the middle", []Band{{0, 30}, {60, 95}}, 100, []Band{{0, 32}, {56, 100}}, true},
		// A gap of 20 in 100 is not (< 25).
		{"a small gap stays", []Band{{0, 40}, {60, 95}}, 100, []Band{{0, 100}}, true},
		// Nothing at the bottom: the 900 below is cut too.
		{"only at the top", []Band{{900, 1000}}, 1000, []Band{{896, 1000}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := levelRange(c.used, c.capacity)
			assert.Equal(t, c.want, r.Bands)
			assert.Equal(t, c.shown, r.CapacityShown)
		})
	}
}

func TestAddrLabel(t *testing.T) {
	for v, want := range map[int64]string{0: "0", 512: "512", 1536: "1.5 KiB", 128 << 20: "128 MiB",
		2041 << 20: "2041 MiB", 2 << 30: "2 GiB", 1<<30 + 1<<29: "1.5 GiB", 1000: "1000", 1025: "1 KiB", 85176483840: "79.3 GiB"} {
		assert.Equal(t, want, addrLabel(v), "%d", v)
	}
}

func TestAddrAxisHeights(t *testing.T) {
	// Two bands of spans 120 and 20 on a height of 110 with a cut of 10:
	// 100 to share; shares 120/140 = 0.857 and max(20/140, 0.15) = 0.15,
	// normalised by 1.007: 85.1 and 14.9.
	a := newAddrAxis(LevelRange{Bands: []Band{{0, 120}, {200, 220}}}, 110, 10)
	assert.InDelta(t, 0, a.height(0), 1e-9)
	assert.InDelta(t, 85.1, a.height(120), 0.1)
	assert.InDelta(t, 95.1, a.height(200), 0.1)
	assert.InDelta(t, 110, a.height(220), 1e-9)
	assert.InDelta(t, 85.1, a.height(150), 0.1, "in the cut: the top of the band below")
}
