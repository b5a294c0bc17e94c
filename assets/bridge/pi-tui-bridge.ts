// pi-tui's bridge: loaded by the user's pi (pi --mode rpc -e <this file>)
// when pi-tui runs it as its engine. It asks pi-tui, over the private
// channel named by PI_TUI_BRIDGE_SOCKET and PI_TUI_BRIDGE_TOKEN, for the
// system text (and, in plan mode, the tools pi offers), every tool call's
// fate, what a tool result carries, the remember tool and project trust.
// Without the channel it fails closed: every tool call is blocked. Node built-ins only; protocol in pi-tui's
// docs/adr/0046-pi-bridge.md.
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";

type Pending = { resolve: (v: any) => void; reject: (e: Error) => void };

const GONE = "pi-tui's host is gone";
const PI_PACKAGE = "@earendil-works/pi-coding-agent";

// piVersion is the version the running pi reads from its own package.json
// (PI_PACKAGE_DIR's, else the first one named PI_PACKAGE above pi's main
// script): pi-tui checks it against what `pi --version` said earlier for
// this executable. "" when it cannot be found.
const piVersion = (): string => {
  const version = (dir: string): string | undefined => {
    try {
      const p = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
      return p && (p.name === PI_PACKAGE || dir === process.env.PI_PACKAGE_DIR) && typeof p.version === "string" ? p.version : undefined;
    } catch { return undefined; }
  };
  try {
    if (process.env.PI_PACKAGE_DIR) return version(process.env.PI_PACKAGE_DIR) ?? "";
    let dir = path.dirname(fs.realpathSync(process.argv[1] ?? ""));
    for (let i = 0; i < 8; i++) {
      const v = version(dir);
      if (v !== undefined) return v;
      const up = path.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  } catch { /* unknown */ }
  return "";
};

export default async function (pi: any) {
  const socketPath = process.env.PI_TUI_BRIDGE_SOCKET;
  const token = process.env.PI_TUI_BRIDGE_TOKEN;
  let sock: net.Socket | undefined;
  let gone = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const fail = (why: string) => {
    if (gone) return;
    gone = true;
    process.stderr.write(`pi-tui bridge: ${why}; ${GONE}: tool calls are blocked\n`);
    for (const p of pending.values()) p.reject(new Error(GONE));
    pending.clear();
    sock?.destroy();
  };

  // idle lets node end once no request is waiting (see call below).
  const idle = () => { if (pending.size === 0) sock?.unref(); };

  const welcome: any = await new Promise((resolve) => {
    if (!socketPath || !token) {
      fail("no channel in the environment");
      resolve(null);
      return;
    }
    let welcomed = false;
    let buf = "";
    const timer = setTimeout(() => { fail("no welcome in 10 s"); resolve(null); }, 10000);
    sock = net.createConnection(socketPath);
    sock.setEncoding("utf8");
    sock.on("connect", () => {
      sock!.write(JSON.stringify({ type: "hello", token, protocol: 1, piVersion: piVersion(), pid: process.pid }) + "\n");
    });
    sock.on("data", (chunk: string) => {
      buf += chunk;
      let i: number;
      // Split on LF only: JSON may hold U+2028, which readline would split on.
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        let m: any;
        try { m = JSON.parse(line); } catch { fail("pi-tui sent a line that is not JSON"); return; }
        if (!welcomed) {
          clearTimeout(timer);
          if (m.type === "welcome") { welcomed = true; resolve(m); } else { fail(`refused: ${m.error ?? "no reason"}`); resolve(null); }
          continue;
        }
        const p = pending.get(m.id);
        if (!p) continue;
        pending.delete(m.id);
        idle();
        if (typeof m.error === "string") p.reject(new Error(m.error)); else p.resolve(m.result ?? {});
      }
    });
    sock.on("error", (e: Error) => { clearTimeout(timer); fail(e.message); resolve(null); });
    sock.on("close", () => { clearTimeout(timer); fail("the channel closed"); resolve(null); });
  });
  // The channel keeps node's event loop alive exactly while a request
  // waits for its answer: idle, it must not keep pi alive on its own (pi
  // -p exits when done); waiting, it must, or node ends the process under
  // a handler that awaits pi-tui (project_trust runs before pi has any
  // other handle open, and pi then exits 0 without a word).
  sock?.unref();

  const call = (method: string, params: unknown): Promise<any> => {
    if (gone || !sock) return Promise.reject(new Error(GONE));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      sock!.ref();
      sock!.write(JSON.stringify({ id, method, params }) + "\n");
    });
  };
  const leafOf = (ctx: any): string | undefined => {
    try { return ctx?.sessionManager?.getLeafId?.() ?? undefined; } catch { return undefined; }
  };
  // cwdOf is the folder pi works in (the session header's cwd, not the
  // process's): pi-tui refuses calls made in another folder than its root.
  const cwdOf = (ctx: any): string | undefined => {
    try { return typeof ctx?.cwd === "string" ? ctx.cwd : undefined; } catch { return undefined; }
  };

  pi.on("project_trust", async (event: any) => {
    try {
      const r = await call("trust", { cwd: event.cwd });
      return { trusted: r.trusted === "yes" ? "yes" : "no" };
    } catch {
      return { trusted: "no" };
    }
  });

  // readOnly says whether a tool's author marks it read-only (pi's
  // annotations.readOnlyHint, an MCP server's included): plan mode keeps it.
  const toolOf = (name: string): any => {
    try { return (pi.getAllTools?.() ?? []).find((x: any) => x?.name === name); } catch { return undefined; }
  };
  const readOnly = (name: string): boolean => toolOf(name)?.annotations?.readOnlyHint === true;
  // paramsOf lists a tool's arguments in its schema's order (pi's
  // parameters.properties): pi-tui shows a call's arguments by it.
  const paramsOf = (name: string): string[] => {
    const p = toolOf(name)?.parameters?.properties;
    return p && typeof p === "object" ? Object.keys(p) : [];
  };
  // Plan mode: the tools pi-tui's answer does not keep are hidden from the
  // model rather than deactivated. pi answers a call of an inactive tool
  // itself ("Tool write not found"); a hidden one is still active, so its
  // call reaches tool_call below, where pi-tui refuses it with plan mode's
  // sentence. pi asks an active tool's prepareLoadout which declarations to
  // hide, so while plan mode is on the bridge keeps PLAN_TOOL active (it
  // hides itself too; it is never offered). beforePlan holds pi's active
  // tools from before, put back when plan mode ends.
  const PLAN_TOOL = "pi_tui_plan_mode";
  let planHidden: string[] = [];
  let beforePlan: string[] | undefined;
  pi.registerTool({
    name: PLAN_TOOL, label: "pi-tui plan mode", description: "Not a tool: pi-tui uses it to hide the tools plan mode refuses.",
    parameters: { type: "object", properties: {} }, defaultActive: false,
    prepareLoadout: () => ({ hiddenDeclarations: [PLAN_TOOL, ...planHidden] }),
    async execute() { throw new Error("this is not a tool to call"); },
  });

  pi.on("before_agent_start", async (event: any) => {
    try {
      const active: string[] = beforePlan ?? (pi.getActiveTools?.() ?? []).filter((n: string) => n !== PLAN_TOOL);
      const r = await call("system", { tools: active.map((name) => ({ name, readOnly: readOnly(name), params: paramsOf(name) })) });
      if (r.plan === true && Array.isArray(r.tools)) {
        if (beforePlan === undefined) beforePlan = active;
        const keep: string[] = r.tools.map(String);
        const all = [...new Set([...active, ...keep])];
        planHidden = all.filter((n) => !keep.includes(n));
        pi.setActiveTools([...all, PLAN_TOOL]);
      } else if (r.plan !== true && beforePlan !== undefined) {
        planHidden = [];
        pi.setActiveTools(beforePlan);
        beforePlan = undefined;
      }
      if (typeof r.text === "string" && r.text !== "") return { systemPrompt: event.systemPrompt + "\n\n" + r.text };
    } catch { /* fails closed: nothing added, and every tool call is blocked */ }
    return undefined;
  });

  // What pi sends the model, for pi-tui's /context (docs/adr/0069): at
  // startup pi's own prompt and tools ("pending": nothing sent yet), then at
  // each model request the prompt pi sends (ctx.getSystemPrompt(): the one
  // every before_agent_start handler made) and the tools the request
  // declares, read from the provider's payload (pi's active tools when the
  // payload's shape is not one known here). Reported only when it changed,
  // and awaited, so the host has it before the model is asked.
  let lastSent = "";
  const report = async (sent: any) => {
    const line = JSON.stringify(sent);
    if (line === lastSent || gone || !sock) return;
    lastSent = line;
    try { await call("sent", sent); } catch { /* /context says it was not reported */ }
  };
  const activeTools = (): any[] => {
    try {
      const active = new Set((pi.getActiveTools?.() ?? []).filter((n: string) => n !== PLAN_TOOL && !planHidden.includes(n)));
      return (pi.getAllTools?.() ?? []).filter((t: any) => active.has(t?.name))
        .map((t: any) => ({ name: t.name, description: t.description ?? "", parameters: t.parameters ?? {} }));
    } catch { return []; }
  };
  const declaredTools = (payload: any): any[] => {
    const out: any[] = [];
    let found = false;
    const add = (name: any, description: any, parameters: any) => {
      if (typeof name === "string") out.push({ name, description: typeof description === "string" ? description : "", parameters: parameters ?? {} });
    };
    for (const list of [payload?.tools, payload?.config?.tools, payload?.toolConfig?.tools]) {
      if (!Array.isArray(list)) continue;
      found = true;
      for (const t of list) {
        if (Array.isArray(t?.functionDeclarations)) {
          for (const f of t.functionDeclarations) add(f?.name, f?.description, f?.parameters ?? f?.parametersJsonSchema);
        } else if (t?.toolSpec) {
          add(t.toolSpec.name, t.toolSpec.description, t.toolSpec.inputSchema?.json);
        } else {
          const f = t?.function ?? t;
          add(f?.name, f?.description, f?.parameters ?? f?.input_schema);
        }
      }
    }
    return found ? out : activeTools();
  };
  pi.on("session_start", async (_event: any, ctx: any) => {
    try { await report({ pending: true, systemPrompt: String(ctx?.getSystemPrompt?.() ?? ""), tools: activeTools() }); } catch { /* nothing to show */ }
  });
  pi.on("before_provider_request", async (event: any, ctx: any) => {
    try { await report({ systemPrompt: String(ctx?.getSystemPrompt?.() ?? ""), tools: declaredTools(event?.payload) }); } catch { /* nothing to show */ }
    return undefined;
  });

  pi.on("tool_call", async (event: any, ctx: any) => {
    try {
      const r = await call("tool_call", { toolCallId: event.toolCallId, toolName: event.toolName, input: event.input ?? {}, leafId: leafOf(ctx), readOnly: readOnly(event.toolName), params: paramsOf(event.toolName), cwd: cwdOf(ctx) });
      if (r.block) return { block: true, reason: String(r.reason ?? "blocked by pi-tui") };
      // A file of another folder of the project, written NAME:path: pi's
      // tool gets the path pi-tui confined it to (pi reads the input as
      // mutated, unchecked).
      if (typeof r.path === "string" && r.path !== "" && event.input && typeof event.input === "object") event.input.path = r.path;
      return undefined;
    } catch (e: any) {
      return { block: true, reason: e?.message === GONE ? GONE : `pi-tui could not decide this call: ${e?.message ?? e}` };
    }
  });

  pi.on("tool_result", async (event: any, ctx: any) => {
    let r: any;
    try {
      r = await call("tool_result", {
        toolCallId: event.toolCallId, toolName: event.toolName, input: event.input ?? {}, isError: !!event.isError,
        content: event.content ?? [], details: event.details, parentToolCallId: event.parentToolCallId, leafId: leafOf(ctx),
      });
    } catch {
      return undefined;
    }
    if (r.entry && typeof r.entry.customType === "string") pi.appendEntry(r.entry.customType, r.entry.data);
    if (typeof r.append === "string" && r.append !== "") return { content: [...(event.content ?? []), { type: "text", text: r.append }] };
    return undefined;
  });

  const tool = welcome?.remember ? welcome.rememberTool : undefined;
  if (tool && typeof tool.name === "string") {
    pi.registerTool({
      name: tool.name, label: "Remember", description: String(tool.description ?? ""), parameters: tool.parameters,
      async execute(toolCallId: string, params: unknown) {
        try {
          const r = await call("remember", { toolCallId, input: params ?? {} });
          if (r.isError) throw new Error(String(r.text));
          return { content: [{ type: "text", text: String(r.text) }], details: {} };
        } catch (e: any) {
          throw new Error(e?.message ?? String(e));
        }
      },
    });
  }
}
