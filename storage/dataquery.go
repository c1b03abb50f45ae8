package storage

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// query_data: one SELECT, written by a model or a person, over the data
// views (dataviews.go) and nothing else. Each guard would be enough on
// its own for writes; together they also keep a query to the views:
//
//   - the query's connection is its own, opened read-only (mode=ro),
//     with PRAGMA query_only on once its views are made, and closed after
//     the query, so nothing a query does outlives it;
//   - SQLite's authorizer (queryGuard) lets the statement read the views,
//     the columns of the store that the views read (through inner views
//     whose random names a query cannot know) and nothing else, and
//     call the functions of allowedFunctions; every other action (a write,
//     ATTACH, PRAGMA, CREATE) is refused while the statement is compiled;
//   - the text is one statement that starts with SELECT, WITH or VALUES;
//   - it runs at most DataQueryTimeout, then SQLite is interrupted, and it
//     returns at most the rows asked for (the result says how many there
//     were).

// Limits of query_data.
const (
	// DataQueryTimeout is how long a query may run.
	DataQueryTimeout = 2 * time.Second
	// MaxDataQueryLength caps the text of a query.
	MaxDataQueryLength = 20_000
	// maxDataValueLength caps any one value a query makes
	// (SQLITE_LIMIT_LENGTH): a printf or replace that would fill the
	// memory fails instead.
	maxDataValueLength = 16 << 20
	// sampleLength caps the text of a sample value of describe_data.
	sampleLength = 60
)

// DataQuery is one query of the data views.
type DataQuery struct {
	// SQL is one SELECT.
	SQL string
	// MaxRows is how many rows to return at most; more are counted only.
	MaxRows int
	// Sources asks for the rows of the views the query read
	// (DataResult.Sources), to cite it.
	Sources bool
}

// DataResult is what a query returned.
type DataResult struct {
	// Columns are the names of the result's columns.
	Columns []string `json:"columns"`
	// Rows are the first rows, each a value per column: null, a number or
	// text (a blob that is not UTF-8 is hex, x'..').
	Rows [][]any `json:"rows"`
	// RowCount is how many rows the query returned in all.
	RowCount int `json:"row_count"`
	// Truncated is set when Rows has fewer than RowCount.
	Truncated bool `json:"truncated,omitempty"`
	// Sources are the rows the query read, when DataQuery.Sources asked
	// for them. They are for citing the result, not for the model.
	Sources *DataSources `json:"-"`
}

// DataDescription is what describe_data returns.
type DataDescription struct {
	Views []DataView `json:"views"`
}

// dataConns are the read-only connections of queries, opened once a
// query needs one and kept (up to maxIdleDataConns) with their views and
// guard, so that the next query finds SQLite's page cache warm and makes
// the views again only when a schema changed.
type dataConns struct {
	mu   sync.Mutex
	db   *sql.DB
	idle []*dataConn
}

// maxIdleDataConns is how many query connections are kept between
// queries.
const maxIdleDataConns = 2

// dataConn is a query connection, its guard, and the views it has.
type dataConn struct {
	conn  *sql.Conn
	guard *queryGuard
	// views is the SQL that made its views, cat what they are.
	views string
	cat   dataCatalog
}

// get returns an idle connection or opens one: read-only (mode=ro),
// with SQLite's limits and the guard installed.
func (c *dataConns) get(ctx context.Context, path string) (*dataConn, error) {
	c.mu.Lock()
	if n := len(c.idle); n > 0 {
		dc := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return dc, nil
	}
	if c.db == nil {
		q := url.Values{}
		q.Set("mode", "ro")
		q.Add("_pragma", "busy_timeout(10000)")
		// Pages are read from the file's mapping rather than copied by a
		// read call each.
		q.Add("_pragma", "mmap_size(1073741824)")
		db, err := sql.Open("sqlite", fileURI(path, q))
		if err != nil {
			c.mu.Unlock()
			return nil, fmt.Errorf("open the database to query its data: %w", err)
		}
		// The kept connections are held as *sql.Conn, out of the pool:
		// one given back to the pool is closed.
		db.SetMaxIdleConns(0)
		c.db = db
	}
	db := c.db
	c.mu.Unlock()

	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("open the database to query its data: %w", err)
	}
	secret := make([]byte, 8)
	rand.Read(secret)
	dc := &dataConn{conn: conn, guard: &queryGuard{setup: true, secret: "docent_" + hex.EncodeToString(secret)}}
	if err := dc.guard.install(conn); err != nil {
		conn.Close()
		return nil, err
	}
	for id, v := range map[int]int{sqlite3.SQLITE_LIMIT_LENGTH: maxDataValueLength, sqlite3.SQLITE_LIMIT_ATTACHED: 0} {
		if _, err := sqlite.Limit(conn, id, v); err != nil {
			conn.Close()
			return nil, fmt.Errorf("limit the data connection: %w", err)
		}
	}
	return dc, nil
}

