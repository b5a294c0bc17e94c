package agent

import "context"

// runTool executes a tool confined to root as a call without approval
// would: files that run on use are refused.
func runTool(ctx context.Context, root string, call ToolCall) ToolResult {
	return toolEnv{root: root}.run(ctx, call)
}
