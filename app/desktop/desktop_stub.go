//go:build !(desktop || dev || bindings)

package desktop

import (
	"context"

	"github.com/docent/docent/storage/fault"
)

// ErrNotBuilt is returned by a build without the desktop tags.
var ErrNotBuilt error = fault.Errorf(fault.Unavailable, "this docent was built without the desktop app: run `docent --serve` and open the URL it prints, or build with -tags desktop,production,webkit2_41")

// Run reports that this build has no desktop window.
func Run(ctx context.Context, opts Options) error { return ErrNotBuilt }
