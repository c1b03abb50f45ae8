package pdftext

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/docent/docent/app/internal/testcorpus"
)

// TestPasswordProtectedFiles checks every corpus file that needs a password:
// with the manifest's password it reads, without one it asks for one, and
// with a wrong one it says the password is wrong.
func TestPasswordProtectedFiles(t *testing.T) {
	dir, entries := testcorpus.Manifest(t)
	var locked []testcorpus.Entry
	for _, e := range entries {
		if e.Password != "" {
			locked = append(locked, e)
		}
	}
	if len(locked) == 0 {
		t.Fatal("the manifest lists no file with a password")
	}
	for _, e := range locked {
		t.Run(filepath.Base(e.File), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, e.File))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()

			res, err := ExtractIsolated(ctx, data, Options{Password: e.Password}, Limits{})
			if err != nil {
				t.Fatalf("with password %q: %v", e.Password, err)
			}
			if !res.Decrypted || !hasText(res.Pages) {
				t.Errorf("with password: decrypted=%v, text=%v, want both", res.Decrypted, hasText(res.Pages))
			}
			if e.Pages > 0 && len(res.Pages) != e.Pages {
				t.Errorf("with password: %d pages, the manifest says %d", len(res.Pages), e.Pages)
			}

			_, err = ExtractIsolated(ctx, data, Options{}, Limits{})
			if !errors.Is(err, ErrPasswordRequired) || errors.Is(err, ErrWrongPassword) || err.Error() != "encrypted: password required" {
				t.Errorf("without password: got %v, want %q", err, ErrPasswordRequired)
			}

			_, err = ExtractIsolated(ctx, data, Options{Password: "not-" + e.Password}, Limits{})
			if !errors.Is(err, ErrWrongPassword) || err.Error() != "encrypted: wrong password" {
				t.Errorf("with a wrong password: got %v, want %q", err, ErrWrongPassword)
			}
			if !errors.Is(err, ErrPasswordRequired) {
				t.Errorf("a wrong password should also count as ErrPasswordRequired, got %v", err)
			}
		})
	}
}

// TestEmptyUserPasswordOpensWithoutPassword reads files encrypted with an
// owner password only (the user password is empty): they must read without
// any password, decrypted in pure Go.
func TestEmptyUserPasswordOpensWithoutPassword(t *testing.T) {
	dir := testcorpus.Dir(t)
	for _, file := range []string{"qpdf/V4-aes.pdf", "qpdf/V4.pdf", "qpdf/enc-XI-R6_V5_O_master.pdf", "qpdf/enc-R2_V1.pdf"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			res, err := ExtractIsolated(context.Background(), data, Options{}, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Decrypted {
				t.Errorf("Decrypted = false for an encrypted file")
			}
			if !hasText(res.Pages) {
				t.Errorf("no text in %d pages (warnings %q)", len(res.Pages), res.Warnings)
			}
		})
	}
}
