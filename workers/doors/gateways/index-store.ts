import { registryStub } from "../../../durable-objects/stubs";

/**
 * The registry instance holding the cross-project index of configured gateways: what the public
 * routes (the Telegram webhook, the email handler) check before any agent's Durable Object is
 * reached, so an unknown or unconfigured address never wakes one. Not a valid project slug, so no
 * project's registry can be this one.
 */
export const gatewayIndexName = "__gateway-index";

export interface TelegramIndexEntry {
  /** SHA-256 (hex) of the webhook secret token. */
  secretHash: string;
  /** The project secret holding the bot token, and its keyed fingerprint (null when it could not be made): one bot, one agent. */
  botTokenSecret?: string;
  botFingerprint?: string | null;
}

export interface EmailIndexEntry {
  allowedSenders: string[];
}

type Kinds = { telegram: TelegramIndexEntry; email: EmailIndexEntry };

/**
 * @example
 * await gatewayIndex(env).put("telegram", "default", "scout", { secretHash });
 * const entry = await gatewayIndex(env).get("telegram", "default", "scout"); // null when not configured
 */
export function gatewayIndex(env: Env) {
  const stub = registryStub(env, gatewayIndexName);
  return {
    async get<K extends keyof Kinds>(kind: K, project: string, agent: string): Promise<Kinds[K] | null> {
      return (await stub.gatewayIndexGet(`${kind}/${project}/${agent}`)) as Kinds[K] | null;
    },
    put<K extends keyof Kinds>(kind: K, project: string, agent: string, entry: Kinds[K] | null): Promise<void> {
      return stub.gatewayIndexPut(`${kind}/${project}/${agent}`, entry as Record<string, unknown> | null);
    },
    /** Every configured gateway of a kind, in every project. */
    async list<K extends keyof Kinds>(kind: K): Promise<{ project: string; agent: string; entry: Kinds[K] }[]> {
      return (await stub.gatewayIndexList(`${kind}/`)).map(([key, entry]) => {
        const [, project = "", agent = ""] = key.split("/");
        return { project, agent, entry: entry as unknown as Kinds[K] };
      });
    },
  };
}

/** Drops an agent's entries from the gateway index (the agent was deleted). */
export async function forgetGateways(env: Env, project: string, agent: string): Promise<void> {
  await Promise.all([
    gatewayIndex(env).put("telegram", project, agent, null),
    gatewayIndex(env).put("email", project, agent, null),
  ]);
}
