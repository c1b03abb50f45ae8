//go:build unix

package storage

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkAskData is what answering a question over the data costs the
// store: describe_data, then one query_data aggregate over a schema's
// table (each document's current extraction, grouped and summed in
// SQLite), at 10,000 and 100,000 extracted documents. Besides the wall
// time it reports the process's CPU time per call (cpu-ms/op), which
// other processes' load on a shared machine does not inflate.
func BenchmarkAskData(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			db := mustOpen(b)
			seedExtractions(b, db, n)
			calls := 0
			start := cpuTime(b)
			for b.Loop() {
				d, err := db.DescribeData(ctx)
				if err != nil || len(d.Views) != 2 || d.Views[1].Rows != n {
					b.Fatalf("describe: %+v, %v; want the invoice view with %d rows", d.Views, err, n)
				}
				// Without the 2 s limit: on a shared machine, other
				// processes' load stretches the wall time, not the work.
				res, err := db.queryData(ctx, DataQuery{SQL: `SELECT seller, count(*), round(sum(total), 2) FROM invoice
					WHERE date >= '2025-03-01' GROUP BY seller ORDER BY 3 DESC`, MaxRows: 100}, time.Hour)
				if err != nil || res.RowCount != 6 {
					b.Fatalf("query: %+v, %v; want 6 sellers", res, err)
				}
				calls++
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(time.Millisecond)/float64(calls), "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
