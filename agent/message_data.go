package agent

import "encoding/json"

// MessageData is the metadata a turn stores with each message of a thread
// (storage.ThreadMessage.Data, `data` of the thread API's messages): the
// round, the tokens, the approvals and the arguments, which the transcript
// of `docent threads` and the web UI's reopened threads read. Threads in
// existing databases hold these JSON names; they must not change. Which
// fields a message has depends on its role:
//
//   - user: mentions, when the message had any;
//   - assistant: round_index, usage, and how the round's model call went
//     (model, thinking_ms, first_token_ms, tokens_per_second,
//     output_truncated), so that a reopened thread shows what the live
//     turn showed; a paused round's also turn_id and needs_approval;
//   - tool: round_index, proposed_arguments, summary, success, and
//     arguments when the call ran (edited when they differ from the
//     proposed ones) or rejected when it did not.
type MessageData struct {
	// RoundIndex is `round_index`: the round of the turn the message
	// belongs to, 0-based.
	RoundIndex *int `json:"round_index,omitempty"`
	// Usage is `usage`: the tokens of the round's model call.
	Usage *Usage `json:"usage,omitempty"`
	// Model is `model`: the provider-prefixed model of the round.
	Model string `json:"model,omitempty"`
	// ThinkingMS is `thinking_ms`: how long the round's model thought,
	// from its first thinking token to its last.
	ThinkingMS int64 `json:"thinking_ms,omitempty"`
	// Speed is `first_token_ms` and `tokens_per_second`, when the round's
	// model call streamed.
	Speed
	// OutputTruncated is `output_truncated`: the model server stopped the
	// round's answer at its output limit, as the usage event said.
	OutputTruncated *OutputTruncation `json:"output_truncated,omitempty"`
	// TurnID is `turn_id`: the paused turn that approve continues, on the
	// assistant message whose calls wait for approval.
	TurnID string `json:"turn_id,omitempty"`
	// NeedsApproval is `needs_approval`: the ids of the calls that wait.
	NeedsApproval []string `json:"needs_approval,omitempty"`
	// ProposedArguments is `proposed_arguments`: the arguments the model
	// proposed for the call.
	ProposedArguments json.RawMessage `json:"proposed_arguments,omitempty"`
	// Arguments is `arguments`: the arguments the call ran with; absent
	// when it did not run.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Edited is `edited`: the user changed the arguments before approving.
	Edited bool `json:"edited,omitempty"`
	// Rejected is `rejected`: the user rejected the call; it did not run.
	Rejected bool `json:"rejected,omitempty"`
	// Success is `success`: whether the call succeeded.
	Success *bool `json:"success,omitempty"`
	// Summary is `summary`: what the call will do, for people, as the
	// user was shown it when it was proposed (on tool messages).
	Summary *Summary `json:"summary,omitempty"`
	// Mentions is `mentions`: what the user @-mentioned in the message.
	Mentions []Mention `json:"mentions,omitempty"`
	// Citations is `citations`: on a tool message, what its result's
	// `cite` numbers stand for; on a final answer, what the answer cites
	// as [n], in order of n.
	Citations []Citation `json:"citations,omitempty"`
	// UnknownCitations is `unknown_citations`: on a final answer, the
	// numbers it cites that the thread never produced.
	UnknownCitations []int `json:"unknown_citations,omitempty"`
	// TurnUsage is `turn_usage`: on a turn's final answer, the turn's
	// result.usage (its rounds' tokens and what every call it made cost),
	// so that the thread reopened later shows the footer the live turn
	// showed.
	TurnUsage *TurnUsage `json:"turn_usage,omitempty"`
}

// ParseMessageData reads a stored message's data; empty or malformed data
// reads as no metadata (it is optional, and old threads may lack fields).
func ParseMessageData(raw json.RawMessage) MessageData {
	var d MessageData
	_ = json.Unmarshal(raw, &d)
	return d
}
