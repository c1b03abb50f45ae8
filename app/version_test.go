package app

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestStamp(t *testing.T) {
	vcs := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "8101203abcdef0123456789"},
			{Key: "vcs.modified", Value: modified},
		}}
	}
	for _, tt := range []struct {
		name            string
		version, commit string
		bi              *debug.BuildInfo
		wantV, wantC    string
	}{
		{"clean checkout", "", "", vcs("false"), "0.0.0-dev+8101203abcde", "8101203abcdef0123456789"},
		{"dirty checkout", "", "", vcs("true"), "0.0.0-dev+8101203abcde.dirty", "8101203abcdef0123456789"},
		{"no vcs info", "", "", &debug.BuildInfo{}, "0.0.0-dev", ""},
		{"no build info", "", "", nil, "0.0.0-dev", ""},
		{"release stamp wins", "1.2.3", "feedface", vcs("true"), "1.2.3", "feedface"},
		{"commit from ldflags", "", "feedfacecafe0011", vcs("true"), "0.0.0-dev+feedfacecafe.dirty", "feedfacecafe0011"},
	} {
		v, c := stamp(tt.version, tt.commit, tt.bi)
		if v != tt.wantV || c != tt.wantC {
			t.Errorf("%s: stamp = %q, %q; want %q, %q", tt.name, v, c, tt.wantV, tt.wantC)
		}
	}
}

func TestVersionTextHasVersionCommitAndDate(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(VersionText(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "docent "+Build().Version) ||
		!strings.HasPrefix(lines[1], "commit ") || !strings.HasPrefix(lines[2], "built ") {
		t.Errorf("VersionText = %q, want docent VERSION / commit C / built DATE", lines)
	}
}
