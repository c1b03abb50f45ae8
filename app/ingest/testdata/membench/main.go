// Command membench measures the peak memory of imports, for the figures in
// docs/benchmarks.md ("Import: peak memory"). It lives in testdata so that
// `go build ./...` and `go test ./...` leave it alone; run it with
//
//	go run ./app/ingest/testdata/membench gen-text latin1 64 /tmp/latin1-64m.txt
//	go run ./app/ingest/testdata/membench gen-text ascii 256 /tmp/ascii-256m.txt
//	go run ./app/ingest/testdata/membench gen-bomb 1024 /tmp/bomb-1.pdf
//	go run ./app/ingest/testdata/membench gen-pdf 4000 /tmp/text-4000.pdf
//	go run ./app/ingest/testdata/membench upload ./docent FILE...
//
// gen-text writes SIZE MiB of words in lines, without a form feed, in
// Latin-1 (not UTF-8) or ASCII. gen-bomb writes a one-page PDF whose content
// stream inflates to SIZE MiB of zeros from about a thousandth of that: the
// reader stops such a stream at 256 MiB, but only after holding that much.
// gen-pdf writes a text PDF of PAGES pages, each 48 lines of 10 words in
// Helvetica (480 words a page), compressed: the file is small, its text and
// its words are large.
// upload starts `DOCENT --serve` on a new data directory, uploads every
// FILE at once (one request each), and prints the peak resident memory of
// the server alone (VmHWM) and of the server with its reader children
// (the sum of VmRSS over the process tree, sampled every 10 ms).
package main

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: membench gen-text latin1|ascii MIB PATH | gen-bomb MIB PATH | gen-pdf PAGES PATH | upload DOCENT FILE...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen-text":
		err = genText(os.Args[2], mib(os.Args[3]), os.Args[4])
	case "gen-bomb":
		err = genBomb(mib(os.Args[2]), os.Args[3])
	case "gen-pdf":
		var pages int
		if pages, err = strconv.Atoi(os.Args[2]); err == nil {
			err = genPDF(pages, os.Args[3])
		}
	case "upload":
		err = upload(os.Args[2], os.Args[3:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "membench:", err)
		os.Exit(1)
	}
}

func mib(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(err)
	}
	return n << 20
}

