package settings

import (
	"context"
	"log/slog"

	"github.com/docent/docent/storage"
)

// SettingMCPReadOnly is the stored switch (Settings, "MCP clients may only
// read") that makes `docent --serve`'s /mcp list and run only the
// read-only tools. `docent mcp` has its own flag, --read-only.
const SettingMCPReadOnly = "mcp_read_only"

// MCPReadOnly reports whether /mcp is read-only. A switch that cannot be
// read counts as on: a client then loses its writes, not the user their
// documents.
func MCPReadOnly(ctx context.Context, db *storage.DB, logger *slog.Logger) bool {
	on := false
	if _, err := db.GetSetting(ctx, SettingMCPReadOnly, &on); err != nil {
		if ctx.Err() == nil { // not a request that ended
			logger.WarnContext(ctx, "read the MCP read-only switch; taking it as on", "err", err)
		}
		return true
	}
	return on
}

// SetMCPReadOnly saves the switch; it applies to the next call.
func SetMCPReadOnly(ctx context.Context, db *storage.DB, on bool) error {
	return db.SetSetting(ctx, SettingMCPReadOnly, on)
}
