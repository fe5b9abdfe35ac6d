import { describe, expect, it } from "vitest";
import { uniqueName } from "../api/client";
import { doubleUrl, eventually } from "../runs/scripted";
import { httpTool, listenerKey, listenerUrl, tenant } from "../secrets/helpers";

// A project's OTLP settings as its running agents see them: the loopback listener (test/doubles/exfil-server)
// stands in for each collector, recording every export under its own key.

type Tenant = Awaited<ReturnType<typeof tenant>>;

/** A collector double: the endpoint to set, and the spans that reached it (every export's). */
function collector() {
  const target = listenerKey();
  const endpoint = target.url.replace(/\/hook$/, "");
  const exports = async () => (await target.requests()) as unknown as { path: string; body: string }[];
  const spanNames = async () =>
    (await exports()).flatMap((r) =>
      (JSON.parse(r.body).resourceSpans as any[]).flatMap((rs) =>
        rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => s.name as string)),
      ),
    );
  return { endpoint, exports, spanNames };
}

/** An agent of `t` on the scripted double, with an HTTP tool naming `toolSecret` when given. */
async function agentOf(t: Tenant, toolSecret?: string) {
  const name = uniqueName("otel");
  const model = uniqueName("model");
  const runtime = toolSecret
    ? { allowHosts: [new URL(listenerUrl()).hostname], httpTools: [httpTool(listenerKey().url, toolSecret)] }
    : {};
  const created = await t.call("/api/agents", {
    method: "POST",
    json: { name, model: { provider: "openai", name: model }, runtime },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  return {
    name,
    send: async (content: string) => {
      const res = await t.call(`/api/agents/${name}/messages`, { method: "POST", json: { content } });
      return (await res.json()) as any;
    },
    script: (steps: unknown[]) =>
      fetch(`${doubleUrl()}/__script/${model}`, { method: "POST", body: JSON.stringify(steps) }),
    run: async (runId: string) => (await t.call(`/api/agents/${name}/runs/${runId}`)).text(),
  };
}

const invoked = (name: string) => `invoke_agent ${name}`;

describe("a project's OTLP endpoint reaches its running agents", () => {
  it("replaced, the next run's spans go to the new collector only; deleted, no collector gets any; set again, the next run's arrive (control)", async () => {
    const t = await tenant("otel-reach");
    const [first, second, third] = [collector(), collector(), collector()];
    expect((await t.setSecret("OTEL_EXPORTER_OTLP_ENDPOINT", first.endpoint)).status).toBe(200);
    const agent = await agentOf(t);
    expect((await agent.send("one")).status).toBe("completed");
    await eventually(
      first.spanNames,
      (names) => names.includes(invoked(agent.name)),
      "the first run at the first collector",
    );
    expect((await first.exports())[0]!.path).toMatch(/\/v1\/traces$/);

    expect((await t.setSecret("OTEL_EXPORTER_OTLP_ENDPOINT", second.endpoint)).status).toBe(200);
    expect((await agent.send("two")).status).toBe("completed");
    await eventually(second.spanNames, (names) => names.includes(invoked(agent.name)), "the second run at the second");
    expect(await first.exports()).toHaveLength(1);

    expect(
      (await t.call(`/api/projects/${t.slug}/secrets/OTEL_EXPORTER_OTLP_ENDPOINT`, { method: "DELETE" })).status,
    ).toBe(204);
    expect((await agent.send("three")).status).toBe("completed");
    // The control: a collector set after the deletion gets the fourth run. Exports go one after another,
    // so once it has, the third run would have reached the second collector already, had it been sent.
    expect((await t.setSecret("OTEL_EXPORTER_OTLP_ENDPOINT", third.endpoint)).status).toBe(200);
    const fourth = await agent.send("four");
    expect(fourth.status).toBe("completed");
    const names = await eventually(
      third.spanNames,
      (found) => found.includes(invoked(agent.name)),
      "the fourth run at the third collector",
    );
    expect(names.filter((n) => n === invoked(agent.name))).toHaveLength(1);
    expect(await first.exports()).toHaveLength(1);
    expect(await second.exports()).toHaveLength(1);
  });
});

describe("the OTLP header secret passes the agent's redactor like every other secret", () => {
  it("a model error quoting the header value and a tool secret is stored and exported with both [redacted]; the header still goes to the collector as a header", async () => {
    const t = await tenant("otel-red");
    const sink = collector();
    const headerValue = `hdr-${crypto.randomUUID()}`;
    const toolValue = `tool-${crypto.randomUUID()}`;
    expect((await t.setSecret("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint)).status).toBe(200);
    expect((await t.setSecret("OTEL_EXPORTER_OTLP_HEADERS", `x-team=${headerValue}`)).status).toBe(200);
    expect((await t.setSecret("NOTES_KEY", toolValue)).status).toBe(200);
    const agent = await agentOf(t, "NOTES_KEY");
    // Warm: the agent's secrets, tool set and model are cached before the failing turn.
    expect((await agent.send("one")).status).toBe("completed");
    await agent.script([{ status: 400, error: `bad request: header ${headerValue} and key ${toolValue}` }]);
    const failed = await agent.send("two");
    expect(failed.status).toBe("failed");

    const run = await agent.run(failed.runId);
    expect(run).toContain("bad request: header [redacted] and key [redacted]");
    expect(run).not.toContain(headerValue);
    expect(run).not.toContain(toolValue);
    expect(JSON.stringify(failed)).not.toContain(headerValue);

    const exports = await eventually(
      sink.exports,
      (found) => found.some((r) => r.body.includes(failed.runId.slice(0, 8)) || r.body.includes("[redacted]")),
      "the failed run's spans at the collector",
    );
    const bodies = exports.map((r) => r.body).join("\n");
    expect(bodies).toContain("bad request: header [redacted] and key [redacted]");
    expect(bodies).not.toContain(headerValue);
    expect(bodies).not.toContain(toolValue);
    const headers = (await sink.exports()).map((r) => (r as unknown as { headers: Record<string, string> }).headers);
    expect(headers.every((h) => h["x-team"] === headerValue)).toBe(true);
  });

  it("a replaced header is the one redacted and sent from the next run on", async () => {
    const t = await tenant("otel-hdr");
    const sink = collector();
    const [oldValue, newValue] = [`old-${crypto.randomUUID()}`, `new-${crypto.randomUUID()}`];
    expect((await t.setSecret("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint)).status).toBe(200);
    expect((await t.setSecret("OTEL_EXPORTER_OTLP_HEADERS", `x-team=${oldValue}`)).status).toBe(200);
    const agent = await agentOf(t);
    expect((await agent.send("one")).status).toBe("completed");
    await eventually(sink.exports, (found) => found.length === 1, "the first export");

    expect((await t.setSecret("OTEL_EXPORTER_OTLP_HEADERS", `x-team=${newValue}`)).status).toBe(200);
    await agent.script([{ status: 400, error: `echo ${newValue}` }]);
    const failed = await agent.send("two");
    expect(await agent.run(failed.runId)).toContain("echo [redacted]");
    const exports = await eventually(sink.exports, (found) => found.length === 2, "the second export");
    const sent = exports.map((r) => (r as unknown as { headers: Record<string, string> }).headers["x-team"]);
    expect(sent).toEqual([oldValue, newValue]);
    expect(exports[1]!.body).not.toContain(newValue);
  });
});
