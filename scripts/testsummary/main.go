// Command testsummary is scripts/test's bookkeeper; it is not part of
// Docent. It keeps a tab-separated summary file, one fact a line:
//
//	time  PHASE MILLISECONDS EXIT_STATUS   (scripts/test, per command)
//	count PHASE PASSED FAILED SKIPPED
//	skip  PHASE NAME WHY
//	fail  PHASE NAME
//
// and has two modes:
//
//	go test -json ... | testsummary go FILE PHASE [MODULE]
//
// shows the run as it goes (each package's ok/FAIL line, a failing
// test's whole output, build errors) and adds the phase's counts, skipped
// tests with their skip message and failed tests to FILE; it exits 1 when a
// test or package failed. Subtests count as tests; a parent test that
// failed only because a subtest did is not counted again. MODULE is
// trimmed from package names.
//
//	testsummary report FILE
//
// prints a table per phase (in the order they ran) with the counts and wall
// time, the skipped and failed tests, and last a line "N passed, N failed,
// N skipped"; it exits 1 when anything failed. A phase whose command
// exited non-zero without a failure counted counts as one failure.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) >= 4 && os.Args[1] == "go" {
		module := ""
		if len(os.Args) >= 5 {
			module = os.Args[4]
		}
		os.Exit(goMode(os.Stdin, os.Stdout, os.Args[2], os.Args[3], module))
	}
	if len(os.Args) == 3 && os.Args[1] == "report" {
		os.Exit(report(os.Stdout, os.Args[2]))
	}
	fmt.Fprintln(os.Stderr, "usage: go test -json ... | testsummary go FILE PHASE [MODULE]\n       testsummary report FILE")
	os.Exit(2)
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

type pkgState struct {
	out      []string            // package-level output
	tests    map[string][]string // output of tests still running
	order    []string            // tests in the order they started
	failed   map[string]bool     // tests that failed
	nfailed  int                 // failures counted in this package
	finished bool
}

var marker = regexp.MustCompile(`^\s*=== (RUN|PAUSE|CONT|NAME)\b`)

