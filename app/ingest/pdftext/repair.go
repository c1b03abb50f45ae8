package pdftext

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// errPdfcpuPassword: pdfcpu could not open the file with the password given
// (or with the empty one).
var errPdfcpuPassword = errors.New("pdfcpu: password does not open the file")

var disableConfig sync.Once

// rewriteWithPdfcpu reads data with pdfcpu in relaxed mode (which rebuilds a
// broken cross-reference table and understands every standard filter and
// encryption, AES-256 included), decrypts it with password (empty or given),
// decodes the streams ledongthuc cannot, and writes a plain PDF that
// ledongthuc reads. It reports whether the file was encrypted.
func rewriteWithPdfcpu(ctx context.Context, data []byte, password string) (out []byte, encrypted bool, err error) {
	defer func() {
		// pdfcpu catches its own panics in reading, not all of them in
		// writing; either way this attempt failed, others may not.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("pdfcpu failed: %v", r)
		}
	}()
	// Without this pdfcpu writes a config.yml into the user's config folder
	// the first time a configuration is made. (This package uses pdfcpu's
	// core package, not its api package: the api links a form package whose
	// dependency spends 20 ms building tables at start, in every child.)
	disableConfig.Do(func() { model.ConfigPath = "disable" })
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	conf.UserPW, conf.OwnerPW = password, password
	conf.WriteObjectStream, conf.WriteXRefStream = false, false
	pc, err := pdfcpu.Read(bytes.NewReader(data), conf)
	if err != nil {
		if errors.Is(err, pdfcpu.ErrWrongPassword) {
			return nil, true, errPdfcpuPassword
		}
		return nil, false, fmt.Errorf("pdfcpu: %w", err)
	}
	encrypted = pc.XRefTable.Encrypt != nil || pc.XRefTable.E != nil
	if encrypted {
		pc.Cmd = model.DECRYPT
	}
	if err := ctx.Err(); err != nil {
		return nil, encrypted, err
	}
	decodeForLedongthuc(pc)
	var buf bytes.Buffer
	pc.Write.Writer = bufio.NewWriter(&buf)
	if err := pdfcpu.WriteContext(pc); err != nil {
		return nil, encrypted, fmt.Errorf("pdfcpu write: %w", err)
	}
	if err := pc.Write.Flush(); err != nil {
		return nil, encrypted, fmt.Errorf("pdfcpu write: %w", err)
	}
	return buf.Bytes(), encrypted, nil
}

// decodeForLedongthuc stores unfiltered every stream whose filters
// ledongthuc cannot undo (LZW, run length, ASCIIHex, Flate with a TIFF or
// non-Up PNG predictor), except images, which are never read for text.
func decodeForLedongthuc(pc *model.Context) {
	for _, e := range pc.XRefTable.Table {
		if e == nil || e.Free {
			continue
		}
		sd, ok := e.Object.(types.StreamDict)
		if !ok || len(sd.FilterPipeline) == 0 || !needsDecoding(sd.FilterPipeline) {
			continue
		}
		if sd.Decode() != nil || sd.Content == nil {
			continue
		}
		sd.Raw = sd.Content
		sd.FilterPipeline = nil
		sd.Delete("Filter")
		sd.Delete("DecodeParms")
		n := int64(len(sd.Raw))
		sd.StreamLength = &n
		sd.Update("Length", types.Integer(n))
		e.Object = sd
	}
}

func needsDecoding(filters []types.PDFFilter) bool {
	needs := false
	for _, f := range filters {
		switch f.Name {
		case "DCTDecode", "JPXDecode", "CCITTFaxDecode", "JBIG2Decode":
			return false
		case "ASCII85Decode":
		case "FlateDecode":
			if p := f.DecodeParms; p != nil {
				if pred := p.IntEntry("Predictor"); pred != nil && *pred != 1 && *pred != 12 {
					needs = true
				}
			}
		default:
			needs = true
		}
	}
	return needs
}

// normaliseHeader returns data with a header ledongthuc accepts:
// "%PDF-1.x" and an end of line at byte 8. PDF 2.0 files and headers with
// junk before them or after the version are otherwise read fine. The first
// nine bytes are overwritten, never shifted, so every offset stays right.
func normaliseHeader(data []byte) ([]byte, bool) {
	if len(data) < 9 {
		return data, false
	}
	ok := bytes.HasPrefix(data, []byte("%PDF-1.")) && data[7] >= '0' && data[7] <= '7' && (data[8] == '\r' || data[8] == '\n')
	if ok {
		return data, false
	}
	out := bytes.Clone(data)
	copy(out, "%PDF-1.7\n")
	return out, true
}

