package app

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// The build's stamp, set by scripts/release with
// -ldflags "-X github.com/docent/docent/app.Version=1.2.3 -X ...Commit=... -X ...BuildDate=...".
// A build that sets none (go build, scripts/run) takes the commit from
// what Go records of the checkout (vcs.revision, vcs.modified), so that
// every binary says what it was built from. Read them through Build.
var (
	Version   = ""
	Commit    = ""
	BuildDate = ""
)

// BuildStamp is what this binary says it is.
type BuildStamp struct {
	// Version is "1.2.3" for a tagged release, else
	// "0.0.0-dev+COMMIT", with ".dirty" when the tree had changes.
	Version string
	// Commit is the full commit hash, "" when unknown.
	Commit string
	// Date is when it was built (RFC 3339), "" when unknown.
	Date string
}

// Build is this binary's stamp, worked out on first use: reading the
// build info at init would cost every process of docent, reader children
// included (main_test.go).
var Build = sync.OnceValue(func() BuildStamp {
	bi, _ := debug.ReadBuildInfo()
	v, c := stamp(Version, Commit, bi)
	return BuildStamp{Version: v, Commit: c, Date: BuildDate}
})

// devVersion is the version of a build from no commit Go knows of (go
// test, a build outside a git checkout).
const devVersion = "0.0.0-dev"

// stamp fills in the version and commit that -ldflags left empty from the
// build info's vcs settings: "0.0.0-dev+8101203abcde", ".dirty" added
// when the tree had local changes.
func stamp(version, commit string, bi *debug.BuildInfo) (string, string) {
	var modified bool
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if commit == "" {
					commit = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		return version, commit
	}
	version = devVersion
	if commit != "" {
		version += "+" + shortCommit(commit)
		if modified {
			version += ".dirty"
		}
	}
	return version, commit
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// VersionText is what `docent --version` prints: the version, the commit
// and the build date, a line each.
func VersionText() string {
	b := Build()
	commit, date := b.Commit, b.Date
	if commit == "" {
		commit = "unknown"
	}
	if date == "" {
		date = "unknown"
	}
	return fmt.Sprintf("docent %s\ncommit %s\nbuilt %s\n", b.Version, commit, date)
}