// put keeps a connection for the next query, or closes it when keep is
// false (an interrupted query, an internal error) or enough are kept.
func (c *dataConns) put(dc *dataConn, keep bool) {
	c.mu.Lock()
	if keep && c.db != nil && len(c.idle) < maxIdleDataConns {
		c.idle = append(c.idle, dc)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	dc.conn.Close()
}

func (c *dataConns) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, dc := range c.idle {
		errs = append(errs, dc.conn.Close())
	}
	c.idle = nil
	if c.db != nil {
		errs = append(errs, c.db.Close())
		c.db = nil
	}
	return errors.Join(errs...)
}

// withDataViews runs fn on a read-only query connection that has the
// data views as the store's schemas are now, with the guard on.
func (db *DB) withDataViews(ctx context.Context, fn func(*dataConn) error) (err error) {
	dc, err := db.dataConns.get(ctx, db.path)
	if err != nil {
		return err
	}
	defer func() {
		// A refused or mistaken query leaves the connection as it was;
		// anything else (an interrupt, an internal error) may not.
		var fe *Error
		db.dataConns.put(dc, ctx.Err() == nil && (err == nil || errors.As(err, &fe)))
	}()
	if err := dc.prepare(ctx); err != nil {
		return err
	}
	return fn(dc)
}

// prepare brings a connection's views up to date with the schemas, and
// turns query_only and the guard on.
func (dc *dataConn) prepare(ctx context.Context) error {
	dc.guard.setup = true
	cat, err := loadDataCatalog(ctx, dc.conn)
	if err != nil {
		return err
	}
	// The views as they should be: their names and what they select.
	views := strings.Join(cat.viewNames(), ",") + "\n" + strings.Join(cat.selects, ";\n")
	if views != dc.views {
		stmts := []string{`PRAGMA query_only = 0`}
		for _, name := range dc.cat.viewNames() {
			stmts = append(stmts, `DROP VIEW temp.`+sqlIdent(name), `DROP VIEW temp.`+sqlIdent(dc.guard.inner(name)))
		}
		for i, name := range cat.viewNames() {
			inner := dc.guard.inner(name)
			stmts = append(stmts, `CREATE TEMP VIEW `+sqlIdent(inner)+` AS `+cat.selects[i],
				`CREATE TEMP VIEW `+sqlIdent(name)+` AS SELECT * FROM temp.`+sqlIdent(inner))
		}
		dc.views, dc.cat = "", dataCatalog{}
		for _, stmt := range stmts {
			if _, err := dc.conn.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("make the data views: %w", err)
			}
		}
		if err := dc.guard.learn(ctx, dc.conn, cat); err != nil {
			return err
		}
		dc.views, dc.cat = views, cat
	}
	if _, err := dc.conn.ExecContext(ctx, `PRAGMA query_only = 1`); err != nil {
		return fmt.Errorf("make the data connection read-only: %w", err)
	}
	dc.guard.denied = ""
	dc.guard.setup = false
	return nil
}

// inSnapshot runs fn in one read transaction of the connection, so that
// the statements it runs see the store as it was at once.
func (dc *dataConn) inSnapshot(ctx context.Context, fn func() error) error {
	dc.guard.setup = true
	_, err := dc.conn.ExecContext(ctx, `BEGIN`)
	dc.guard.setup = false
	if err != nil {
		return fmt.Errorf("begin reading the data: %w", err)
	}
	err = fn()
	dc.guard.setup = true
	_, endErr := dc.conn.ExecContext(context.WithoutCancel(ctx), `COMMIT`)
	dc.guard.setup = false
	if err != nil {
		return err
	}
	if endErr != nil {
		return fmt.Errorf("end reading the data: %w", endErr)
	}
	return nil
}

// DescribeData lists the data views with their columns, the types of
// these and a few of their values, and how many rows each view has.
func (db *DB) DescribeData(ctx context.Context) (DataDescription, error) {
	var out DataDescription
	err := db.withDataViews(ctx, func(dc *dataConn) error {
		counts, err := countViewRows(ctx, dc.conn, dc.cat)
		if err != nil {
			return fmt.Errorf("count the views' rows: %w", err)
		}
		for i, v := range dc.cat.views {
			v.Rows = counts[i]
			if err := sampleView(ctx, dc.conn, &v); err != nil {
				return fmt.Errorf("describe view %s: %w", v.Name, err)
			}
			out.Views = append(out.Views, v)
		}
		return nil
	})
	if err != nil {
		return DataDescription{}, translate("describe data", err)
	}
	return out, nil
}

