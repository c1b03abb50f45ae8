package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"hash/crc32"
	"io"

	"github.com/docent/docent/storage"
)

// A file is read more than once and never held in memory whole: a first
// pass hashes it (the duplicate check needs the digest before anything is
// stored) and tells UTF-8 from Latin-1; later passes store the bytes, send
// a PDF to its reader or decode a text's pages. Each later pass checks that
// it read what the first did, so that a file changed in between is not
// stored half old, half new: the store checks the pass that stores the
// bytes against the first pass's size and SHA-256 (storage.FileSource),
// recheck the others against its CRC. Both fail with
// storage.ErrFileChanged.

// firstPass is what the first read of a file found.
type firstPass struct {
	sha256 string // hex
	crc    uint32 // see newChecksum
	utf8   bool   // the bytes are UTF-8 (which says nothing of a PDF)
}

// survey reads the file once for its digest, its check sum and whether it
// is UTF-8.
func survey(r io.Reader) (firstPass, error) {
	sha, crc, check := sha256.New(), newChecksum(), &utf8Check{}
	if _, err := io.CopyBuffer(io.MultiWriter(sha, crc, check), r, make([]byte, 256<<10)); err != nil {
		return firstPass{}, err
	}
	return firstPass{sha256: hex.EncodeToString(sha.Sum(nil)), crc: crc.Sum32(), utf8: check.valid()}, nil
}

// newChecksum is the check sum that later passes compare with the first:
// CRC-32C, which the CPU computes far faster than a second SHA-256. It
// catches a file edited during an import, not a forgery (the user's own
// file is not an adversary here).
func newChecksum() hash.Hash32 { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) }

// recheck reads a later pass over the file and, at its end, fails with
// storage.ErrFileChanged unless the bytes had the first pass's check sum.
type recheck struct {
	r    io.Reader
	h    hash.Hash32
	want uint32
	err  error // storage.ErrFileChanged once the end showed a difference
}

func newRecheck(r io.Reader, want uint32) *recheck {
	return &recheck{r: r, h: newChecksum(), want: want}
}

func (c *recheck) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	if err == io.EOF && c.h.Sum32() != c.want {
		c.err = storage.ErrFileChanged
		err = storage.ErrFileChanged
	}
	return n, err
}
