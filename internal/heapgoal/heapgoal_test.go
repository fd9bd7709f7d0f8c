package heapgoal

import (
	"os"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPercent(t *testing.T) {
	assert.Equal(t, 1500, Percent(4<<20, 64<<20))  // goal 4 MB * 16 = 64 MB
	assert.Equal(t, 100, Percent(32<<20, 64<<20))  // twice the live heap reaches the floor
	assert.Equal(t, 100, Percent(500<<20, 64<<20)) // large heap: GOGC's default
	assert.Equal(t, 10000, Percent(1<<10, 64<<20)) // capped
	assert.Equal(t, 100, Percent(0, 64<<20))       // nothing measured
	assert.Equal(t, 300, Percent(16<<20, 64<<20))  // 16 MB * 4 = 64 MB
}

func gogc() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestStart checks that the GC percentage follows the live heap after GC
// cycles: raised while it is small, back to 100 while it is large. The
// test's process is small, so the first part always applies.
func TestStart(t *testing.T) {
	if _, set := lookupGOGC(); set {
		t.Skip("GOGC is set: Start leaves it alone")
	}
	Start(256 << 20)
	runtime.GC()
	require.Eventually(t, func() bool { return gogc() > 1000 }, 10*time.Second, time.Millisecond,
		"a small live heap should raise GOGC; it is %d", gogc())
	// A live heap of 200 MB: twice it is over the floor.
	big := make([]byte, 200<<20)
	runtime.GC()
	require.Eventually(t, func() bool { runtime.GC(); return gogc() == 100 }, 10*time.Second, 10*time.Millisecond,
		"a large live heap should bring GOGC back to 100; it is %d", gogc())
	runtime.KeepAlive(big) // dead from here on
	runtime.GC()
	require.Eventually(t, func() bool { runtime.GC(); return gogc() > 100 }, 10*time.Second, 10*time.Millisecond)
}

func lookupGOGC() (string, bool) { return os.LookupEnv("GOGC") }
