import type { DurableObjectOAuthClientProvider } from "agents";
import type { SealedSecret, SecretCipher } from "../../../core/secrets";

/** The object's storage as the SDK's provider takes it (named through the SDK, so builds without the Workers types read it too). */
type ProviderStorage = ConstructorParameters<typeof DurableObjectOAuthClientProvider>[0];

/**
 * Where the person's browser returns after authorising an agent's MCP server (the worker's public
 * route, workers/api/mcp-oauth.ts): the project and agent pick the object, the `state` the SDK wrote
 * picks the server, and only a state that object issued and has not used completes.
 */
export const mcpOAuthCallbackPath = (project: string, agent: string) =>
  `/api/oauth/mcp/${encodeURIComponent(project)}/${encodeURIComponent(agent)}/callback`;

/** A token set as it is kept: sealed with the deployment key, bound to the project and the key it is stored under. */
interface SealedTokens {
  pantheonSealed: Pick<SealedSecret, "name" | "iv" | "data">;
  /**
   * When the access token expires (ms since the epoch), from the set's `expires_in` as it was stored:
   * the SDK keeps only the relative lifetime, and a refresh before expiry needs the moment.
   */
  expiresAt?: number;
}
const isSealed = (value: unknown): value is SealedTokens =>
  typeof value === "object" && value !== null && "pantheonSealed" in value;

/**
 * The object's storage as the agents SDK's OAuth client provider (DurableObjectOAuthClientProvider)
 * sees it, with every token set (its keys end in `/token`: access and refresh tokens) sealed with
 * the deployment key for the project, as project secrets are: the SDK keeps client registration,
 * PKCE verifiers and `state` nonces as it does, and a copy of the object's storage holds no usable token.
 * @example
 * new DurableObjectOAuthClientProvider(sealedTokenStorage(ctx.storage, cipher, () => "acme"), name, callbackUrl);
 */
export function sealedTokenStorage(
  storage: ProviderStorage,
  cipher: () => Promise<SecretCipher>,
  project: () => string,
): ProviderStorage {
  const isToken = (key: unknown): key is string => typeof key === "string" && key.endsWith("/token");
  const get = async (key: string | string[]) => {
    if (Array.isArray(key)) return storage.get(key);
    const value = await storage.get(key);
    if (!isToken(key) || !isSealed(value)) return value;
    return JSON.parse(await (await cipher()).open(project(), value.pantheonSealed)) as unknown;
  };
  const put = async (key: string | Record<string, unknown>, value?: unknown) => {
    if (!isToken(key)) return storage.put(key as never, value as never);
    const sealed = await (await cipher()).seal(project(), key, JSON.stringify(value));
    const lifetime = (value as { expires_in?: unknown } | undefined)?.expires_in;
    return storage.put(key, {
      pantheonSealed: { name: sealed.name, iv: sealed.iv, data: sealed.data },
      ...(typeof lifetime === "number" && lifetime > 0 ? { expiresAt: Date.now() + lifetime * 1000 } : {}),
    } satisfies SealedTokens);
  };
  return new Proxy(storage, {
    get(target, property, receiver) {
      if (property === "get") return get;
      if (property === "put") return put;
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * When the token set stored under `key` (the SDK provider's `tokenKey`) expires, read without
 * opening it; undefined when there is none or it did not say.
 */
export async function tokenExpiresAt(
  storage: { get(key: string): Promise<unknown> },
  key: string,
): Promise<number | undefined> {
  const value = await storage.get(key);
  return isSealed(value) && typeof value.expiresAt === "number" ? value.expiresAt : undefined;
}
