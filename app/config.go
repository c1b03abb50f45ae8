package app

import "github.com/docent/docent/app/internal/datadir"

// DatabaseFile is the name of the SQLite file inside the data directory.
const DatabaseFile = "docent.db"

// DefaultDataDir is where Docent keeps its data when neither --data-dir
// nor DOCENT_DATA_DIR says otherwise (datadir.Default).
func DefaultDataDir() (string, error) { return datadir.Default() }
