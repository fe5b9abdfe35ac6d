import type { Api } from "./api";
import type { WorkApi } from "./api-work";
import { describeError, isApiError } from "./errors";
import type { Store, WorkState } from "./state";

export interface ShipDeps {
  api: Api;
  work: WorkApi;
  store: Store;
  setWork: (update: (w: WorkState) => WorkState) => void;
  /** A GET with this person's token and project, answered raw (a download is bytes, not JSON). */
  fetchFile: (path: string) => Promise<Response>;
  /** Hands a downloaded file to the browser (an object URL and a link clicked). */
  save: (blob: Blob, filename: string) => void;
}

/**
 * The words for a failed import, push, pull request or download: the server's own sentence when it
 * says what to fix (a remote's 401 names the secret, a missing remote says so), else the usual ones.
 */
function shipError(error: unknown): string {
  if (isApiError(error) && [400, 409, 413, 502].includes(error.status) && error.message)
    return `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}`;
  return describeError(error);
}

/**
 * The ways work enters and leaves from the phone: importing a repository (the secret chosen by name
 * from the project's own), and pushing, opening a pull request and downloading from a feature's page.
 * Each is busy while it goes (its button says so) and says what happened or what to fix.
 */
export function makeShipping({ api, work, store, setWork, fetchFile, save }: ShipDeps) {
  async function run<T>(name: string, action: () => Promise<T>): Promise<T | null> {
    setWork((w) => ({ ...w, busy: name, error: null, shipped: null }));
    try {
      return await action();
    } catch (error) {
      // An import's refusal shows in its form; the others' beside the feature page's buttons.
      const message = shipError(error);
      setWork((w) =>
        name === "import" ? { ...w, error: message } : { ...w, shipped: { action: name, message, failed: true } },
      );
      return null;
    } finally {
      setWork((w) => ({ ...w, busy: null }));
    }
  }

  return {
    /** What the import form offers: the project's secrets by name and its planning agents (an admin's; others get no form). */
    async loadImportOptions(): Promise<void> {
      if (store.get().work.scope !== "admin") return setWork((w) => ({ ...w, importOptions: null }));
      const [secrets, agents] = await Promise.all([
        work.secretNames(store.get().project).catch(() => null),
        api.listAgents().catch(() => null),
      ]);
      if (!secrets || !agents) return;
      const planners = agents.agents
        .filter((a) => (a as { runtime?: { tools?: string[] } }).runtime?.tools?.includes("plan.write"))
        .map((a) => a.name);
      setWork((w) => ({ ...w, importOptions: { secrets, planners } }));
    },

    /** Imports (or makes) a feature; answers its name when it was made. */
    importFeature: (input: {
      name: string;
      title: string;
      orchestrator: string;
      url?: string;
      ref?: string;
      tokenSecret?: string;
    }) =>
      run("import", async () => {
        const made = await work.createFeature({
          name: input.name,
          title: input.title || input.name,
          orchestrator: input.orchestrator,
          ...(input.url
            ? {
                repository: {
                  url: input.url,
                  ...(input.ref ? { ref: input.ref } : {}),
                  ...(input.tokenSecret ? { tokenSecret: input.tokenSecret } : {}),
                },
              }
            : {}),
        });
        return made.name;
      }),

    push: (feature: string) =>
      run("push", async () => {
        const pushed = await work.push(feature);
        setWork((w) => ({
          ...w,
          shipped: {
            action: "push",
            message: `Pushed ${pushed.branch} (${pushed.commit.slice(0, 7)}) to ${pushed.remote}.`,
          },
        }));
      }),

    pullRequest: (feature: string) =>
      run("pr", async () => {
        const pr = await work.pullRequest(feature);
        setWork((w) => ({
          ...w,
          shipped: {
            action: "pr",
            message: `Pull request${pr.number ? ` #${pr.number}` : ""} opened from ${pr.head} into ${pr.base}.`,
            ...(pr.url ? { url: pr.url } : {}),
          },
        }));
      }),

    download: (feature: string, format: "bundle" | "zip" | "tar") =>
      run("download", async () => {
        const res = await fetchFile(`/api/features/${encodeURIComponent(feature)}/download?format=${format}`);
        if (!res.ok) {
          const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
          throw new Error(body?.error?.message ?? `the download failed (${res.status})`);
        }
        const filename =
          /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? `${feature}.${format}`;
        const blob = await res.blob();
        save(blob, filename);
        setWork((w) => ({
          ...w,
          shipped: { action: "download", message: `Downloaded ${filename} (${blob.size.toLocaleString()} bytes).` },
        }));
      }),
  };
}
