// `pantheon acp <agent>`: the agent as an ACP (Agent Client Protocol) agent on stdin/stdout, for
// editors such as Zed. The bridge is workers/doors/acp/agent.ts (pure: core/ and the ACP SDK only); this is its place in the command table.
import { Readable, Writable } from "node:stream";
import { UsageError } from "../client.ts";
import type { Command } from "../command.ts";
import { runAcpAgent } from "../../workers/doors/acp/agent.ts";

export const acp: Command = {
  name: "acp",
  summary: "serve an agent over ACP (Agent Client Protocol) on stdin/stdout, for editors such as Zed",
  actions: [
    {
      name: "",
      summary: "serve an agent over ACP (Agent Client Protocol) on stdin/stdout, for editors such as Zed",
      usage: [
        "<agent>",
        'Zed settings.json: "agent_servers": { "Pantheon": { "command": "pantheon", "args": ["acp", "<agent>"] } }',
      ],
      async run({ config, args }) {
        const [agent] = args;
        if (!agent) throw new UsageError("name the agent to serve over ACP", "acp");
        await runAcpAgent({
          url: config.url,
          ...(config.token ? { token: config.token } : {}),
          ...(config.project ? { project: config.project } : {}),
          agent,
          input: Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
          output: Writable.toWeb(process.stdout) as unknown as WritableStream<Uint8Array>,
          log: (line) => process.stderr.write(`${line}\n`),
        });
      },
    },
  ],
};