func goMode(in io.Reader, out io.Writer, file, phase, module string) int {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 2
	}
	defer f.Close()
	w := bufio.NewWriter(out)
	defer w.Flush()
	short := func(pkg string) string {
		if module != "" && pkg == module {
			return "."
		}
		return strings.TrimPrefix(pkg, module+"/")
	}
	var passed, failed, skipped int
	var facts []string
	fail := func(name string) {
		failed++
		facts = append(facts, fmt.Sprintf("fail\t%s\t%s", phase, clean(name)))
	}
	pkgs := map[string]*pkgState{}
	get := func(p string) *pkgState {
		s := pkgs[p]
		if s == nil {
			s = &pkgState{tests: map[string][]string{}, failed: map[string]bool{}}
			pkgs[p] = s
		}
		return s
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line) // not JSON: pass it on
			w.Flush()
			continue
		}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "build-fail" || e.Action == "start":
		case e.Test != "":
			s := get(e.Package)
			switch e.Action {
			case "run":
				if _, ok := s.tests[e.Test]; !ok {
					s.order = append(s.order, e.Test)
				}
				s.tests[e.Test] = s.tests[e.Test][:0:0]
			case "output":
				s.tests[e.Test] = append(s.tests[e.Test], e.Output)
			case "pass":
				passed++
				delete(s.tests, e.Test)
			case "skip":
				skipped++
				facts = append(facts, fmt.Sprintf("skip\t%s\t%s %s\t%s", phase, short(e.Package), e.Test, clean(skipMessage(s.tests[e.Test]))))
				delete(s.tests, e.Test)
			case "fail":
				child := failedChild(s.failed, e.Test)
				printTest(w, "FAIL", short(e.Package), e.Test, s.tests[e.Test], child)
				delete(s.tests, e.Test)
				s.failed[e.Test] = true
				if !child {
					s.nfailed++
					fail(short(e.Package) + " " + e.Test)
				}
			}
		default: // package level
			s := get(e.Package)
			switch e.Action {
			case "output":
				s.out = append(s.out, e.Output)
			case "pass", "skip":
				s.finished = true
				for _, l := range s.out {
					if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "?") {
						fmt.Fprint(w, l)
					}
				}
			case "fail":
				s.finished = true
				// Tests still running when the package failed: a timeout,
				// a crash, os.Exit.
				for _, t := range s.order {
					if lines, ok := s.tests[t]; ok {
						quiet := failedChild(s.failed, t) || runningChild(s.tests, t)
						printTest(w, "DID NOT FINISH", short(e.Package), t, lines, quiet)
						if !quiet {
							s.nfailed++
							fail(short(e.Package) + " " + t + " (did not finish)")
						}
						s.failed[t] = true
					}
				}
				for _, l := range s.out {
					if !marker.MatchString(l) {
						fmt.Fprint(w, l)
					}
				}
				if s.nfailed == 0 {
					why := "package failed"
					if e.FailedBuild != "" {
						why = "build failed"
					}
					fail(short(e.Package) + " (" + why + ")")
				}
			}
			w.Flush()
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary: reading go test -json:", err)
		fail("(the go test output could not be read)")
	}
	// Packages that never reported an end: go test was killed.
	var unfinished []string
	for p, s := range pkgs {
		if !s.finished {
			unfinished = append(unfinished, p)
		}
	}
	sort.Strings(unfinished)
	for _, p := range unfinished {
		fail(short(p) + " (did not finish)")
	}
	fmt.Fprintf(f, "count\t%s\t%d\t%d\t%d\n", phase, passed, failed, skipped)
	for _, l := range facts {
		fmt.Fprintln(f, l)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// failedChild reports whether a subtest of test failed.
func failedChild(failed map[string]bool, test string) bool {
	for t := range failed {
		if strings.HasPrefix(t, test+"/") {
			return true
		}
	}
	return false
}

func runningChild(running map[string][]string, test string) bool {
	for t := range running {
		if strings.HasPrefix(t, test+"/") {
			return true
		}
	}
	return false
}

// printTest shows a failed test's output under a header naming its
// package. A parent whose subtest failed is left out when it printed
// nothing of its own.
func printTest(w io.Writer, what, pkg, test string, lines []string, quiet bool) {
	var own []string
	for _, l := range lines {
		if !marker.MatchString(l) && !strings.HasPrefix(strings.TrimSpace(l), "--- FAIL: ") {
			own = append(own, l)
		}
	}
	if quiet && len(own) == 0 {
		return
	}
	fmt.Fprintf(w, "--- %s: %s %s\n", what, pkg, test)
	for _, l := range own {
		fmt.Fprint(w, l)
	}
}

var logLine = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: ?(.*)$`)

// skipMessage is the last message a skipped test logged: t.Skip's.
func skipMessage(lines []string) string {
	var msg []string
	for _, l := range lines {
		l = strings.TrimRight(l, "\n")
		t := strings.TrimSpace(l)
		switch {
		case t == "" || marker.MatchString(l) || strings.HasPrefix(t, "--- SKIP"):
		case logLine.MatchString(l):
			msg = []string{logLine.FindStringSubmatch(l)[1]}
		default:
			msg = append(msg, t)
		}
	}
	if len(msg) == 0 {
		return "(no message)"
	}
	return strings.Join(msg, " ")
}

func clean(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

type phaseSum struct {
	name                    string
	passed, failed, skipped int
	ms                      int64
	rc                      int
	skips, fails            []string
}

func report(out io.Writer, file string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 2
	}
	var phases []*phaseSum
	byName := map[string]*phaseSum{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 3 {
			continue
		}
		p := byName[f[1]]
		if p == nil {
			p = &phaseSum{name: f[1]}
			byName[f[1]] = p
			phases = append(phases, p)
		}
		n := func(i int) int {
			if i >= len(f) {
				return 0
			}
			v, _ := strconv.Atoi(f[i])
			return v
		}
		switch f[0] {
		case "time":
			p.ms += int64(n(2))
			if rc := n(3); rc != 0 && p.rc == 0 {
				p.rc = rc
			}
		case "count":
			p.passed += n(2)
			p.failed += n(3)
			p.skipped += n(4)
		case "skip":
			why := ""
			if len(f) > 3 {
				why = f[3]
			}
			p.skips = append(p.skips, f[2]+": "+why)
		case "fail":
			p.fails = append(p.fails, f[2])
		}
	}
	var total phaseSum
	for _, p := range phases {
		if p.rc != 0 && p.failed == 0 {
			p.failed = 1
			p.fails = append(p.fails, fmt.Sprintf("exited with status %d (see its output above)", p.rc))
		}
		total.passed += p.passed
		total.failed += p.failed
		total.skipped += p.skipped
		total.ms += p.ms
	}
	width := len("total")
	for _, p := range phases {
		width = max(width, len(p.name))
	}
	fmt.Fprintf(out, "\n==> summary\n")
	row := func(name string, passed, failed, skipped any, t string, bad bool) {
		status := ""
		if bad {
			status = "  FAILED"
		}
		fmt.Fprintf(out, "  %-*s %7v %7v %8v %9s%s\n", width, name, passed, failed, skipped, t, status)
	}
	row("phase", "passed", "failed", "skipped", "time", false)
	for _, p := range phases {
		row(p.name, p.passed, p.failed, p.skipped, dur(p.ms), p.failed > 0)
	}
	row("total", total.passed, total.failed, total.skipped, dur(total.ms), total.failed > 0)
	list := func(title string, n int, items func(*phaseSum) []string) {
		if n == 0 {
			return
		}
		fmt.Fprintf(out, "\n%s:\n", title)
		for _, p := range phases {
			for _, s := range items(p) {
				fmt.Fprintf(out, "  [%s] %s\n", p.name, s)
			}
		}
	}
	list("skipped", total.skipped, func(p *phaseSum) []string { return p.skips })
	list("FAILED", total.failed, func(p *phaseSum) []string { return p.fails })
	fmt.Fprintf(out, "\n%d passed, %d failed, %d skipped\n", total.passed, total.failed, total.skipped)
	if total.failed > 0 {
		return 1
	}
	return 0
}

func dur(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
