package hw_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
)

func TestProfileLevels(t *testing.T) {
	p, err := hw.Parse("p.yaml", []byte(twoLevels))
	require.NoError(t, err)
	assert.Equal(t, []string{"SRAM", "DRAM"}, p.LevelNames())
	i, ok := p.LevelIndex("DRAM")
	assert.True(t, ok)
	assert.Equal(t, 1, i)
	_, ok = p.LevelIndex("dram")
	assert.False(t, ok, "level names are case-sensitive")
	assert.Equal(t, `level "DRAM"`, p.LevelItem(1))
	assert.Equal(t, `level 5`, p.LevelItem(5))
}

// TestValidateBuiltInCode covers a profile built in code, which has no
// decoder in front of Validate.
func TestValidateBuiltInCode(t *testing.T) {
	link := hw.Link{Latency: 1, Bandwidth: 1}
	ok := hw.Level{Name: "L", Capacity: 64, Alignment: 64, In: link, Out: link}
	tests := []struct {
		name string
		p    hw.Profile
		want string // "" when valid
	}{
		{"valid", hw.Profile{Name: "p", TimeUnit: hw.NS, Levels: []hw.Level{ok}}, ""},
		{"no time unit", hw.Profile{Name: "p", Levels: []hw.Level{ok}}, `code: time_unit "": want "cycle" or "ns"`},
		{"no levels", hw.Profile{Name: "p", TimeUnit: hw.Cycle}, `code: "levels" is empty: a profile needs at least one level`},
		{"unnamed level", hw.Profile{Name: "p", TimeUnit: hw.Cycle, Levels: []hw.Level{ok, {Capacity: 1}}},
			`code: level 1: missing required field "name"`},
		{"zero links", hw.Profile{Name: "p", TimeUnit: hw.Cycle, Levels: []hw.Level{{Name: "L", Capacity: 1, Alignment: 1}}},
			`code: level "L": in.latency 0: must be > 0`},
		{"timeline fields", hw.Profile{Name: "p", TimeUnit: hw.Cycle, CostModel: "timeline",
			Compute: &hw.Compute{MACsPerUnit: 256}, DMA: hw.DMA{Channels: 2}, Levels: []hw.Level{ok}}, ""},
		{"macs_per_unit 0", hw.Profile{Name: "p", TimeUnit: hw.Cycle, Compute: &hw.Compute{}, Levels: []hw.Level{ok}},
			`code: compute.macs_per_unit 0: must be > 0`},
		{"op_overhead negative", hw.Profile{Name: "p", TimeUnit: hw.Cycle, Compute: &hw.Compute{MACsPerUnit: 1, OpOverhead: -1}, Levels: []hw.Level{ok}},
			`code: compute.op_overhead -1: must be >= 0`},
		{"negative channels", hw.Profile{Name: "p", TimeUnit: hw.Cycle, DMA: hw.DMA{Channels: -1}, Levels: []hw.Level{ok}},
			`code: dma.channels -1: must be an integer >= 1 (0 in code means the default, 1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate("code")
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.True(t, inputerr.Is(err))
		})
	}
}

func TestLinkTime(t *testing.T) {
	l := hw.Link{Latency: 8, Bandwidth: 32}
	assert.Equal(t, 8.0, l.Time(0))
	assert.Equal(t, 8.0+4096.0/32, l.Time(4096)) // 8 + 128 = 136
	assert.Equal(t, 160+1.0/0.25, hw.Link{Latency: 160, Bandwidth: 0.25}.Time(1))
}

func TestDocName(t *testing.T) {
	assert.Equal(t, `hardware profile "x.yaml"`, hw.DocName("x.yaml"))
	assert.Equal(t, `hardware profile`, hw.DocName(""))
}

// TestChannels: DMA.Channels 0 (a profile built in code without a DMA) is
// the format's default, one channel.
func TestChannels(t *testing.T) {
	assert.Equal(t, 1, (&hw.Profile{}).Channels())
	assert.Equal(t, 3, (&hw.Profile{DMA: hw.DMA{Channels: 3}}).Channels())
}
