package storage

// allowedFunctions are the functions a query_data query may call, lower
// case: SQLite's core scalar, date, math, JSON, aggregate and window
// functions, and the functions that LIKE, GLOB and -> are made of. Left
// out: load_extension, randomblob and zeroblob (memory), what reports on
// the connection (changes, last_insert_rowid, sqlite_*), jsonb (blobs),
// full-text search's and Docent's own.
var allowedFunctions = setOf(
	// core
	"abs", "char", "coalesce", "concat", "concat_ws", "format", "glob", "hex", "if", "iif",
	"ifnull", "instr", "length", "like", "likelihood", "likely", "lower", "ltrim", "max", "min",
	"nullif", "octet_length", "printf", "quote", "random", "replace", "round", "rtrim", "sign",
	"soundex", "substr", "substring", "trim", "typeof", "unhex", "unicode", "unistr", "unistr_quote",
	"unlikely", "upper",
	// date and time
	"date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff",
	"current_date", "current_time", "current_timestamp",
	// math
	"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh",
	"degrees", "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power",
	"radians", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
	// JSON
	"json", "json_array", "json_array_length", "json_error_position", "json_extract",
	"json_insert", "json_object", "json_patch", "json_pretty", "json_quote", "json_remove",
	"json_replace", "json_set", "json_type", "json_valid", "json_group_array",
	"json_group_object", "->", "->>",
	// aggregate
	"avg", "count", "group_concat", "string_agg", "sum", "total", "median", "percentile",
	"percentile_cont", "percentile_disc",
	// window
	"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
	"first_value", "last_value", "nth_value",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
