// Package baseline holds the reference points a plan is compared with:
// planning nothing (every block in the slowest level), a hardware cache
// (the "natural hit" prior art of seed 003: data lives in the slowest
// level and an LRU cache the size of the fastest level keeps what was used
// recently), seed 004's pipelined weight loading (Pipeline, under the
// timeline model) and a memory-space assignment in the manner of XLA's
// (MSA).
package baseline

import (
	"container/list"
	"fmt"

	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/state"
)

// NoPlanning returns a plan with every block in the slowest level it may
// use as far as FORMATS.md rule 7 goes (home): a constant in the slowest
// level, any other block in the slowest writable one; each level's blocks
// packed by greedy-by-size. It fails if a block is pinned elsewhere or the
// blocks do not fit.
func NoPlanning(p *state.Problem) (*state.Layout, error) {
	home := make([]int, p.Blocks())
	byLevel := map[int][]int{}
	var levels []int
	for b := 0; b < p.Blocks(); b++ {
		home[b] = slowestWritable(p, b)
		if pin := p.Pin(b); pin != state.NoPin && pin != home[b] {
			return nil, fmt.Errorf("block %q is pinned to %s, not the slowest level", p.Block(b).Name, p.HW.Levels[pin].Name)
		}
		if _, seen := byLevel[home[b]]; !seen {
			levels = append(levels, home[b])
		}
		byLevel[home[b]] = append(byLevel[home[b]], b)
	}
	lay := state.NewLayout(p.Blocks())
	all := arena.Intervals(p, 0)
	for _, l := range levels {
		ids := byLevel[l]
		iv := make([]arena.Interval, len(ids))
		for i, b := range ids {
			iv[i] = all[b]
			iv[i].Size, iv[i].Align = p.Foot(b, l), p.Align(b, l)
		}
		off := arena.Seed004{}.Offsets(iv)
		if peak := arena.Peak(iv, off); peak > p.HW.Levels[l].Capacity {
			return nil, fmt.Errorf("the blocks need %d B in %s, which holds %d B", peak, p.HW.Levels[l].Name, p.HW.Levels[l].Capacity)
		}
		for i, b := range ids {
			lay.SetFirst(b, state.Seg{From: int32(p.Block(b).First), Level: int32(l), Offset: off[i]})
		}
	}
	return lay, nil
}

// DescribeNoPlanning says where NoPlanning puts the blocks of p, for the
// plan document's planner field: "every block in SLOW"; where the slowest
// level is read-only, "constants in SLOW, the other blocks in W (SLOW is
// read-only)", W the slowest writable level ("every block in W (...)"
// without constants).
func DescribeNoPlanning(p *state.Problem) string {
	slow := p.Levels() - 1
	other, inSlow := slow, false
	for b := 0; b < p.Blocks(); b++ {
		if l := slowestWritable(p, b); l != slow {
			other = l
		} else {
			inSlow = true
		}
	}
	name := p.HW.Levels[slow].Name
	switch {
	case other == slow:
		return "every block in " + name
	case !inSlow:
		return fmt.Sprintf("every block in %s (%s is read-only)", p.HW.Levels[other].Name, name)
	}
	return fmt.Sprintf("constants in %s, the other blocks in %s (%s is read-only)", name, p.HW.Levels[other].Name, name)
}

// slowestWritable returns the slowest level block b may be placed in as
// far as FORMATS.md rule 7 goes: the slowest level for a constant, the
// slowest writable level for any other block (Bind makes sure there is
// one).
func slowestWritable(p *state.Problem, b int) int {
	l := p.Levels() - 1
	for l > 0 && !p.Writable(b, l) {
		l--
	}
	return l
}

// CacheResult is what the cache simulation measured.
type CacheResult struct {
	Cost         float64
	Hits, Misses int   // accesses
	Writebacks   int   // dirty blocks written back on eviction
	Bypassed     int   // accesses of blocks larger than the cache
	FastBytes    int64 // bytes read from or written to the fast level (hits, fills, writes, writebacks)
}

type line struct {
	b     int
	dirty bool
	size  int64
}

// Cache simulates the program with every block in the slowest level and
// a block-granular, write-back, write-allocate LRU cache with the fastest
// level's capacity in front of it, priced with the profile's latencies and
// bandwidths as in the seed003 model:
//
//   - a read hit costs out(fast); a read miss costs out(slow) to fetch the
//     block and in(fast) to fill the cache;
//   - a write costs in(fast) (the block is allocated in the cache if
//     absent) and makes the block dirty;
//   - evicting a dirty block costs out(fast) + in(slow). A cache does not
//     know when data is dead, so dead dirty blocks are written back too
//     when they are evicted;
//   - a block larger than the cache bypasses it: it is read from and
//     written to the slowest level.
//
// Within a timestep the reads come before the writes. Constants start in
// the slowest level (loaded before the run, free). A level that is
// read-only holds constants only (FORMATS.md rule 7): the other blocks
// live in the slowest writable level instead, and if the fastest level is
// read-only they bypass the cache.
func Cache(p *state.Problem) CacheResult {
	fast := &p.HW.Levels[0]
	var r CacheResult
	lru := list.New() // front = most recent
	where := map[int]*list.Element{}
	var used int64
	capacity := fast.Capacity
	evictFor := func(need int64) {
		for used+need > capacity && lru.Len() > 0 {
			e := lru.Back()
			ln := e.Value.(*line)
			if ln.dirty {
				slow := &p.HW.Levels[slowestWritable(p, ln.b)]
				r.Cost += fast.Out.Time(ln.size) + slow.In.Time(ln.size)
				r.Writebacks++
				r.FastBytes += ln.size
			}
			used -= ln.size
			delete(where, ln.b)
			lru.Remove(e)
		}
	}
	touch := func(b int, write bool) {
		d := p.Block(b).Size
		size := p.Foot(b, 0)
		slow := &p.HW.Levels[slowestWritable(p, b)]
		if size > capacity || !p.Writable(b, 0) {
			r.Bypassed++
			if write {
				r.Cost += slow.In.Time(d)
			} else {
				r.Cost += slow.Out.Time(d)
			}
			return
		}
		e, hit := where[b]
		switch {
		case hit:
			lru.MoveToFront(e)
		default:
			evictFor(size)
			e = lru.PushFront(&line{b: b, size: size})
			where[b] = e
			used += size
		}
		ln := e.Value.(*line)
		if write {
			r.Cost += fast.In.Time(d)
			r.FastBytes += d
			ln.dirty = true
			if hit {
				r.Hits++
			} else {
				r.Misses++
			}
			return
		}
		if hit {
			r.Hits++
			r.Cost += fast.Out.Time(d)
			r.FastBytes += d
			return
		}
		r.Misses++
		r.Cost += slow.Out.Time(d) + fast.In.Time(d)
		r.FastBytes += d
	}
	T := p.Prog.Timesteps()
	reads := make([][]int, T)
	writes := make([][]int, T)
	for b := 0; b < p.Blocks(); b++ {
		blk := p.Block(b)
		for _, t := range blk.Reads {
			reads[t] = append(reads[t], b)
		}
		for _, t := range blk.Writes {
			writes[t] = append(writes[t], b)
		}
	}
	for t := 0; t < T; t++ {
		for _, b := range reads[t] {
			touch(b, false)
		}
		for _, b := range writes[t] {
			touch(b, true)
		}
	}
	return r
}
