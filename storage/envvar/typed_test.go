package envvar

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Each typed getter gives its default while the variable is unset, the
// value when it is good, and an error naming the variable when it is not.
func TestTypedGettersOwnTheirDefaults(t *testing.T) {
	t.Setenv(string(IdleTimeout), "")
	t.Setenv(string(MaxContext), "")
	t.Setenv(string(KeepAlive), "")
	if d, err := ModelIdleTimeout(); err != nil || d != 5*time.Minute {
		t.Errorf("idle timeout unset: %v, %v; want 5m", d, err)
	}
	if n, err := MaxContextTokens(); err != nil || n != 32768 {
		t.Errorf("max context unset: %v, %v; want 32768", n, err)
	}
	if d, err := OllamaKeepAlive(); err != nil || d != 10*time.Minute {
		t.Errorf("keep alive unset: %v, %v; want 10m", d, err)
	}

	t.Setenv(string(IdleTimeout), "90s")
	t.Setenv(string(MaxContext), "4096")
	if d, err := ModelIdleTimeout(); err != nil || d != 90*time.Second {
		t.Errorf("idle timeout 90s: %v, %v", d, err)
	}
	if n, err := MaxContextTokens(); err != nil || n != 4096 {
		t.Errorf("max context 4096: %v, %v", n, err)
	}
	for v, want := range map[string]time.Duration{"30m": 30 * time.Minute, "1h": time.Hour, "-1": -1, "-5m": -1} {
		t.Setenv(string(KeepAlive), v)
		if d, err := OllamaKeepAlive(); err != nil || d != want {
			t.Errorf("keep alive %s: %v, %v; want %v", v, d, err, want)
		}
	}

	bad := []struct {
		name Name
		v    string
		get  func() error
	}{
		{IdleTimeout, "soon", func() error { _, err := ModelIdleTimeout(); return err }},
		{IdleTimeout, "-1m", func() error { _, err := ModelIdleTimeout(); return err }},
		{MaxContext, "511", func() error { _, err := MaxContextTokens(); return err }},
		{MaxContext, "lots", func() error { _, err := MaxContextTokens(); return err }},
		{KeepAlive, "0", func() error { _, err := OllamaKeepAlive(); return err }},
		{KeepAlive, "10", func() error { _, err := OllamaKeepAlive(); return err }},
	}
	for _, b := range bad {
		t.Setenv(string(b.name), b.v)
		if err := b.get(); err == nil || !strings.Contains(err.Error(), string(b.name)+"=") {
			t.Errorf("%s=%s: %v, want an error naming it", b.name, b.v, err)
		}
		t.Setenv(string(b.name), "")
	}
}

// The table's default of a typed variable, and docs/configuration.md's,
// is the getter's.
func TestTableAndDocsQuoteTheGettersDefaults(t *testing.T) {
	want := map[Name]string{
		IdleTimeout: minutes(DefaultIdleTimeout), MaxContext: strconv.Itoa(DefaultMaxContext), KeepAlive: minutes(DefaultKeepAlive),
		OllamaHost: DefaultOllamaHost, OpenAIBase: DefaultOpenAIBaseURL,
	}
	if want[IdleTimeout] != "5m" || want[KeepAlive] != "10m" {
		t.Errorf("minutes writes %q and %q, want 5m and 10m", want[IdleTimeout], want[KeepAlive])
	}
	for _, v := range table {
		if w, ok := want[v.Name]; ok && !strings.Contains(v.Default, w) {
			t.Errorf("%s: default %q does not say %q", v.Name, v.Default, w)
		}
	}
	data, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		row := regexp.MustCompile("(?m)^\\| `" + string(name) + "` \\|.*$").FindString(string(data))
		if !strings.Contains(row, "`"+w+"`") {
			t.Errorf("docs/configuration.md's row of %s does not give its default `%s`: %q", name, w, row)
		}
	}
}