// countViewRows counts the rows of every view in one pass over the
// documents view, whose data_view names the view that has each
// document's row: a count per view would read every document's newest
// extraction once per schema.
func countViewRows(ctx context.Context, conn *sql.Conn, cat dataCatalog) ([]int, error) {
	cols := make([]string, len(cat.views))
	for i, v := range cat.views {
		if v.Name == documentsViewName {
			cols[i] = `count(*)`
		} else {
			cols[i] = `count(*) FILTER (WHERE data_view = ` + sqlString(v.Name) + `)`
		}
	}
	counts := make([]int, len(cols))
	ptrs := make([]any, len(cols))
	for i := range counts {
		ptrs[i] = &counts[i]
	}
	err := conn.QueryRowContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+documentsViewName).Scan(ptrs...)
	return counts, err
}

// sampleRows is how many rows of a view its samples are taken from.
const sampleRows = 20

// sampleView takes a few values of each of a view's columns from its
// first rows.
func sampleView(ctx context.Context, conn *sql.Conn, v *DataView) error {
	v.Columns = slices.Clone(v.Columns)
	for i := range v.Columns {
		v.Columns[i].Samples = []any{}
	}
	rows, err := conn.QueryContext(ctx, `SELECT * FROM `+sqlIdent(v.Name)+` LIMIT `+strconv.Itoa(sampleRows))
	if err != nil {
		return err
	}
	defer rows.Close()
	values := make([]any, len(v.Columns))
	ptrs := make([]any, len(values))
	for i := range values {
		ptrs[i] = &values[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, x := range values {
			c := &v.Columns[i]
			s := dataValue(x)
			if s == nil || len(c.Samples) == 3 {
				continue
			}
			if text, ok := s.(string); ok {
				s = cutSample(text)
			}
			if !slices.Contains(c.Samples, s) {
				c.Samples = append(c.Samples, s)
			}
		}
	}
	return rows.Err()
}

// cutSample cuts a sample's text to sampleLength characters.
func cutSample(s string) string {
	if utf8.RuneCountInString(s) <= sampleLength {
		return s
	}
	r := []rune(s)
	return string(r[:sampleLength]) + "…"
}

// QueryData runs one SELECT over the data views (see the top of this
// file for what it may do). A query that breaks a rule, names what is not
// there or runs too long is invalid, with a message that says what to
// change; nothing is ever written.
func (db *DB) QueryData(ctx context.Context, q DataQuery) (DataResult, error) {
	return db.queryData(ctx, q, DataQueryTimeout)
}

// queryData is QueryData with its time limit, which a benchmark on a
// loaded machine raises.
func (db *DB) queryData(ctx context.Context, q DataQuery, limit time.Duration) (DataResult, error) {
	text, err := oneSelect(q.SQL)
	if err != nil {
		return DataResult{}, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var out DataResult
	err = db.withDataViews(ctx, func(dc *dataConn) error {
		if !q.Sources {
			var err error
			out, err = readDataRows(ctx, dc.conn, text, q.MaxRows)
			return dc.guard.explain(err)
		}
		return dc.inSnapshot(ctx, func() error {
			dc.guard.read = map[string]bool{}
			var err error
			if out, err = readDataRows(ctx, dc.conn, text, q.MaxRows); err != nil {
				return dc.guard.explain(err)
			}
			viewsRead := slices.Sorted(maps.Keys(dc.guard.read))
			dc.guard.read = nil
			sources, err := readSources(ctx, dc, text, viewsRead)
			out.Sources = &sources
			return err
		})
	})
	if err == nil && out.Sources != nil {
		err = db.addSourceEvidence(parent, out.Sources)
	}
	switch {
	case err == nil:
		return out, nil
	case parent.Err() == nil && ctx.Err() != nil:
		return DataResult{}, Errorf(ErrInvalid, "the query ran longer than %s and was stopped: ask for less (a WHERE, a LIMIT, an aggregate) or make sure a recursive WITH ends", limit)
	}
	return DataResult{}, translate("query data", err)
}

// readDataRows runs the query and reads its first maxRows rows,
// counting the rest.
func readDataRows(ctx context.Context, conn *sql.Conn, text string, maxRows int) (DataResult, error) {
	rows, err := conn.QueryContext(ctx, text)
	if err != nil {
		return DataResult{}, err
	}
	defer rows.Close()
	out := DataResult{Rows: [][]any{}}
	if out.Columns, err = rows.Columns(); err != nil {
		return DataResult{}, err
	}
	values := make([]any, len(out.Columns))
	ptrs := make([]any, len(values))
	for i := range values {
		ptrs[i] = &values[i]
	}
	for rows.Next() {
		out.RowCount++
		if len(out.Rows) >= maxRows {
			continue
		}
		if err := rows.Scan(ptrs...); err != nil {
			return DataResult{}, err
		}
		row := make([]any, len(values))
		for i, v := range values {
			row[i] = dataValue(v)
		}
		out.Rows = append(out.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return DataResult{}, err
	}
	out.Truncated = len(out.Rows) < out.RowCount
	return out, nil
}

// dataValue is an SQL value as JSON can carry it.
func dataValue(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case []byte:
		if utf8.Valid(x) {
			return string(x)
		}
		return "x'" + hex.EncodeToString(x) + "'"
	case time.Time:
		return x.UTC().Format(timeLayout)
	}
	return v
}

// oneSelect checks that text is one statement that starts with SELECT,
// WITH or VALUES, and returns it without its closing semicolon. It reads
// SQL as SQLite's tokenizer does where that matters here: quoted text
// and names (in single, double or back quotes, or brackets) and comments
// (--, /* */) may hold a semicolon.
func oneSelect(text string) (string, error) {
	if len(text) > MaxDataQueryLength {
		return "", Errorf(ErrInvalid, "the query is %d characters long; the most is %d", len(text), MaxDataQueryLength)
	}
	if strings.ContainsRune(text, 0) {
		return "", Errorf(ErrInvalid, "the query contains a NUL character")
	}
	end := -1 // where the first statement ends
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\'' || c == '"' || c == '`' || c == '[':
			closing := c
			if c == '[' {
				closing = ']'
			}
			j := strings.IndexByte(text[i+1:], closing)
			if j < 0 {
				return "", Errorf(ErrInvalid, "the query has a %c that is never closed", c)
			}
			i += j + 1 // a doubled quote is two quoted parts in a row: the same
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = len(text) - i
			}
			i += j
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				j = len(text) - i // SQLite ends an open comment at the end
			}
			i += j + 3
		case c == ';' && end < 0:
			end = i
		case end >= 0 && !isSQLSpace(c) && c != ';':
			return "", Errorf(ErrInvalid, "the query holds more than one statement; send one SELECT")
		}
	}
	if end >= 0 {
		text = text[:end]
	}
	switch w := firstWord(text); w {
	case "select", "with", "values":
		return text, nil
	case "":
		return "", Errorf(ErrInvalid, "the query is empty; send one SELECT over the data views (describe_data lists them)")
	default:
		return "", Errorf(ErrInvalid, "only SELECT is allowed, not %s: query_data reads the data views and changes nothing", strings.ToUpper(w))
	}
}

func isSQLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// firstWord is the first word of an SQL text, lower case, past spaces,
// comments and opening parentheses.
func firstWord(text string) string {
	for text != "" {
		switch {
		case isSQLSpace(text[0]) || text[0] == '(':
			text = text[1:]
		case strings.HasPrefix(text, "--"):
			_, text, _ = strings.Cut(text, "\n")
		case strings.HasPrefix(text, "/*"):
			_, text, _ = strings.Cut(text, "*/")
		default:
			n := strings.IndexFunc(text, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') })
			if n < 0 {
				n = len(text)
			}
			if n == 0 {
				return text[:1]
			}
			return strings.ToLower(text[:n])
		}
	}
	return ""
}

// queryGuard is the authorizer of a query connection: SQLite asks it
// about every table column read, function called and action taken while
// it compiles a statement.
type queryGuard struct {
	// setup is set while the store's own statements run (making the
	// views), which it allows all of.
	setup bool
	// recording is set while the views' own reads are learnt.
	recording bool
	// views are the views' names, names the same in order.
	views map[string]bool
	names []string
	// secret names the views that read the store (inner): each view
	// selects * from its inner view, named after it and the secret, a
	// random name a query cannot know, so that only these views may read
	// the store. (SQLite tells the authorizer which view a read is for
	// by name, and a query's WITH may take a view's name.)
	secret     string
	innerViews map[string]bool
	// baseReads are the table.column of the store that the views read.
	baseReads map[string]bool
	// denied is why the first refused action was refused.
	denied string
	// read, when not nil, collects the views a statement reads.
	read map[string]bool
}

// inner is the name of the view that view reads the store through.
func (g *queryGuard) inner(view string) string { return g.secret + "_" + view }

// install makes g the connection's authorizer.
func (g *queryGuard) install(conn *sql.Conn) error {
	err := conn.Raw(func(driverConn any) error {
		r, ok := driverConn.(sqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("the SQLite driver has no authorizer (%T)", driverConn)
		}
		return r.RegisterAuthorizer(g.authorize)
	})
	if err != nil {
		return fmt.Errorf("guard the data connection: %w", err)
	}
	return nil
}

// learn takes the views of cat and learns which columns of the store
// they read, by compiling a SELECT * of each.
func (g *queryGuard) learn(ctx context.Context, conn *sql.Conn, cat dataCatalog) error {
	g.names = cat.viewNames()
	g.views, g.innerViews, g.baseReads = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, n := range g.names {
		g.views[n] = true
		g.innerViews[g.inner(n)] = true
	}
	g.recording = true
	defer func() { g.recording = false }()
	for _, n := range g.names {
		stmt, err := conn.PrepareContext(ctx, `SELECT * FROM `+sqlIdent(n))
		if err != nil {
			return fmt.Errorf("read view %s: %w", n, err)
		}
		stmt.Close()
	}
	return nil
}

func (g *queryGuard) authorize(action sqlite.AuthorizerActionCode, arg1, arg2, dbName, inner string) sqlite.AuthorizerReturnCode {
	if g.recording && action == sqlite.AuthRead && dbName == "main" {
		g.baseReads[arg1+"."+arg2] = true
	}
	if g.setup {
		return sqlite.AuthorizerOK
	}
	why := g.check(action, arg1, arg2, dbName, inner)
	if why == "" {
		return sqlite.AuthorizerOK
	}
	if g.denied == "" {
		g.denied = why
	}
	return sqlite.AuthorizerDeny
}

// check says why an action is refused, "" when it is allowed.
func (g *queryGuard) check(action sqlite.AuthorizerActionCode, arg1, arg2, dbName, inner string) string {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRecursive:
		return ""
	case sqlite.AuthRead:
		switch {
		case dbName == "": // a column of the query's own WITH or subquery
			return ""
		case dbName == "temp" && g.views[arg1]:
			if g.read != nil {
				g.read[arg1] = true
			}
			return ""
		case dbName == "temp" && g.innerViews[arg1] && g.views[inner]:
			if g.read != nil {
				g.read[inner] = true
			}
			return ""
		case dbName == "main" && (arg1 == "json_each" || arg1 == "json_tree"):
			return ""
		case dbName == "main" && g.innerViews[inner] && g.baseReads[arg1+"."+arg2]:
			return ""
		}
		return fmt.Sprintf("%s is not a data view: query only the views %s (describe_data lists their columns)",
			arg1, strings.Join(g.names, ", "))
	case sqlite.AuthFunction:
		if allowedFunctions[strings.ToLower(arg2)] {
			return ""
		}
		return fmt.Sprintf("the function %s() is not allowed in query_data; use SQLite's core, date, math, JSON, aggregate and window functions", arg2)
	case sqlite.AuthPragma:
		return "PRAGMA is not allowed: query_data runs one SELECT over the data views"
	case sqlite.AuthAttach, sqlite.AuthDetach:
		return "ATTACH is not allowed: query_data reads the data views only"
	}
	return "query_data only reads: send one SELECT over the data views (it cannot insert, update, delete, create or drop anything)"
}

// explain turns SQLite's refusal of a query into the guard's reason, and
// its other errors about the query (a misspelt column, a syntax error)
// into invalid ones with SQLite's words.
func (g *queryGuard) explain(err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	if g.denied != "" {
		// SQLite reports a refused read as SQLITE_AUTH and a refused
		// function as SQLITE_ERROR; either way the guard knows why.
		return Errorf(ErrInvalid, "%s", g.denied)
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_ERROR:
		return Errorf(ErrInvalid, "the query failed: %s (describe_data lists the views and their columns)", sqliteMessage(se))
	case sqlite3.SQLITE_TOOBIG:
		return Errorf(ErrInvalid, "the query made a value of over %d MB; ask for less", maxDataValueLength>>20)
	case sqlite3.SQLITE_READONLY:
		return Errorf(ErrInvalid, "query_data only reads: send one SELECT over the data views")
	}
	return err
}

// sqliteMessage is SQLite's own words of an error, without the driver's
// code name and number around them.
func sqliteMessage(se *sqlite.Error) string {
	msg := se.Error()
	if _, after, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "SQL logic error") {
		msg = after
	}
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		msg = msg[:i]
	}
	return msg
}
