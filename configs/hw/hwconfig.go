// Package hwconfig (directory configs/hw) holds the YAML files of
// hieropt's built-in hardware profiles, embedded in the binary. Package
// profiles reads them (profiles.Names, profiles.Get); this package only
// embeds them, where the repository keeps them.
package hwconfig

import "embed"

// Files holds the built-in profiles, one NAME.yaml file each.
//
//go:embed *.yaml
var Files embed.FS
