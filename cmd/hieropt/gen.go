package main

import (
	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/gen"
)

type genOptions struct {
	Ops    int    `mapstructure:"ops"`
	Seed   uint64 `mapstructure:"seed"`
	Mix    string `mapstructure:"mix"`
	DType  int    `mapstructure:"dtype-bytes"`
	Name   string `mapstructure:"name"`
	Output string `mapstructure:"output"`
}

func newGenCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gen --ops N [--mix cnn|transformer|mixed] [--seed S] -o workload.json",
		Short: "Generate a synthetic workload of any length with real-network shapes",
		Long: `gen writes a synthetic workload of exactly --ops ops, for scaling experiments:
ResNet-50-style bottleneck stages (with im2col scratch for 3x3 convs and
residual skips), GPT-2-small-style transformer layers (attention spelled out,
residual adds), or both alternating (mixed). Weights are constants loaded at
timestep 0; activations are reusable where their last reader is elementwise,
as in the traced networks. The same options always give the same file.

Note that weights accumulate with length (every constant is alive from
timestep 0 to its use): 1,000 mixed ops hold about 540 MB of weights at int8,
100,000 ops tens of GB, so long programs fit only large hierarchies such as
h100-sm.`,
		Example: `  hieropt gen --ops 1000 -o gen-1k.json
  hieropt gen --ops 100000 --mix cnn --seed 7 -o gen-100k.json`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	f.Int("ops", 1000, "number of ops (timesteps)")
	f.Uint64("seed", 1, "random seed: stage lengths and sizes")
	f.String("mix", gen.MixMixed, "stages: cnn, transformer or mixed")
	f.Int("dtype-bytes", 1, "bytes per element (1 = int8, 4 = fp32)")
	f.String("name", "", "workload name (default gen-<mix>-<ops>-<seed>)")
	f.StringP("output", "o", "-", "write the workload here (- for stdout)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o genOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.Ops < 1 {
			return usageErrorf("--ops %d: want at least 1", o.Ops)
		}
		switch o.Mix {
		case gen.MixCNN, gen.MixTransformer, gen.MixMixed:
		default:
			return usageErrorf("--mix %q: want %s, %s or %s", o.Mix, gen.MixCNN, gen.MixTransformer, gen.MixMixed)
		}
		if o.DType < 1 || o.DType > 16 {
			return usageErrorf("--dtype-bytes %d: want 1 to 16", o.DType)
		}
		prog, err := gen.Generate(gen.Options{Ops: o.Ops, Seed: o.Seed, Mix: o.Mix, DType: o.DType, Name: o.Name})
		if err != nil {
			return usageErrorf("%v", err)
		}
		return a.writeOutput(o.Output, prog.Write)
	}
	return cmd
}
