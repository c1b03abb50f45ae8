package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Every process of docent pays for the package init of the whole binary
// before main runs: each CLI command, and each reader child that reads PDFs
// for an import (app/ingest/pdftext). Docent's own packages keep that work
// small and do the rest when it is first needed: a regular expression
// compiled, a table built on first use. This test runs its own binary,
// which holds every package of docent, with GODEBUG=inittrace=1, and reads
// what each package's init allocated.
func TestDocentPackagesInitLittle(t *testing.T) {
	const most = 16 << 10 // bytes allocated by one package's init
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running the test binary with inittrace: %v\n%s", err, stderr.String())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/docent/docent/agent @101 ms, 0.72 ms clock, 97584 bytes, 861 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/docent/docent") {
			continue
		}
		seen++
		n, err := strconv.Atoi(f[7])
		if err != nil || f[8] != "bytes," {
			t.Fatalf("unexpected inittrace line %q", sc.Text())
		}
		if n > most {
			t.Errorf("package %s allocates %d bytes at init (%s allocations), want at most %d: make it lazy", f[1], n, f[9], most)
		}
	}
	if seen == 0 {
		t.Fatalf("no init of a docent package in the trace:\n%.2000s", stderr.String())
	}
}
