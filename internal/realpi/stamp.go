package realpi

// StampExtension is a project's own pi extension (.pi/extensions): one
// tool, stamp, with one argument, that answers a fixed text.
const StampExtension = `export default function (pi: any) {
  pi.registerTool({
    name: "stamp",
    label: "Stamp",
    description: "Stamps a label, from the project's own extension.",
    parameters: { type: "object", properties: { label: { type: "string" }, times: { type: "number" } }, required: ["label"] },
    async execute(_id: string, params: any) {
      return { content: [{ type: "text", text: "STAMPED-" + params.label }], details: {} };
    },
  });
}
`
