package server

import (
	"net/http"

	"github.com/docent/docent/storage"
)

// querySQL answers GET /api/sql?q=: one read-only SELECT over the data
// views, as the agent's query_data and `docent sql` run it
// (storage.QueryData), with at most maxRowsLimit rows (row_count says
// how many there were). A refused or mistaken query is a 400 that says
// why; nothing is written.
func (s *Server) querySQL(w http.ResponseWriter, r *http.Request) {
	res, err := s.cfg.DB.QueryData(r.Context(), storage.DataQuery{SQL: r.URL.Query().Get("q"), MaxRows: maxRowsLimit})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
