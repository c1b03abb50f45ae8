package export

import (
	"encoding/json"
	"strings"

	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// CheckRowKey checks a key to sort or filter a schema's rows by (what
// says which, for the message): one of the fields or of storage's RowKey
// constants.
func CheckRowKey(key string, fields []string, what string) error {
	keys := append(append([]string{}, fields...), storage.RowKeyDocumentName, storage.RowKeyValidationStatus, storage.RowKeyAutoCreateStatus)
	for _, k := range keys {
		if k == key {
			return nil
		}
	}
	return fault.Errorf(fault.Invalid, "%s %q is not a column (columns: %s)", what, key, strings.Join(keys, ", "))
}

// Values returns an extraction's value as a row of the data view: the
// value at each column's path (null when missing), and the leaves of the
// value that no column covers, under their dotted paths. Objects are
// walked; arrays are leaves, kept whole. Numbers keep their JSON text.
func Values(columns []string, value json.RawMessage) (map[string]any, error) {
	v, err := decode(value)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(columns))
	for _, c := range columns {
		out[c] = Lookup(v, c)
	}
	for path, leaf := range flatten(v, "") {
		if !covered(path, columns) {
			out[path] = leaf
		}
	}
	return out, nil
}

// EditedPaths returns the dotted paths of the leaves whose current value
// differs from the model's original, as the _edited column lists them.
func EditedPaths(original, value json.RawMessage) ([]string, error) {
	o, err := decode(original)
	if err != nil {
		return nil, err
	}
	v, err := decode(value)
	if err != nil {
		return nil, err
	}
	return editedPaths(o, v), nil
}
