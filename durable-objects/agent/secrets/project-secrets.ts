import {
  implicitGrant,
  makeSecretCipher,
  readDeploymentSecret,
  type SealedSecret,
  type SecretUse,
} from "../../../core/secrets";

/** What the agent asks of its project's registry: the sealed values of the names it uses, and which are grants. */
export interface SealedSource {
  secretsSealed(names: string[]): Promise<{ sealed: Omit<SealedSecret, "fingerprint">[]; granted: string[] }>;
}

export interface ProjectSecretsDeps {
  project(): string;
  env: Env;
  registry(): SealedSource;
}

/**
 * The secret values this agent uses, opened here and nowhere else: its project's own secrets
 * (sealed in the registry, opened with the deployment key), the deployment secrets granted to the
 * project, and for `default` the implicit ones (core/secrets `implicitGrant`); for the use `model`,
 * the project's own model settings only (core/models project-keys). Fetched once per name
 * and kept in memory — a turn reads them without a round trip — until the registry's owner says a
 * secret changed (`invalidate`, from the secrets routes); an eviction forgets them too. A name the
 * project lacks is remembered as absent, so an agent naming one does not ask on every turn.
 * @example
 * const pending = secrets.ensure(["AIRTABLE_KEY"], "tool"); // undefined when all are known
 * if (pending) await pending;
 * secrets.values("tool"); // { AIRTABLE_KEY: "…" }
 */
export function makeProjectSecrets(deps: ProjectSecretsDeps) {
  /** `use\0name` → the value, or undefined when the project has no such secret. */
  const known = new Map<string, string | undefined>();
  let epoch = 0;
  /**
   * Bumped, per use, whenever what is known for it changes (a load, an invalidation): what was built
   * from those values is stale. Per use, so loading the telemetry settings leaves the tool set alone.
   */
  const versions: Record<SecretUse, number> = { tool: 0, telegram: 0, model: 0, telemetry: 0 };
  const keyOf = (use: SecretUse, name: string) => `${use}\u0000${name}`;
  const env = deps.env as unknown as Record<string, unknown>;

  /** One round trip for every (name, use) asked: the registry is asked once per name, whatever its uses. */
  async function load(wants: { name: string; use: SecretUse }[]): Promise<void> {
    const started = epoch;
    const project = deps.project();
    const names = [...new Set(wants.map((want) => want.name))];
    const { sealed, granted } = await deps.registry().secretsSealed(names);
    const found = new Map<string, string>();
    if (sealed.length) {
      const cipher = makeSecretCipher(await readDeploymentSecret(env, "PANTHEON_SECRETS_KEY"));
      for (const item of sealed) {
        try {
          found.set(item.name, await cipher.open(project, item));
        } catch {
          // A key changed since the secret was set: logged by name, the secret counts as unset.
          console.error(JSON.stringify({ level: "error", event: "secret_unreadable", project, secret: item.name }));
        }
      }
    }
    const values = new Map<string, string | undefined>();
    for (const { name, use } of wants) {
      // A model or telemetry setting is the project's own or absent: the deployment's is read where the model is chosen.
      if (
        found.has(name) ||
        use === "model" ||
        use === "telemetry" ||
        (!granted.includes(name) && !implicitGrant(project, name, use, env))
      ) {
        values.set(keyOf(use, name), found.get(name));
        continue;
      }
      values.set(keyOf(use, name), await readDeploymentSecret(env, name));
    }
    // A change arrived while this was loading: what was read may be stale, so read again.
    if (started !== epoch) return load(wants);
    for (const [key, value] of values) known.set(key, value || undefined);
    for (const use of new Set(wants.map((want) => want.use))) versions[use] += 1;
  }

  /**
   * Loads the names not known yet, for every use at once (one round trip); undefined (no await, no
   * round trip) when every one is known.
   */
  function ensureAll(requests: { names: Iterable<string>; use: SecretUse }[]): Promise<void> | undefined {
    const wants = requests.flatMap(({ names, use }) =>
      [...new Set(names)].filter((name) => !known.has(keyOf(use, name))).map((name) => ({ name, use })),
    );
    return wants.length ? load(wants) : undefined;
  }

  /** Loads the names not known yet; undefined (no await, no round trip) when every one is. */
  function ensure(names: Iterable<string>, use: SecretUse): Promise<void> | undefined {
    return ensureAll([{ names, use }]);
  }

  return {
    ensure,
    ensureAll,
    /** The values known for `use`, by name (only names the project has). */
    values(use: SecretUse): Record<string, string> {
      const out: Record<string, string> = {};
      const prefix = keyOf(use, "");
      for (const [key, value] of known)
        if (value !== undefined && key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
      return out;
    },
    /** Changes whenever the values known for `use` change: the tool set, the secrets kept out and the gates built from them are rebuilt. */
    version: (use: SecretUse): number => versions[use],
    /**
     * Reads `names` again from the registry (one round trip), for values no profile names, so no
     * invalidation reaches this agent when they change (an MCP server's headers: mcp/credentials.ts).
     */
    refresh(names: Iterable<string>, use: SecretUse): Promise<void> | undefined {
      const fresh = [...new Set(names)];
      if (!fresh.length) return undefined;
      for (const name of fresh) known.delete(keyOf(use, name));
      return ensure(fresh, use);
    },
    /** One value, loading it first when needed. */
    async get(name: string, use: SecretUse): Promise<string | undefined> {
      await ensure([name], use);
      return known.get(keyOf(use, name));
    },
    /**
     * Changes with every invalidation (a secret set, replaced, deleted, granted or revoked; a new
     * profile): what a run built before it (its tools, model, caps) is rebuilt before its next call.
     */
    changes: (): number => epoch,
    /** A secret of the project was set, deleted, granted or revoked: forget every value. */
    invalidate(): void {
      epoch += 1;
      for (const use of Object.keys(versions) as SecretUse[]) versions[use] += 1;
      known.clear();
    },
  };
}

export type ProjectSecrets = ReturnType<typeof makeProjectSecrets>;