// The expressions are compiled when first used, not at package init: init
// runs in every docent process, each reader child included, and most of
// these serve only the repair of a broken file.
var (
	startxrefRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`startxref\s+(\d+)`) })
	prevRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Prev\s+(\d+)`) })
)

// xrefChainLoops reports whether following /Prev from the last startxref
// comes back to a section already read. ledongthuc follows such a chain
// forever (qpdf's append-xref-loop.pdf), so the file goes to repair instead.
func xrefChainLoops(data []byte) bool {
	tail := data[max(0, len(data)-2048):]
	ms := startxrefRe().FindAllSubmatch(tail, -1)
	if len(ms) == 0 {
		return false
	}
	off, err := strconv.ParseInt(string(ms[len(ms)-1][1]), 10, 64)
	if err != nil {
		return false
	}
	seen := map[int64]bool{}
	for range 10_000 {
		if off <= 0 || off >= int64(len(data)) {
			return false
		}
		if seen[off] {
			return true
		}
		seen[off] = true
		rest := data[off:]
		var dict []byte
		if bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte("xref")) {
			t := bytes.Index(rest, []byte("trailer"))
			if t < 0 {
				return false
			}
			dict = rest[t:min(len(rest), t+4096)]
			if e := bytes.Index(dict, []byte("startxref")); e > 0 {
				dict = dict[:e]
			}
		} else {
			dict = rest[:min(len(rest), 4096)]
			if e := bytes.Index(dict, []byte("stream")); e > 0 {
				dict = dict[:e]
			}
		}
		m := prevRe().FindSubmatch(dict)
		if m == nil {
			return false
		}
		if off, err = strconv.ParseInt(string(m[1]), 10, 64); err != nil {
			return false
		}
	}
	return true
}

var (
	objRe     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\r\n\s])(\d{1,10})\s+(\d{1,5})\s+obj\b`) })
	refRe     = `\s+(\d+)\s+(\d+)\s+R`
	rootRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Root` + refRe) })
	infoRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Info` + refRe) })
	encryptRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Encrypt` + refRe) })
	idRe      = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`/ID\s*\[\s*(<[0-9A-Fa-f\s]*>|\([^)]*\))\s*(<[0-9A-Fa-f\s]*>|\([^)]*\))\s*\]`)
	})
	catalogRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Type\s*/Catalog\b`) })
	objStmRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Type\s*/ObjStm\b`) })
	firstRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/First\s+(\d+)`) })
	nRe       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/N\s+(\d+)`) })
	flateRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Filter\s*(?:\[\s*)?/FlateDecode`) })
)

