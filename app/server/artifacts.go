package server

import (
	"context"
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

// versionedRoutes are the handlers schemas and prompts share: the list,
// one item, its deletion, its revisions and one revision. schemaRoutes and
// promptRoutes are its two instances; creating and updating, whose bodies
// differ, are each kind's own.
type versionedRoutes[R any] struct {
	// param names the item in the path ("schema_id"), revParam a revision
	// ("schema_revid").
	param, revParam string
	// list reads a page of latest revisions, with any filter of the kind's
	// beyond f.
	list          func(db *storage.DB, r *http.Request, f storage.ListFilter) ([]R, int, error)
	get, revision func(db *storage.DB, ctx context.Context, id string) (R, error)
	revisions     func(db *storage.DB, ctx context.Context, id string) ([]R, error)
	remove        func(db *storage.DB, ctx context.Context, id string) error
	idOf          func(R) string
	listBody      func(revs []R, total int) any
	revisionsBody func(revs []R) any
}

var schemaRoutes = versionedRoutes[storage.SchemaRevision]{
	param: "schema_id", revParam: "schema_revid",
	list: func(db *storage.DB, r *http.Request, f storage.ListFilter) ([]storage.SchemaRevision, int, error) {
		return db.ListSchemas(r.Context(), f)
	},
	get: (*storage.DB).GetSchema, revision: (*storage.DB).GetSchemaRevision,
	revisions: (*storage.DB).ListSchemaRevisions, remove: (*storage.DB).DeleteSchema,
	idOf: func(rev storage.SchemaRevision) string { return rev.SchemaID },
	listBody: func(revs []storage.SchemaRevision, total int) any {
		return schemaList{Schemas: revs, Total: total}
	},
	revisionsBody: func(revs []storage.SchemaRevision) any { return schemaRevisions{Revisions: revs} },
}

var promptRoutes = versionedRoutes[storage.PromptRevision]{
	param: "prompt_id", revParam: "prompt_revid",
	list: func(db *storage.DB, r *http.Request, f storage.ListFilter) ([]storage.PromptRevision, int, error) {
		return db.ListPrompts(r.Context(), storage.PromptFilter{
			Skip: f.Skip, Limit: f.Limit, NameSearch: f.NameSearch, TagIDs: listarg.Split(r.URL.Query()["tag_id"]),
		})
	},
	get: (*storage.DB).GetPrompt, revision: (*storage.DB).GetPromptRevision,
	revisions: (*storage.DB).ListPromptRevisions, remove: (*storage.DB).DeletePrompt,
	idOf: func(rev storage.PromptRevision) string { return rev.PromptID },
	listBody: func(revs []storage.PromptRevision, total int) any {
		return promptList{Prompts: revs, Total: total}
	},
	revisionsBody: func(revs []storage.PromptRevision) any { return promptRevisions{Revisions: revs} },
}

// reply writes v with status, or the error answer when err is not nil.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, status, v)
}

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

// listLatest answers GET /api/schemas and /api/prompts: the latest
// revision of each, a page at a time (limit, offset), by name (q).
func (v versionedRoutes[R]) listLatest(s *Server) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f, err := listPage(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		revs, total, err := v.list(s.cfg.DB, r, f)
		s.reply(w, r, http.StatusOK, v.listBody(nonNil(revs), total), err)
	}
}

// getLatest answers GET of one item: its latest revision.
func (v versionedRoutes[R]) getLatest(s *Server) http.HandlerFunc {
	return readRoute(s, v.param, v.get, asIs)
}

// getRevision answers GET of one revision by its id.
func (v versionedRoutes[R]) getRevision(s *Server) http.HandlerFunc {
	return readRoute(s, v.revParam, v.revision, asIs)
}

// listRevisions lists every version of an item, newest first, for a UI
// that shows its history (the routes of one revision are in the
// protocol's table).
func (v versionedRoutes[R]) listRevisions(s *Server) http.HandlerFunc {
	return readRoute(s, v.param, v.revisions, func(revs []R) any { return v.revisionsBody(nonNil(revs)) })
}

// delete deletes an item and answers with its latest revision as it was.
func (v versionedRoutes[R]) delete(s *Server) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rev, err := v.get(s.cfg.DB, r.Context(), r.PathValue(v.param))
		if err == nil {
			err = v.remove(s.cfg.DB, r.Context(), v.idOf(rev))
		}
		s.reply(w, r, http.StatusOK, rev, err)
	}
}

// readRoute answers a GET with what load reads for the path value param,
// as body puts it on the wire.
func readRoute[T any](s *Server, param string, load func(*storage.DB, context.Context, string) (T, error), body func(T) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := load(s.cfg.DB, r.Context(), r.PathValue(param))
		s.reply(w, r, http.StatusOK, body(v), err)
	}
}

func asIs[T any](v T) any { return v }

// nonNil is xs, or an empty slice for nil, so a list is [] on the wire.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// schemaList answers GET /api/schemas: the latest revision of each.
type schemaList struct {
	Schemas []storage.SchemaRevision `json:"schemas"`
	Total   int                      `json:"total"`
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
	s.reply(w, r, http.StatusCreated, res, err)
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
	s.reply(w, r, http.StatusOK, res, err)
}

// schemaRevisions answers GET /api/schemas/{schema_id}/revisions.
type schemaRevisions struct {
	Revisions []storage.SchemaRevision `json:"revisions"`
}

// promptList answers GET /api/prompts: the latest revision of each.
type promptList struct {
	Prompts []storage.PromptRevision `json:"prompts"`
	Total   int                      `json:"total"`
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
	s.reply(w, r, http.StatusCreated, rev, err)
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
	s.reply(w, r, http.StatusOK, promptUpdate{PromptRevision: rev, NoChanges: noChanges}, err)
}

// promptRevisions answers GET /api/prompts/{prompt_id}/revisions.
type promptRevisions struct {
	Revisions []storage.PromptRevision `json:"revisions"`
}

// tagList answers GET /api/tags.
type tagList struct {
	Tags []storage.Tag `json:"tags"`
}

func (s *Server) listTags(w http.ResponseWriter, r *http.Request) {
	tags, err := s.cfg.DB.ListTags(r.Context())
	s.reply(w, r, http.StatusOK, tagList{Tags: nonNil(tags)}, err)
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
	s.reply(w, r, http.StatusCreated, tag, err)
}

func (s *Server) getTag(w http.ResponseWriter, r *http.Request) {
	tag, err := s.cfg.DB.GetTag(r.Context(), r.PathValue("tag_id"))
	s.reply(w, r, http.StatusOK, tag, err)
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
	s.reply(w, r, http.StatusOK, tag, err)
}

// deleteTag refuses (409) while documents or prompts use the tag, as the
// store does; the message names them.
func (s *Server) deleteTag(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	tag, err := s.cfg.DB.GetTag(ctx, r.PathValue("tag_id"))
	if err == nil {
		err = s.cfg.DB.DeleteTag(ctx, tag.ID)
	}
	s.reply(w, r, http.StatusOK, tag, err)
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
	s.reply(w, r, http.StatusOK, evaluationList{Evaluations: evals}, err)
}
