// `pantheon providers list | show | set | delete`: the current project's named model providers
// (admin): an OpenAI-compatible server (OpenRouter, Groq, DeepSeek, Ollama, vLLM…) or OpenAI/Anthropic
// at a URL, whose key is one of the project's secrets, named here by its name only. Agents then name
// its models `<provider>/<model>` (`groq/llama-3.1-70b`), alone or in a cascade.
import { UsageError } from "../client.ts";
import { text, type Command, type Context } from "../command.ts";
import { printJson, table } from "../format.ts";
import { need } from "../arguments.ts";

interface ProviderView {
  name: string;
  kind: string;
  baseUrl: string;
  keySecret?: string;
}

const current = (context: Context) => text(context.values, "project") ?? context.config.project ?? "default";
const providersPath = (slug: string) => `/api/projects/${encodeURIComponent(slug)}/providers`;
const kinds = ["openai-compatible", "openai", "anthropic"];

export const providers: Command = {
  name: "providers",
  summary: "the project's named model providers (OpenAI-compatible base URL + a project secret as key)",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "the project's providers: name, kind, base URL and the secret its key is in (never a value)",
      usage: [""],
      async run(context) {
        const slug = current(context);
        const body = await context.client.request<{ providers: ProviderView[] }>("GET", providersPath(slug));
        if (context.json) return printJson(body);
        if (!body.providers.length)
          return console.log(
            `Project ${slug} names no providers. Add one with: pantheon providers set <name> --base-url <url> [--key-secret <SECRET>]`,
          );
        console.log(
          table(
            ["NAME", "KIND", "BASE URL", "KEY SECRET"],
            body.providers.map((p) => [p.name, p.kind, p.baseUrl, p.keySecret ?? "(none)"]),
          ),
        );
      },
    },
    {
      name: "show",
      summary: "one provider",
      usage: ["<name>"],
      async run(context) {
        const name = need(context.args, 0, "provider's name", "providers");
        const { provider } = await context.client.request<{ provider: ProviderView }>(
          "GET",
          `${providersPath(current(context))}/${encodeURIComponent(name)}`,
        );
        if (context.json) return printJson({ provider });
        console.log(
          `${provider.name}: ${provider.kind} at ${provider.baseUrl}, key in ${provider.keySecret ?? "(no key)"}`,
        );
      },
    },
    {
      name: "set",
      summary: "add or change a provider (its key: set the secret first with pantheon secrets set <SECRET>)",
      usage: ["<name> --base-url <url> [--key-secret <SECRET>] [--kind openai-compatible|openai|anthropic]"],
      options: {
        "base-url": { type: "string", help: "the provider's API base URL, e.g. https://api.groq.com/openai/v1" },
        "key-secret": { type: "string", help: "the project secret holding its API key (its name, e.g. GROQ_API_KEY)" },
        kind: { type: "string", help: `the API it speaks: ${kinds.join(", ")} (default openai-compatible)` },
      },
      async run(context) {
        const name = need(context.args, 0, "provider's name (a lower-case slug, e.g. groq)", "providers");
        const baseUrl = text(context.values, "base-url");
        if (!baseUrl)
          throw new UsageError(
            "--base-url is required: the provider's API base URL, e.g. https://api.groq.com/openai/v1",
            "providers",
          );
        const kind = text(context.values, "kind");
        const keySecret = text(context.values, "key-secret");
        const slug = current(context);
        const body = await context.client.request<{ provider: ProviderView; agents: string[] }>(
          "PUT",
          `${providersPath(slug)}/${encodeURIComponent(name)}`,
          {
            json: { baseUrl, ...(kind ? { kind } : {}), ...(keySecret ? { keySecret } : {}) },
          },
        );
        if (context.json) return printJson(body);
        const users = body.agents.length ? ` Agents using it now: ${body.agents.join(", ")}.` : "";
        console.log(
          `Set provider ${body.provider.name} in project ${slug} (${body.provider.kind} at ${body.provider.baseUrl}${body.provider.keySecret ? `, key in ${body.provider.keySecret}` : ""}). Agents name its models ${body.provider.name}/<model>.${users}`,
        );
      },
    },
    {
      name: "delete",
      summary: "delete a provider (refused while an agent's model names it)",
      usage: ["<name>"],
      async run(context) {
        const name = need(context.args, 0, "provider's name", "providers");
        const slug = current(context);
        await context.client.request("DELETE", `${providersPath(slug)}/${encodeURIComponent(name)}`);
        if (context.json) return printJson({ deleted: name, project: slug });
        console.log(`Deleted provider ${name} from project ${slug}.`);
      },
    },
  ],
};
