package server

import (
	"reflect"
	"slices"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/app/inbox"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/storage"
)

// The web UI's TypeScript types of this API are generated from the types
// below and the routes' contracts (frontend/src/api/api.gen.ts and
// routes.gen.ts, written by app/internal/tsgen); a test there fails while
// a file is stale.
//
//go:generate go run ../internal/tsgen

// WireTypes are the JSON bodies of the HTTP API's answers: what a handler
// writes, and what they hold is reached from here.
func WireTypes() []reflect.Type {
	return []reflect.Type{
		reflect.TypeFor[healthResponse](),
		reflect.TypeFor[errorResponse](),
		reflect.TypeFor[documentList](),
		reflect.TypeFor[documentText](),
		reflect.TypeFor[uploadReport](),
		reflect.TypeFor[schemaList](),
		reflect.TypeFor[schemaRevisions](),
		reflect.TypeFor[promptList](),
		reflect.TypeFor[promptUpdate](),
		reflect.TypeFor[promptRevisions](),
		reflect.TypeFor[tagList](),
		reflect.TypeFor[evaluationList](),
		reflect.TypeFor[extractionList](),
		reflect.TypeFor[searchResult](),
		reflect.TypeFor[searchStatus](),
		reflect.TypeFor[toolList](),
		reflect.TypeFor[modelList](),
		reflect.TypeFor[threadList](),
		reflect.TypeFor[threadCreated](),
		reflect.TypeFor[ThreadWithMessages](),
		reflect.TypeFor[schemaRows](),
		reflect.TypeFor[rerunReport](),
		reflect.TypeFor[acceptReport](),
		reflect.TypeFor[kindChanged](),
		reflect.TypeFor[pageList](),
		reflect.TypeFor[storage.PageWords](),
		reflect.TypeFor[ocrSettings](),
		reflect.TypeFor[mcpSettings](),
		reflect.TypeFor[settings.View](),
		reflect.TypeFor[settingsTest](),
		reflect.TypeFor[settings.Status](),
		reflect.TypeFor[historyList](),
		reflect.TypeFor[storage.UndoResult](),
		reflect.TypeFor[historySettings](),
		reflect.TypeFor[usageReport](),
		reflect.TypeFor[storage.UsageStatus](),
		reflect.TypeFor[agent.PriceReport](),
		reflect.TypeFor[autoCreateEstimate](),
		reflect.TypeFor[inboxActivity](),
		reflect.TypeFor[inbox.Settings](),
		reflect.TypeFor[rowEvent](),
	}
}

// RequestTypes are the JSON bodies of the HTTP API's requests.
func RequestTypes() []reflect.Type {
	return []reflect.Type{
		reflect.TypeFor[documentPatch](),
		reflect.TypeFor[documentPassword](),
		reflect.TypeFor[kindChange](),
		reflect.TypeFor[schemaBody](),
		reflect.TypeFor[promptBody](),
		reflect.TypeFor[tagBody](),
		reflect.TypeFor[extractionRun](),
		reflect.TypeFor[fieldPatch](),
		reflect.TypeFor[chatBody](),
		reflect.TypeFor[approveBody](),
		reflect.TypeFor[askBody](),
		reflect.TypeFor[threadBody](),
		reflect.TypeFor[rerunBody](),
		reflect.TypeFor[acceptBody](),
		reflect.TypeFor[autoCreateBody](),
		reflect.TypeFor[ocrSettingsBody](),
		reflect.TypeFor[mcpSettingsBody](),
		reflect.TypeFor[settings.Patch](),
		reflect.TypeFor[undoBody](),
		reflect.TypeFor[historySettingsBody](),
		reflect.TypeFor[usageLimitsBody](),
		reflect.TypeFor[usagePricesBody](),
		reflect.TypeFor[autoCreateEstimateBody](),
		reflect.TypeFor[inboxSettingsBody](),
	}
}

// ErrorCodes are the codes an error answer's `code` can hold, sorted: the
// domain's (package fault), this layer's and the model providers' kinds,
// each with its status in statusOf.
func ErrorCodes() []string {
	var codes []string
	for c := range statusOf {
		codes = append(codes, string(c))
	}
	slices.Sort(codes)
	return codes
}
