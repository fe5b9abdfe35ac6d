import { deployFix, type DoctorCheck, type DoctorFacts } from "./facts";

/** The Durable Objects, the queues, Vectorize and the embedder, Workers AI: bound or not, and matching. */
export function bindingChecks(facts: DoctorFacts): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const prod = facts.deployment === "production";
  const add = (check: DoctorCheck) => checks.push(check);
  const tomlBinding = (what: string) =>
    `add ${what} to wrangler.toml (${prod ? "[env.production]" : "top level"}), then ${prod ? deployFix : "restart npm start"}`;

  // Durable Objects and queues.
  add(
    facts.bindings.AGENT_DO
      ? { id: "binding:AGENT_DO", area: "durable-objects", status: "ok", message: "AGENT_DO (AgentDO) is bound" }
      : {
          id: "binding:AGENT_DO",
          area: "durable-objects",
          status: "problem",
          message: "AGENT_DO is not bound: no agent can run",
          fix: tomlBinding('a durable_objects binding name = "AGENT_DO", class_name = "AgentDO"'),
        },
  );
  add(
    !facts.bindings.REGISTRY
      ? {
          id: "binding:REGISTRY",
          area: "durable-objects",
          status: "problem",
          message: "REGISTRY is not bound: no project can be read",
          fix: tomlBinding('a durable_objects binding name = "REGISTRY", class_name = "RegistryDO"'),
        }
      : facts.registry.ok
        ? {
            id: "binding:REGISTRY",
            area: "durable-objects",
            status: "ok",
            message: "REGISTRY (RegistryDO) is bound and answers",
          }
        : {
            id: "binding:REGISTRY",
            area: "durable-objects",
            status: "problem",
            message: `REGISTRY is bound but did not answer: ${facts.registry.error}`,
            fix: deployFix,
          },
  );
  add(
    facts.bindings.BUS
      ? { id: "queue:BUS", area: "queues", status: "ok", message: "BUS (queue pantheon-bus) is bound" }
      : {
          id: "queue:BUS",
          area: "queues",
          status: "problem",
          message: "BUS is not bound: agents cannot ask each other",
          fix: `npx wrangler queues create pantheon-bus, and ${tomlBinding('a queues producer binding = "BUS", queue = "pantheon-bus"')}`,
        },
  );
  add({
    id: "queue:DLQ",
    area: "queues",
    status: facts.deadLetters > 0 ? "warn" : "ok",
    message: `the dead-letter queue pantheon-bus-dlq is configured at deploy time (wrangler.toml consumer), which a worker cannot observe; ${facts.deadLetters} dead letter(s) recorded in this project`,
    ...(facts.deadLetters > 0
      ? { fix: "GET /api/bus lists them; each asker was told" }
      : { fix: "npx wrangler queues create pantheon-bus-dlq (once, before the first deploy)" }),
  });

  // Vectorize and the embedder.
  const dims = facts.embedder.dimensions;
  const createIndex = `npx wrangler vectorize create pantheon-memory --dimensions=${dims} --metric=cosine`;
  if (!facts.bindings.VECTORIZE) {
    add(
      prod
        ? {
            id: "vectorize",
            area: "vectorize",
            status: "problem",
            message: "VECTORIZE is not bound: memories fall back to each agent's SQLite index",
            fix: `${createIndex}, and add [[env.production.vectorize]] binding = "VECTORIZE", index_name = "pantheon-memory"`,
          }
        : {
            id: "vectorize",
            area: "vectorize",
            status: "ok",
            message: "local: memories use each agent's SQLite vector index (Vectorize exists only in production)",
          },
    );
  } else if (facts.vectorize && "error" in facts.vectorize) {
    add({
      id: "vectorize",
      area: "vectorize",
      status: "problem",
      message: `VECTORIZE is bound but could not be described: ${facts.vectorize.error}`,
      fix: createIndex,
    });
  } else {
    const indexDims = facts.vectorize?.dimensions ?? null;
    add(
      indexDims === null || indexDims === dims
        ? {
            id: "vectorize",
            area: "vectorize",
            status: "ok",
            message: `VECTORIZE is bound${indexDims === null ? "" : `, ${indexDims} dimensions`}, matching the embedder ${facts.embedder.model} (${dims})`,
          }
        : {
            id: "vectorize",
            area: "vectorize",
            status: "problem",
            message: `the Vectorize index has ${indexDims} dimensions but the embedder ${facts.embedder.model} makes ${dims}: upserts will fail`,
            fix: `${createIndex.replace("pantheon-memory", `pantheon-memory-${dims}`)}, point index_name at it, redeploy, then POST /api/agents/<name>/memories/reembed`,
          },
    );
  }
  if (prod && facts.embedder.model.startsWith("hashed")) {
    add({
      id: "embedder",
      area: "vectorize",
      status: "warn",
      message: "memories are embedded by the hashed embedder (words only, no meaning)",
      fix: 'bind Workers AI ([env.production.ai] binding = "AI") or set EMBEDDINGS_BASE_URL',
    });
  }

  // Workers AI.
  const aiUsers = facts.agents
    .filter((a) => a.model.provider === "workers-ai" || a.model.fallback?.provider === "workers-ai")
    .map((a) => a.name);
  add(
    facts.bindings.AI
      ? { id: "binding:AI", area: "workers-ai", status: "ok", message: "AI (Workers AI) is bound" }
      : !prod
        ? {
            id: "binding:AI",
            area: "workers-ai",
            status: aiUsers.length ? "warn" : "ok",
            message: `local: Workers AI is not bound (production only)${aiUsers.length ? `; ${aiUsers.join(", ")} ask for it` : ""}`,
          }
        : {
            id: "binding:AI",
            area: "workers-ai",
            status: aiUsers.length ? "problem" : "warn",
            message: `AI is not bound${aiUsers.length ? `: ${aiUsers.join(", ")} ask for workers-ai` : ""}`,
            fix: 'add [env.production.ai] binding = "AI" to wrangler.toml, then npm run deploy',
          },
  );
  return checks;
}
