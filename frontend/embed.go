// Package frontend holds the built web UI, embedded in the docent binary so that
// the desktop window and `docent --serve` show the same pages with nothing to
// install beside the binary.
package frontend

import (
	"embed"
	"io/fs"
)

// dist is produced by `npm run build` in this folder; the build and test
// scripts run it before compiling Go, because go:embed fails on a missing dir.
//
//go:embed all:dist
var dist embed.FS

// Assets returns the built UI with index.html at its root.
func Assets() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // unreachable: "dist" is a valid path in an embedded FS
	}
	return sub
}
