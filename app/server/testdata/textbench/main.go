// Command textbench measures the peak memory of `docent --serve` answering
// GET /api/documents/{id}/text (or /file) for the first document of a data
// directory, N requests at once:
//
//	go run ./app/server/testdata/textbench DOCENT DATA_DIR N [text|file]
//
// It starts DOCENT --serve on DATA_DIR (loopback, a free port), sends N
// requests at once, reads each answer to the end (printing its size, hash
// and last bytes, to compare) and prints the server's peak resident memory
// (VmHWM) and the time. Linux only (/proc).
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) != 4 && (len(os.Args) != 5 || (os.Args[4] != "text" && os.Args[4] != "file")) {
		fmt.Fprintln(os.Stderr, "usage: textbench DOCENT DATA_DIR N [text|file]")
		os.Exit(2)
	}
	route := "text"
	if len(os.Args) == 5 {
		route = os.Args[4]
	}
	n, err := strconv.Atoi(os.Args[3])
	if err == nil {
		err = run(os.Args[1], os.Args[2], n, route)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "textbench:", err)
		os.Exit(1)
	}
}

func run(docent, dir string, n int, route string) error {
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
	fmt.Printf("server at start: %d MB\n", statusKB(pid, "VmRSS:")/1000)

	var list struct {
		Documents []struct {
			ID    string `json:"id"`
			Name  string `json:"name"`
			Pages int    `json:"pages"`
		} `json:"documents"`
	}
	if err := getJSON(base+"/api/documents?limit=1", token, &list); err != nil {
		return err
	}
	if len(list.Documents) == 0 {
		return fmt.Errorf("no document in %s", dir)
	}
	doc := list.Documents[0]
	fmt.Printf("document %s (%s, %d pages)\n", doc.ID, doc.Name, doc.Pages)

	start := time.Now()
	var wg sync.WaitGroup
	results := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = readAll(base+"/api/documents/"+doc.ID+"/"+route, token)
		}()
	}
	wg.Wait()
	fmt.Printf("%d requests at once in %.1fs\n", n, time.Since(start).Seconds())
	for _, r := range results {
		fmt.Println(" ", r)
	}
	fmt.Printf("peak, server (VmHWM): %d MB\n", statusKB(pid, "VmHWM:")/1000)
	return nil
}

// readAll reads an answer to the end and says its status, size, hash and
// last bytes.
func readAll(url, token string) string {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer res.Body.Close()
	h := sha256.New()
	tail := &lastBytes{}
	size, err := io.Copy(io.MultiWriter(h, tail), res.Body)
	if err != nil {
		return fmt.Sprintf("HTTP %d, read: %v", res.StatusCode, err)
	}
	return fmt.Sprintf("HTTP %d, %d bytes, sha256 %.12x, ends %q", res.StatusCode, size, h.Sum(nil), tail.b)
}

// lastBytes keeps the last 16 bytes written to it.
type lastBytes struct{ b []byte }

func (l *lastBytes) Write(p []byte) (int, error) {
	l.b = append(l.b, p...)
	if len(l.b) > 16 {
		l.b = l.b[len(l.b)-16:]
	}
	return len(p), nil
}

func getJSON(url, token string, v any) error {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", url, res.StatusCode)
	}
	return json.NewDecoder(res.Body).Decode(v)
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

func statusKB(pid int, key string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}
