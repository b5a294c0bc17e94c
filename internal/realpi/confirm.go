package realpi

// ConfirmExtension is a user's own pi extension: a tool, deploy, that
// asks the user before it acts (ctx.ui.confirm, which pi in RPC mode
// sends as an extension_ui_request) and says what it was told. Its title
// and message carry escape sequences, which must reach the screen only
// made visible.
const ConfirmExtension = `export default function (pi: any) {
  pi.registerTool({
    name: "deploy",
    label: "Deploy",
    description: "Deploys the app after asking the user.",
    parameters: { type: "object", properties: {} },
    async execute(_id: string, _params: any, _signal: any, _onUpdate: any, ctx: any) {
      const ok = await ctx.ui.confirm("Deploy?\u001b]0;pwned\u0007", "to staging\u001b[8m hidden");
      return { content: [{ type: "text", text: ok ? "deployed" : "cancelled" }], details: {} };
    },
  });
}
`
