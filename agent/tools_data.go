package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
)

// dataTools answer questions across documents ("what did I spend on fuel
// in March?") with SQL over the extracted data: describe_data says what
// there is, query_data runs one SELECT over it (storage/dataquery.go
// guards it). Both only read.
func dataTools() []Tool {
	return []Tool{
		{
			Name:        "describe_data",
			Title:       "Describe the extracted data as SQL views",
			Description: "List the SQL views query_data reads: one per schema (a row per document: its current extraction, a column per top-level field) and documents. Gives columns, types, sample values and row counts. Call it before query_data.",
			Parameters:  params(nil, map[string]string{}),
			Access:      ReadOnly,
			Run:         decodeArgs(describeData),
			Summarize:   summarizer(fixedSummary("Describe the extracted data"), noWords, listOutcome("views", "view")),
		},
		{
			Name:  "query_data",
			Title: "Query the extracted data with SQL",
			Description: fmt.Sprintf("Answer questions across documents (sums, counts, lists) with one SQLite SELECT over the views of describe_data. "+
				"Booleans are 1/0; arrays, objects and tags are JSON text (json_each, ->>). Read-only. At most %d rows (row_count has the total); %s at most.", dataToolRows, storage.DataQueryTimeout),
			Parameters: params([]string{"sql"}, map[string]string{
				"sql": fmt.Sprintf(`{"type":"string","minLength":1,"maxLength":%d,"description":"One SELECT (or WITH ... SELECT) over the data views."}`, storage.MaxDataQueryLength),
			}),
			Access:    ReadOnly,
			Run:       decodeArgs(queryData),
			Summarize: summarizer(fixedSummary("Query the extracted data"), queryWords, queryOutcome),
		},
	}
}

// dataToolRows is how many rows query_data gives the model at most;
// fewer when they would not fit in a result (ResultCap).
const dataToolRows = 100

func describeData(ctx context.Context, env *ToolEnv, _ struct{}) (any, error) {
	d, err := env.DB.DescribeData(ctx)
	if err != nil {
		return nil, err
	}
	return withPreview(d, "%s", textfmt.Count(len(d.Views), "view")), nil
}

func queryData(ctx context.Context, env *ToolEnv, a struct {
	SQL string `json:"sql"`
}) (any, error) {
	res, err := env.DB.QueryData(ctx, storage.DataQuery{SQL: a.SQL, MaxRows: dataToolRows, Sources: env.citing()})
	if err != nil {
		return nil, err
	}
	// Rows that would not fit in the result are left out whole, rather
	// than the result cut in the middle of one; row_count still says how
	// many there were.
	for len(res.Rows) > 1 {
		data, err := json.Marshal(res)
		if err != nil {
			return nil, fmt.Errorf("encode the result: %w", err)
		}
		if len(data) <= ResultCap*3/4 {
			break
		}
		res.Rows = res.Rows[:len(res.Rows)/2]
		res.Truncated = true
	}
	if env.citing() {
		n := env.cite(queryCitation(a.SQL, res))
		return withPreview(citedData{DataResult: res, Cite: n}, "%s", textfmt.Count(res.RowCount, "row")), nil
	}
	return withPreview(res, "%s", textfmt.Count(res.RowCount, "row")), nil
}

// citedData is a query's result with the number an answer cites it by.
type citedData struct {
	storage.DataResult
	Cite int `json:"cite"`
}

func queryWords(a args, _ names) string {
	return textfmt.Shorten(strings.Join(strings.Fields(argString(a, "sql")), " "), 120)
}

// queryOutcome is how many rows a query returned, and how many of them
// the result holds when not all.
func queryOutcome(r args) string {
	rows, _ := r.Val("rows").([]any)
	total := num(r, "row_count")
	if total > len(rows) {
		return fmt.Sprintf("%d of %s", len(rows), textfmt.Count(total, "row"))
	}
	return textfmt.Count(total, "row")
}
