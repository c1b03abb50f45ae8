package server

import "net/http"

// getSetup answers GET /api/setup: the first-run state of the provider
// configuration in effect, for the Settings page and the composer, which is
// disabled while nothing usable is set. It asks the providers anew on each
// call (within 10 s; one that does not answer is reported unreachable) and
// saves nothing. The answer (settings.Status):
//
//	{
//	  "ollama": {"host": "http://127.0.0.1:11434", "reachable": true, "error": "", "version": "0.17.4"},
//	  "openai": {"url": "https://api.openai.com/v1", "configured": false, "reachable": false, "error": ""},
//	  "models": [{"id": "ollama/qwen3:8b", "provider": "ollama",
//	              "capabilities": ["completion", "tools", "thinking"], "context_length": 40960,
//	              "recommended_for": ["agent", "extraction"]}],
//	  "default_model": "", "default_model_source": "default",
//	  "recommended": {"agent": "ollama/qwen3:8b", "extraction": "ollama/qwen3:8b"},
//	  "usable": false,
//	  "reason": "no default model is chosen: choose ollama/qwen3:8b in Settings",
//	  "next_steps": [{"kind": "choose_default", "text": "Choose ollama/qwen3:8b as the default model: ..."}],
//	  "pull_command": "ollama pull qwen3:8b",
//	  "pull_suggestions": [{"model": "qwen3:8b", "command": "ollama pull qwen3:8b", "memory": "16 GB of RAM"}, ...]
//	}
//
// ollama.error says why Ollama could not be asked, with the cause
// ("connection refused"); usable is true when the default model is set,
// offered and can chat; reason (when not usable) is one line, commands in
// backticks; next_steps are in order, each with a kind (start_ollama,
// install_ollama, fix_ollama_host, pull_model, choose_default, use_openai,
// fix_openai, no_tools), a text and, where one helps, the command to copy
// and the page to open. Without saved settings the route answers 503.
func (s *Server) getSetup(w http.ResponseWriter, r *http.Request) {
	if !s.needSettings(w, r) {
		return
	}
	st, err := s.cfg.Settings.Status(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
