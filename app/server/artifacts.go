package server

import (
	"encoding/json"
	"net/http"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/app/internal/listarg"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Schemas, prompts and tags: the artifacts the agent's tools also make.
// Schemas are saved through agent.CreateSchema/UpdateSchema, which check
// them first, exactly as the create_schema tool does.

// listPage reads limit, offset and q for the artifact lists.
func listPage(r *http.Request) (storage.ListFilter, error) {
	limit, err := queryInt(r, "limit")
	if err != nil {
		return storage.ListFilter{}, err
	}
	offset, err := queryInt(r, "offset")
	if err != nil {
		return storage.ListFilter{}, err
	}
	return storage.ListFilter{Limit: limit, Skip: offset, NameSearch: r.URL.Query().Get("q")}, nil
}

// schemaList answers GET /api/schemas: the latest revision of each.
type schemaList struct {
	Schemas []storage.SchemaRevision `json:"schemas"`
	Total   int                      `json:"total"`
}

func (s *Server) listSchemas(w http.ResponseWriter, r *http.Request) {
	f, err := listPage(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	revs, total, err := s.cfg.DB.ListSchemas(r.Context(), f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if revs == nil {
		revs = []storage.SchemaRevision{}
	}
	writeJSON(w, http.StatusOK, schemaList{Schemas: revs, Total: total})
}

// schemaBody is the body of POST and PUT /api/schemas.
type schemaBody struct {
	Name *string `json:"name"`
	// ResponseFormat is a response_format object or a bare JSON Schema.
	ResponseFormat json.RawMessage `json:"response_format"`
}

func (s *Server) createSchema(w http.ResponseWriter, r *http.Request) {
	var body schemaBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.Name == nil || len(body.ResponseFormat) == 0 {
		missing := "name"
		if body.Name != nil {
			missing = "response_format"
		}
		s.writeError(w, r, fault.Errorf(fault.Invalid, "a schema needs name and response_format").On(missing))
		return
	}
	res, err := agent.CreateSchema(r.Context(), s.cfg.DB, *body.Name, body.ResponseFormat)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, res)
}

func (s *Server) getSchema(w http.ResponseWriter, r *http.Request) {
	rev, err := s.cfg.DB.GetSchema(r.Context(), r.PathValue("schema_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rev)
}

// updateSchema saves a new version with the fields given (a field left out
// stays as it is); an update that changes nothing makes no version and
// says so in no_changes.
func (s *Server) updateSchema(w http.ResponseWriter, r *http.Request) {
	var body schemaBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	var raw json.RawMessage
	if len(body.ResponseFormat) > 0 {
		raw = body.ResponseFormat
	}
	res, err := agent.UpdateSchema(r.Context(), s.cfg.DB, r.PathValue("schema_id"), body.Name, raw)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) deleteSchema(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rev, err := s.cfg.DB.GetSchema(ctx, r.PathValue("schema_id"))
	if err == nil {
		err = s.cfg.DB.DeleteSchema(ctx, rev.SchemaID)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rev)
}

func (s *Server) getSchemaRevision(w http.ResponseWriter, r *http.Request) {
	rev, err := s.cfg.DB.GetSchemaRevision(r.Context(), r.PathValue("schema_revid"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rev)
}

// schemaRevisions answers GET /api/schemas/{schema_id}/revisions.
type schemaRevisions struct {
	Revisions []storage.SchemaRevision `json:"revisions"`
}

// listSchemaRevisions lists every version of a schema, for a UI that shows
// its history (the routes of one revision are in the protocol's table).
func (s *Server) listSchemaRevisions(w http.ResponseWriter, r *http.Request) {
	revs, err := s.cfg.DB.ListSchemaRevisions(r.Context(), r.PathValue("schema_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if revs == nil {
		revs = []storage.SchemaRevision{}
	}
	writeJSON(w, http.StatusOK, schemaRevisions{Revisions: revs})
}

// promptList answers GET /api/prompts: the latest revision of each.
type promptList struct {
	Prompts []storage.PromptRevision `json:"prompts"`
	Total   int                      `json:"total"`
}

func (s *Server) listPrompts(w http.ResponseWriter, r *http.Request) {
	f, err := listPage(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	revs, total, err := s.cfg.DB.ListPrompts(r.Context(), storage.PromptFilter{
		Skip: f.Skip, Limit: f.Limit, NameSearch: f.NameSearch, TagIDs: listarg.Split(r.URL.Query()["tag_id"]),
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if revs == nil {
		revs = []storage.PromptRevision{}
	}
	writeJSON(w, http.StatusOK, promptList{Prompts: revs, Total: total})
}

// promptBody is the body of POST and PUT /api/prompts. On PUT a field left
// out carries over from the latest revision.
type promptBody struct {
	Name    *string `json:"name"`
	Content *string `json:"content"`
	// SchemaID links a schema ("" unlinks on PUT); SchemaVersion picks its
	// version, 0 or absent the latest.
	SchemaID      *string   `json:"schema_id"`
	SchemaVersion *int      `json:"schema_version"`
	Model         *string   `json:"model"`
	TagIDs        *[]string `json:"tag_ids"`
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (s *Server) createPrompt(w http.ResponseWriter, r *http.Request) {
	var body promptBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	rev, err := agent.CreatePrompt(r.Context(), s.cfg.DB, storage.NewPrompt{
		Name: deref(body.Name), Content: deref(body.Content),
		SchemaID: deref(body.SchemaID), SchemaVersion: deref(body.SchemaVersion),
		Model: deref(body.Model), TagIDs: deref(body.TagIDs),
		ForKind: true, // a person's prompt is the one its kind extracts with
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, rev)
}

func (s *Server) getPrompt(w http.ResponseWriter, r *http.Request) {
	rev, err := s.cfg.DB.GetPrompt(r.Context(), r.PathValue("prompt_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rev)
}

// promptUpdate answers PUT /api/prompts/{prompt_id}.
type promptUpdate struct {
	storage.PromptRevision
	// NoChanges is true when the body matched the latest revision, so no
	// new version was made.
	NoChanges bool `json:"no_changes,omitempty"`
}

func (s *Server) updatePrompt(w http.ResponseWriter, r *http.Request) {
	var body promptBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	rev, noChanges, err := agent.UpdatePrompt(r.Context(), s.cfg.DB, r.PathValue("prompt_id"), storage.PromptPatch{
		Name: body.Name, Content: body.Content, SchemaID: body.SchemaID, SchemaVersion: body.SchemaVersion,
		Model: body.Model, TagIDs: body.TagIDs, ForKind: true,
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, promptUpdate{PromptRevision: rev, NoChanges: noChanges})
}

func (s *Server) deletePrompt(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rev, err := s.cfg.DB.GetPrompt(ctx, r.PathValue("prompt_id"))
	if err == nil {
		err = s.cfg.DB.DeletePrompt(ctx, rev.PromptID)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rev)
}

func (s *Server) getPromptRevision(w http.ResponseWriter, r *http.Request) {
	rev, err := s.cfg.DB.GetPromptRevision(r.Context(), r.PathValue("prompt_revid"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rev)
}

// promptRevisions answers GET /api/prompts/{prompt_id}/revisions.
type promptRevisions struct {
	Revisions []storage.PromptRevision `json:"revisions"`
}

func (s *Server) listPromptRevisions(w http.ResponseWriter, r *http.Request) {
	revs, err := s.cfg.DB.ListPromptRevisions(r.Context(), r.PathValue("prompt_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if revs == nil {
		revs = []storage.PromptRevision{}
	}
	writeJSON(w, http.StatusOK, promptRevisions{Revisions: revs})
}

// tagList answers GET /api/tags.
type tagList struct {
	Tags []storage.Tag `json:"tags"`
}

func (s *Server) listTags(w http.ResponseWriter, r *http.Request) {
	tags, err := s.cfg.DB.ListTags(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if tags == nil {
		tags = []storage.Tag{}
	}
	writeJSON(w, http.StatusOK, tagList{Tags: tags})
}

// tagBody is the body of POST and PATCH /api/tags.
type tagBody struct {
	Name        *string `json:"name"`
	Color       *string `json:"color"`
	Description *string `json:"description"`
}

func (s *Server) createTag(w http.ResponseWriter, r *http.Request) {
	var body tagBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	tag, err := s.cfg.DB.CreateTag(r.Context(), storage.NewTag{
		Name: deref(body.Name), Color: deref(body.Color), Description: deref(body.Description),
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, tag)
}

func (s *Server) getTag(w http.ResponseWriter, r *http.Request) {
	tag, err := s.cfg.DB.GetTag(r.Context(), r.PathValue("tag_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, tag)
}

func (s *Server) patchTag(w http.ResponseWriter, r *http.Request) {
	var body tagBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	tag, err := s.cfg.DB.UpdateTag(r.Context(), r.PathValue("tag_id"), storage.TagPatch{
		Name: body.Name, Color: body.Color, Description: body.Description,
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, tag)
}

// deleteTag refuses (409) while documents or prompts use the tag, as the
// store does; the message names them.
func (s *Server) deleteTag(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	tag, err := s.cfg.DB.GetTag(ctx, r.PathValue("tag_id"))
	if err == nil {
		err = s.cfg.DB.DeleteTag(ctx, tag.ID)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, tag)
}

// evaluationList answers GET /api/prompts/{prompt_id}/evaluations: the
// prompt's evaluations (`docent eval`), newest first, each with its whole
// report.
type evaluationList struct {
	Evaluations []storage.Evaluation `json:"evaluations"`
}

func (s *Server) listEvaluations(w http.ResponseWriter, r *http.Request) {
	p, err := s.cfg.DB.FindPrompt(r.Context(), r.PathValue("prompt_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	evals, err := s.cfg.DB.ListEvaluations(r.Context(), p.PromptID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, evaluationList{Evaluations: evals})
}
