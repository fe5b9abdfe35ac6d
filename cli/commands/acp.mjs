// `pantheon acp <agent>`: the agent as an ACP (Agent Client Protocol) agent on stdin/stdout.
// The bridge is TypeScript (cli/acp/agent.ts), loaded through Node's own type stripping.
import { Readable, Writable } from "node:stream";
import { resolveConfig, UsageError } from "../client.mjs";

export const acp = {
  name: "acp",
  summary: "serve an agent over ACP (Agent Client Protocol) on stdin/stdout, for editors such as Zed",
  usage: ["pantheon acp <agent>", 'Zed settings.json: "agent_servers": { "Pantheon": { "command": "pantheon", "args": ["acp", "<agent>"] } }'],
  options: {},
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ args, values }) {
    const [agent] = args;
    if (!agent) throw new UsageError("name the agent to serve over ACP", "acp");
    /** @type {typeof import("../acp/agent.ts")} */
    let bridge;
    try {
      bridge = await import("../acp/agent.ts");
    } catch (error) {
      if (error?.code === "ERR_UNKNOWN_FILE_EXTENSION") throw new UsageError(`pantheon acp needs Node 22.18 or newer (it runs TypeScript by type stripping); this is ${process.version}`, "acp");
      // Node strips types only outside node_modules: an installed copy needs a built bridge.
      if (error?.code === "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING") throw new UsageError("pantheon acp runs from a checkout of Pantheon (Node does not strip types inside node_modules)", "acp");
      throw error;
    }
    const config = resolveConfig(/** @type {{ url?: string, token?: string, project?: string }} */ (values));
    await bridge.runAcpAgent({
      ...config,
      agent,
      input: /** @type {ReadableStream<Uint8Array>} */ (/** @type {unknown} */ (Readable.toWeb(process.stdin))),
      output: /** @type {WritableStream<Uint8Array>} */ (/** @type {unknown} */ (Writable.toWeb(process.stdout))),
      log: (line) => process.stderr.write(`${line}\n`),
    });
  },
};
