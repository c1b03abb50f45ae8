package storage

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// ChunkToEmbed is a chunk that has no vector yet for a model.
type ChunkToEmbed struct {
	ID   int64
	Text string
}

// ChunksToEmbed returns up to limit chunks with no vector for model, in id
// order, after the chunk afterID (0 for the first): an embedding run that
// stops, for whatever reason, starts again where it was, embedding only
// what is missing.
func (db *DB) ChunksToEmbed(ctx context.Context, model string, afterID int64, limit int) ([]ChunkToEmbed, error) {
	if strings.TrimSpace(model) == "" {
		return nil, Errorf(ErrInvalid, "no embedding model named")
	}
	chunks, err := queryRows(ctx, db.sql, func(s scanner) (ChunkToEmbed, error) {
		var c ChunkToEmbed
		err := s.Scan(&c.ID, &c.Text)
		return c, err
	}, `SELECT c.id, c.text FROM chunks c
	     WHERE c.id > ? AND NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.model = ? AND v.chunk_id = c.id)
	     ORDER BY c.id LIMIT ?`, afterID, model, max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("chunks to embed: %w", err)
	}
	return chunks, nil
}

// EmbedProgress is how far the chunks are embedded with a model.
type EmbedProgress struct {
	Model    string `json:"model"`
	Chunks   int    `json:"chunks"`
	Embedded int    `json:"embedded"`
	// Dimensions is the size of the model's stored vectors (0: none yet).
	Dimensions int `json:"dimensions"`
}

// EmbedProgress counts the chunks and those with a vector for model; with
// documentID, only that document's.
func (db *DB) EmbedProgress(ctx context.Context, model, documentID string) (EmbedProgress, error) {
	p := EmbedProgress{Model: model}
	where, args := "", []any{model}
	if documentID != "" {
		where = " WHERE c.document_id = ?"
		args = append(args, documentID)
	}
	err := db.sql.QueryRowContext(ctx, `SELECT count(*), count(v.chunk_id), coalesce(max(v.dim), 0)
		  FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id AND v.model = ?`+where, args...).
		Scan(&p.Chunks, &p.Embedded, &p.Dimensions)
	if err != nil {
		return EmbedProgress{}, fmt.Errorf("embed progress: %w", err)
	}
	return p, nil
}

// ChunkVector is one chunk's vector by a model.
type ChunkVector struct {
	ChunkID int64
	Vector  []float32
}

// StoreVectors saves the vectors of model, all in one transaction: all of
// them or none. Each is stored scaled to length 1. A vector that is
// empty, not finite or zero, or whose size differs from the model's
// vectors already stored, is refused (ErrInvalid, ErrConflict) and
// nothing is written. A chunk deleted meanwhile (its document removed or
// read again) is skipped: its text is gone.
func (db *DB) StoreVectors(ctx context.Context, model string, vecs []ChunkVector) error {
	if strings.TrimSpace(model) == "" {
		return Errorf(ErrInvalid, "no embedding model named")
	}
	if len(vecs) == 0 {
		return nil
	}
	dim := len(vecs[0].Vector)
	blobs := make([][]byte, len(vecs))
	for i, v := range vecs {
		if len(v.Vector) != dim {
			return Errorf(ErrInvalid, "vectors of %d and %d dimensions in one batch of %s", dim, len(v.Vector), model)
		}
		b, err := vectorBlob(v.Vector)
		if err != nil {
			return Errorf(ErrInvalid, "chunk %d: %v", v.ChunkID, err)
		}
		blobs[i] = b
	}
	return db.update(ctx, "store vectors", func(tx *writeTx) error {
		var stored int
		err := tx.QueryRowContext(ctx, `SELECT dim FROM chunk_vectors WHERE model = ? LIMIT 1`, model).Scan(&stored)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if stored != 0 && stored != dim {
			return Errorf(ErrConflict, "%s now gives vectors of %d dimensions, but the ones stored have %d: the model changed under its name; the stored vectors are kept, and new ones wait until it answers as before (or choose it under another name)", model, dim, stored)
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO chunk_vectors (chunk_id, model, dim, vec)
			SELECT id, ?, ?, ? FROM chunks WHERE id = ?
			ON CONFLICT (model, chunk_id) DO UPDATE SET dim = excluded.dim, vec = excluded.vec`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, v := range vecs {
			if _, err := stmt.ExecContext(ctx, model, dim, blobs[i], v.ChunkID); err != nil {
				return fmt.Errorf("chunk %d: %w", v.ChunkID, err)
			}
		}
		return nil
	})
}

// vectorBlob is v scaled to length 1, as little-endian float32s.
func vectorBlob(v []float32) ([]byte, error) {
	if len(v) == 0 {
		return nil, errors.New("an empty vector")
	}
	var norm float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("a vector with %v in it", f)
		}
		norm += f * f
	}
	if norm == 0 {
		return nil, errors.New("a zero vector")
	}
	norm = math.Sqrt(norm)
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(float64(x)/norm)))
	}
	return b, nil
}

func blobVector(b []byte) []float32 { return blobVectorInto(nil, b) }

// blobVectorInto decodes b into v's memory when it has room.
func blobVectorInto(v []float32, b []byte) []float32 {
	if n := len(b) / 4; cap(v) >= n {
		v = v[:n]
	} else {
		v = make([]float32, n)
	}
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
