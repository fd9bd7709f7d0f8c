package repack_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/repack"
	"github.com/hieropt/hieropt/state"
)

// BenchmarkRepack repacks the initializer's plan of generated mixed
// programs on the H100 profile: how repacking's time grows with the
// program's length.
func BenchmarkRepack(b *testing.B) {
	for _, ops := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("ops=%d", ops), func(b *testing.B) {
			prog, err := gen.Generate(gen.Options{Ops: ops, Mix: "mixed", Seed: 1})
			require.NoError(b, err)
			prof, err := hw.ReadFile(filepath.Join("..", "testdata", "hw", "seed003", "h100-sm.yaml")) // the seed model's
			require.NoError(b, err)
			p, err := state.Bind(prog, prof, "gen")
			require.NoError(b, err)
			lay := state.NewLayout(p.Blocks())
			_, err = actions.NewInitializerOrder(p, actions.KindOrder).Run(lay, 0)
			require.NoError(b, err)
			b.ResetTimer()
			for range b.N {
				_, err := repack.Run(context.Background(), p, lay, nil)
				require.NoError(b, err)
			}
		})
	}
}