func genText(kind string, size int64, path string) error {
	words := []string{"invoice", "total", "amount", "due", "date", "customer", "payment", "receipt", "order", "number"}
	if kind == "latin1" {
		words = []string{"Stra\xdfe", "K\xf6ln", "M\xfcnchen", "Gr\xfc\xdfe", "fa\xe7ade", "na\xefve", "r\xe9sum\xe9", "\xa3100", "Z\xfcrich", "caf\xe9"}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	x := uint32(1)
	for n, line := int64(0), 0; n < size; line++ {
		for range 12 {
			x = x*1664525 + 1013904223 // a fixed sequence: the same file every time
			k, _ := w.WriteString(words[x>>24%10] + " ")
			n += int64(k)
		}
		k, _ := fmt.Fprintf(w, "%d\n", line)
		n += int64(k)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Close()
}

func genBomb(decoded int64, path string) error {
	var stream bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&stream, zlib.BestCompression)
	zeros := make([]byte, 1<<20)
	for n := int64(0); n < decoded; n += int64(len(zeros)) {
		zw.Write(zeros)
	}
	zw.Close()
	objs := []string{
		"<</Type /Catalog /Pages 2 0 R>>",
		"<</Type /Pages /Kids [3 0 R] /Count 1>>",
		"<</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R>>",
		fmt.Sprintf("<</Length %d /Filter /FlateDecode>>\nstream\n%s\nendstream", stream.Len(), stream.Bytes()),
	}
	var b bytes.Buffer
	// The name goes into a comment so that bombs of the same size are
	// different files (the same bytes twice would be one document).
	fmt.Fprintf(&b, "%%PDF-1.4\n%% %s\n", filepath.Base(path))
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<</Size %d /Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func genPDF(pages int, path string) error {
	words := []string{"invoice", "total", "amount", "due", "date", "customer", "payment", "receipt", "order", "number"}
	objs := []string{"<</Type /Catalog /Pages 2 0 R>>", "", "<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>"}
	var kids []string
	x := uint32(1)
	for page := range pages {
		var content bytes.Buffer
		content.WriteString("BT /F1 10 Tf 12 TL 50 760 Td\n")
		for line := range 48 {
			content.WriteByte('(')
			for range 9 {
				x = x*1664525 + 1013904223 // a fixed sequence: the same file every time
				content.WriteString(words[x>>24%10] + " ")
			}
			fmt.Fprintf(&content, "p%dl%d) '\n", page+1, line+1)
		}
		content.WriteString("ET")
		var stream bytes.Buffer
		zw := zlib.NewWriter(&stream)
		zw.Write(content.Bytes())
		zw.Close()
		objs = append(objs, fmt.Sprintf("<</Length %d /Filter /FlateDecode>>\nstream\n%s\nendstream", stream.Len(), stream.Bytes()))
		objs = append(objs, fmt.Sprintf("<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources <</Font <</F1 3 0 R>>>>>>", len(objs)))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<</Type /Pages /Kids [%s] /Count %d>>", strings.Join(kids, " "), len(kids))
	var b bytes.Buffer
	fmt.Fprintf(&b, "%%PDF-1.4\n%% %s\n", filepath.Base(path))
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<</Size %d /Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func upload(docent string, files []string) error {
	dir, err := os.MkdirTemp("", "membench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(docent, "--data-dir", dir, "--serve", "--listen", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	url, err := serveURL(out)
	if err != nil {
		return err
	}
	go io.Copy(io.Discard, out)
	base, token, _ := strings.Cut(url, "/?token=")
	pid := cmd.Process.Pid
	fmt.Printf("server at start: %s\n", mb(rss(pid)))

	stop := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var max int64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if n := treeRSS(pid); n > max {
				max = n
			}
			select {
			case <-stop:
				peak <- max
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	for _, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := post(base+"/api/documents", token, f)
			if err != nil {
				res = err.Error()
			}
			fmt.Printf("%s: %s\n", filepath.Base(f), res)
		}()
	}
	wg.Wait()
	close(stop)
	fmt.Printf("%d uploads in %.1fs\n", len(files), time.Since(start).Seconds())
	fmt.Printf("peak, server alone (VmHWM): %s\n", mb(hwm(pid)))
	fmt.Printf("peak, server and children (sampled): %s\n", mb(<-peak))
	return nil
}

func serveURL(out io.Reader) (string, error) {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, url, ok := strings.Cut(sc.Text(), "serving on "); ok {
			return url, nil
		}
	}
	return "", fmt.Errorf("the server printed no URL")
}

func post(url, token, path string) (string, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile("file", filepath.Base(path))
		if err == nil {
			var f *os.File
			if f, err = os.Open(path); err == nil {
				_, err = io.Copy(part, f)
				f.Close()
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequest("POST", url, pr)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	s := string(body)
	// The status and error of the document are what matter here.
	var parts []string
	for _, key := range []string{`"status":"`, `"error":"`} {
		if _, rest, ok := strings.Cut(s, key); ok {
			v, _, _ := strings.Cut(rest, `"`)
			parts = append(parts, strings.Trim(key, `:"`)+"="+v)
		}
	}
	return fmt.Sprintf("HTTP %d %s", resp.StatusCode, strings.Join(parts, " ")), nil
}

// treeRSS is the resident memory of pid and all its descendants.
func treeRSS(pid int) int64 {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		if i := bytes.LastIndexByte(stat, ')'); i > 0 {
			f := strings.Fields(string(stat[i+1:]))
			if len(f) > 1 {
				parent[p], _ = strconv.Atoi(f[1])
			}
		}
	}
	var total int64
	for p := range parent {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				total += rss(p)
				break
			}
		}
	}
	return total
}

func rss(pid int) int64 { return statusKB(pid, "VmRSS:") }
func hwm(pid int) int64 { return statusKB(pid, "VmHWM:") }

func statusKB(pid int, key string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

func mb(n int64) string { return fmt.Sprintf("%d MB", n/1e6) }
