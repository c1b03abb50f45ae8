package inbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/docent/docent/app/inbox"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/app/pipeline"
	"github.com/docent/docent/storage"
)

// BenchmarkStartTenThousand measures a first start over 10,000 small text
// files (every one stored through the real importer) and a second start,
// which must read none of them again (docs/benchmarks.md):
//
//	go test ./app/inbox -run '^$' -bench StartTenThousand -benchtime 1x
func BenchmarkStartTenThousand(b *testing.B) {
	for b.Loop() {
		folder, data := b.TempDir(), b.TempDir()
		for i := range 10_000 {
			p := filepath.Join(folder, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("note-%05d.txt", i))
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(fmt.Sprintf("Invoice %d\nTotal %d.00 EUR\n", i, i)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		db := openDB(b, data)
		imp := newImporter(db)
		cfg := inbox.Config{Folder: folder, Stability: 100 * time.Millisecond}
		start := time.Now()
		if err := (&inbox.Watcher{DB: db, Import: imp.Import, Config: cfg}).Once(context.Background()); err != nil {
			b.Fatal(err)
		}
		first := time.Since(start)
		again := newImporter(db)
		start = time.Now()
		if err := (&inbox.Watcher{DB: db, Import: again.Import, Config: cfg}).Once(context.Background()); err != nil {
			b.Fatal(err)
		}
		second := time.Since(start)
		if n := len(again.handed()); n != 0 {
			b.Fatalf("the second start read %d files again", n)
		}
		b.ReportMetric(first.Seconds(), "s/first-start")
		b.ReportMetric(second.Seconds(), "s/second-start")
		b.ReportMetric(float64(len(imp.handed())), "files-stored")
	}
}

// BenchmarkIdleWatcherCPU measures the CPU an idle watcher over 100
// folders uses in a minute (getrusage before and after):
//
//	go test ./app/inbox -run '^$' -bench IdleWatcherCPU -benchtime 1x
func BenchmarkIdleWatcherCPU(b *testing.B) {
	for b.Loop() {
		folder, data := b.TempDir(), b.TempDir()
		for i := range 100 {
			_ = os.MkdirAll(filepath.Join(folder, fmt.Sprintf("d%02d", i)), 0o755)
		}
		db := openDB(b, data)
		w := &inbox.Watcher{DB: db, Import: newImporter(db).Import, Config: inbox.Config{Folder: folder}}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		for !w.Status().Watching {
			time.Sleep(10 * time.Millisecond)
		}
		var before, after syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		time.Sleep(time.Minute) // the idle minute measured
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		cancel()
		<-done
		cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
		b.ReportMetric(float64(cpu.Microseconds())/1000, "ms-cpu/idle-minute")
	}
}

// BenchmarkDropToStored measures how long a corpus invoice dropped into a
// watched folder takes to be stored, through the pipeline as the server
// hands it on (inbox.Into), with the default stability delay of 5 s; the
// target is the delay + 1 s, so that the wait is the delay a person chose
// (docs/benchmarks.md):
//
//	go test ./app/inbox -run '^$' -bench DropToStored -benchtime 3x
func BenchmarkDropToStored(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(testcorpus.Dir(b), "invoice2data", "AmazonWebServices.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	folder, data := b.TempDir(), b.TempDir()
	db := openDB(b, data)
	w := &inbox.Watcher{DB: db, Import: inbox.Into(pipeline.New(pipeline.Config{DB: db}), db, ""), Config: inbox.Config{Folder: folder, Stability: inbox.DefaultStability}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	for !w.Status().Watching {
		time.Sleep(10 * time.Millisecond)
	}
	var total time.Duration
	i := 0
	for b.Loop() {
		i++
		// Each drop is new bytes, so it is stored, not a duplicate.
		body := append(append([]byte{}, src...), fmt.Sprintf("\n%% drop %d\n", i)...)
		path := filepath.Join(folder, fmt.Sprintf("drop-%d.pdf", i))
		start := time.Now()
		if err := os.WriteFile(path, body, 0o644); err != nil {
			b.Fatal(err)
		}
		for {
			f, err := db.GetInboxFile(ctx, path)
			if err == nil && f.Status == storage.InboxStored {
				break
			}
			time.Sleep(5 * time.Millisecond) // polling for the row, as a person watching the panel
		}
		total += time.Since(start)
	}
	b.ReportMetric(total.Seconds()/float64(i), "s/drop-to-stored")
	b.ReportMetric(inbox.DefaultStability.Seconds()+1, "s/target")
}
