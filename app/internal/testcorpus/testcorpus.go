// Package testcorpus finds the shared corpus of real PDFs (../shared/corpus
// beside the repository) for tests and benchmarks, and reads its manifest.
// Tests skip with a message when the corpus is absent, except in CI
// (CI=true), where its absence is a failure: CI must test the real files.
package testcorpus

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Entry is one row of MANIFEST.tsv.
type Entry struct {
	File string // path relative to the corpus folder
	// Pages is the page count pdfinfo reports; 0 when poppler could not open the file.
	Pages int
	// PdftotextChars is how many characters poppler's pdftotext extracts.
	PdftotextChars int
	Category       string // invoice, receipt, scanned, encrypted, malformed, ...
	// GroundTruthVerified is the *.expected.verified.json file, if any.
	GroundTruthVerified string
	// GTValuesFound is "found/total" of ground-truth values in pdftotext's text.
	GTValuesFound string
	Password      string
	PopplerErrors string
	Notes         string
}

// Dir returns the corpus folder, skipping the test when it is absent (and
// failing it when CI=true).
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := find()
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("the shared corpus is required in CI: %v", err)
		}
		tb.Skipf("skipping: %v (put the shared corpus at ../shared/corpus beside the repository)", err)
	}
	return dir
}

func find() (string, error) {
	if dir := os.Getenv("DOCENT_CORPUS"); dir != "" {
		return dir, nil
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot locate the repository")
	}
	// This file is app/internal/testcorpus/testcorpus.go; the repository root
	// is three levels up, and the corpus sits beside the repository.
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	dir := filepath.Clean(filepath.Join(root, "..", "shared", "corpus"))
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.tsv")); err != nil {
		return "", fmt.Errorf("no corpus at %s", dir)
	}
	return dir, nil
}

// Manifest returns the corpus folder and its entries.
func Manifest(tb testing.TB) (string, []Entry) {
	tb.Helper()
	dir := Dir(tb)
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	entries, err := parse(f)
	if err != nil {
		tb.Fatalf("read MANIFEST.tsv: %v", err)
	}
	return dir, entries
}

func parse(r io.Reader) ([]Entry, error) {
	cr := csv.NewReader(r)
	cr.Comma = '\t'
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("empty manifest")
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	get := func(row []string, name string) string {
		i, ok := col[name]
		if !ok || i >= len(row) {
			return ""
		}
		return strings.TrimSpace(row[i])
	}
	var entries []Entry
	for _, row := range rows[1:] {
		if get(row, "file") == "" {
			continue
		}
		pages, _ := strconv.Atoi(get(row, "pages"))
		chars, _ := strconv.Atoi(get(row, "pdftotext_chars"))
		entries = append(entries, Entry{
			File:                get(row, "file"),
			Pages:               pages,
			PdftotextChars:      chars,
			Category:            get(row, "category"),
			GroundTruthVerified: get(row, "ground_truth_verified_file"),
			GTValuesFound:       get(row, "gt_values_found_in_text"),
			Password:            get(row, "password"),
			PopplerErrors:       get(row, "poppler_errors"),
			Notes:               get(row, "notes"),
		})
	}
	return entries, nil
}
