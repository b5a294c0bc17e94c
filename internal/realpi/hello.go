package realpi

// HelloExtension is a user's own pi extension: one tool, hello, that
// answers a fixed text.
const HelloExtension = `export default function (pi: any) {
  pi.registerTool({
    name: "hello",
    label: "Hello",
    description: "Says hello from the user's extension.",
    parameters: { type: "object", properties: {} },
    async execute() {
      return { content: [{ type: "text", text: "HELLO-FROM-THE-USER-EXTENSION" }], details: {} };
    },
  });
}
`