// reconstructXref rebuilds the cross-reference data of a file whose own is
// missing or wrong, the way viewers do: it finds every "N G obj" in the
// bytes, the objects packed in object streams, and the trailer's /Root,
// /Info, /Encrypt and /ID, and appends a fresh xref stream that points at
// them. The original bytes are left in place, so offsets stay valid.
func reconstructXref(data []byte) ([]byte, error) {
	type entry struct {
		typ    byte // 1: at offset, 2: in object stream
		offset int64
		gen    int
		stream int // object stream number for type 2
		index  int
	}
	entries := map[int]entry{}
	var rootID, catalogID int
	var catalogGen int
	for _, m := range objRe().FindAllSubmatchIndex(data, -1) {
		id, err1 := strconv.Atoi(string(data[m[2]:m[3]]))
		gen, err2 := strconv.Atoi(string(data[m[4]:m[5]]))
		if err1 != nil || err2 != nil || id <= 0 || id > 10_000_000 {
			continue
		}
		entries[id] = entry{typ: 1, offset: int64(m[2]), gen: gen}
		head := data[m[1]:min(len(data), m[1]+1024)]
		if e := bytes.Index(head, []byte("endobj")); e >= 0 {
			head = head[:e]
		}
		if catalogRe().Match(head) {
			catalogID, catalogGen = id, gen
		}
	}
	// Objects inside object streams (only Flate-compressed ones, the kind
	// every writer makes).
	for id, e := range entries {
		if e.typ != 1 {
			continue
		}
		members, texts := objStmMembers(data, e.offset)
		for i, member := range members {
			if old, ok := entries[member]; !ok || old.typ == 2 {
				entries[member] = entry{typ: 2, stream: id, index: i}
			}
			if catalogID == 0 && catalogRe().Match(texts[i]) {
				catalogID, catalogGen = member, 0
			}
		}
	}
	if len(entries) == 0 {
		return nil, errors.New("no objects found")
	}

	// The trailer: the last one that names a root wins.
	trailer := []byte{}
	for _, kw := range [][]byte{[]byte("trailer"), []byte("/XRef")} {
		for i := len(data); i > 0; {
			j := bytes.LastIndex(data[:i], kw)
			if j < 0 {
				break
			}
			cand := data[j:min(len(data), j+4096)]
			if rootRe().Match(cand) {
				trailer = cand
				break
			}
			i = j
		}
		if len(trailer) > 0 {
			break
		}
	}
	var dict bytes.Buffer
	if m := rootRe().FindSubmatch(trailer); m != nil {
		rootID, _ = strconv.Atoi(string(m[1]))
		if _, ok := entries[rootID]; ok {
			fmt.Fprintf(&dict, "/Root %s %s R", m[1], m[2])
		} else {
			rootID = 0
		}
	}
	if rootID == 0 {
		if catalogID == 0 {
			return nil, errors.New("no document catalog found")
		}
		fmt.Fprintf(&dict, "/Root %d %d R", catalogID, catalogGen)
	}
	if m := infoRe().FindSubmatch(trailer); m != nil {
		fmt.Fprintf(&dict, " /Info %s %s R", m[1], m[2])
	}
	if m := encryptRe().FindSubmatch(trailer); m != nil {
		fmt.Fprintf(&dict, " /Encrypt %s %s R", m[1], m[2])
	}
	if m := idRe().FindSubmatch(trailer); m != nil {
		fmt.Fprintf(&dict, " /ID [%s %s]", m[1], m[2])
	}

	ids := make([]int, 0, len(entries))
	for id := range entries {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	self := ids[len(ids)-1] + 1
	out := bytes.NewBuffer(bytes.Clone(data))
	out.WriteString("\n")
	selfOff := out.Len()
	// Rows of the xref stream: type (1 byte), offset or stream (4), gen or index (2).
	rows := make([]byte, 0, 7*(self+1))
	row := func(typ byte, f2 uint32, f3 uint16) {
		rows = append(rows, typ)
		rows = binary.BigEndian.AppendUint32(rows, f2)
		rows = binary.BigEndian.AppendUint16(rows, f3)
	}
	next := 0
	for _, id := range ids {
		for ; next < id; next++ {
			row(0, 0, 0)
		}
		e := entries[id]
		if e.typ == 1 {
			row(1, uint32(e.offset), uint16(e.gen))
		} else {
			row(2, uint32(e.stream), uint16(e.index))
		}
		next = id + 1
	}
	row(1, uint32(selfOff), 0)
	fmt.Fprintf(out, "%d 0 obj\n<</Type /XRef /Size %d /W [1 4 2] %s /Length %d>>\nstream\n", self, self+1, dict.String(), len(rows))
	out.Write(rows)
	fmt.Fprintf(out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", selfOff)
	return out.Bytes(), nil
}

// objStmMembers lists the objects packed in the object stream that starts
// at off (nil if there is none there), with the text of each, so that a
// catalog packed in one can be found.
func objStmMembers(data []byte, off int64) (ids []int, texts [][]byte) {
	rest := data[off:]
	s := bytes.Index(rest[:min(len(rest), 4096)], []byte("stream"))
	if s < 0 {
		return nil, nil
	}
	head := rest[:s]
	if !objStmRe().Match(head) || bytes.Contains(head, []byte("/Filter")) && !flateRe().Match(head) {
		return nil, nil
	}
	n := submatchInt(nRe(), head)
	first := submatchInt(firstRe(), head)
	if n <= 0 || n > 1_000_000 || first <= 0 {
		return nil, nil
	}
	body := bytes.TrimLeft(rest[s+len("stream"):], "\r\n")
	if flateRe().Match(head) {
		zr, err := zlib.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, nil
		}
		body, _ = io.ReadAll(io.LimitReader(zr, 64<<20))
	} else if e := bytes.Index(body, []byte("endstream")); e >= 0 {
		body = body[:e]
	}
	if len(body) < first {
		return nil, nil
	}
	fields := bytes.Fields(body[:first])
	var offs []int
	for i := 0; i+1 < len(fields) && len(ids) < n; i += 2 {
		id, err1 := strconv.Atoi(string(fields[i]))
		o, err2 := strconv.Atoi(string(fields[i+1]))
		if err1 != nil || err2 != nil || o < 0 || first+o > len(body) {
			break
		}
		ids = append(ids, id)
		offs = append(offs, first+o)
	}
	for i, o := range offs {
		end := len(body)
		if i+1 < len(offs) && offs[i+1] > o {
			end = offs[i+1]
		}
		texts = append(texts, body[o:min(end, o+1024)])
	}
	return ids, texts
}

func submatchInt(re *regexp.Regexp, b []byte) int {
	m := re.FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}
