// AG-UI over HTTP: `POST /agui/agents/:name` takes a RunAgentInput and streams AG-UI events (SSE,
// or AG-UI's protobuf framing when the client asks for it). The mapping is core/protocols/agui.ts;
// the run is ./agui-run.ts, loaded by the first request: AG-UI's packages (their zod schemas and the
// protobuf encoder) are not evaluated at the worker's startup.
import { Hono } from "hono";
import { z } from "zod";
import { unknownAgent } from "../../../core/errors";
import { registryStub } from "../../../durable-objects/stubs";
import { nameParam } from "../../api/agents";
import type { AppEnv } from "../../env";
import { notFound } from "../../errors";
import { valid } from "../../validation";
import { door } from "../door";
import { lazySchema } from "../../../core/lazy-schema";
import { maxInlineImageBodyBytes } from "../../images/message-parts";

/**
 * Request bodies above this answer 413 (8 MiB). Larger than the API's 64 KiB: an AG-UI client sends the
 * whole conversation with every turn (only its newest user message is read, at most 32,000 characters)
 * and its images inline (each at most 5 MiB).
 */
export const maxAguiBodyBytes = maxInlineImageBodyBytes;

let aguiRun: Promise<typeof import("./run")> | undefined;

const aguiBody = lazySchema(() => z.record(z.string(), z.unknown()));

/**
 * `/agui`: each agent of the project as an AG-UI agent (`@ag-ui/client`'s HttpAgent, CopilotKit, …).
 * Same bearer tokens and project header as `/api`; a chat token runs turns, answering an approval
 * interrupt needs `approve`. Errors before the stream starts are the API's JSON errors (4xx); a run
 * that fails is a RUN_ERROR event.
 * @example
 * const agent = new HttpAgent({ url: "https://pantheon.example.workers.dev/agui/agents/scout", headers: { authorization: `Bearer ${token}` } });
 * await agent.runAgent(); // after agent.addMessage({ id: "1", role: "user", content: "hello" })
 */
export const aguiRoutes = new Hono<AppEnv>()
  .use("*", door("chat", { path: "/agui", maxBodyBytes: maxAguiBodyBytes }))
  .post("/agents/:name", valid("param", nameParam), valid("json", aguiBody), async (c) => {
    const { name } = c.req.valid("param");
    if (!(await registryStub(c.env, c.get("project")).getAgent(name)).ok) throw unknownAgent(name, c.get("project"));
    return (await (aguiRun ??= import("./run"))).handleAgui(c, name, c.req.valid("json"));
  })
  .all("*", notFound);
