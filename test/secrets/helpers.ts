import { env } from "cloudflare:test";
import { api, ensureProject, uniqueName } from "../api/client";

/** A fresh project (made with the deployment admin token) and its own admin, approve and chat tokens. */
export async function tenant(prefix: string) {
  const slug = uniqueName(prefix);
  await ensureProject(slug);
  const token = async (scope: "admin" | "approve" | "chat") => {
    const res = await api("/api/tokens", {
      method: "POST",
      json: { name: `${scope} of ${slug}`, scope },
      headers: { "x-pantheon-project": slug },
    });
    if (res.status !== 201) throw new Error(`token for ${slug}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  };
  const [admin, approve, chat] = await Promise.all([token("admin"), token("approve"), token("chat")]);
  /** A request as this project's own token (admin unless told), with its project header. */
  const call = (path: string, init: Parameters<typeof api>[1] = {}, as: string = admin) =>
    api(path, {
      ...init,
      token: as,
      headers: { "x-pantheon-project": slug, ...Object.fromEntries(new Headers(init.headers)) },
    });
  const setSecret = (name: string, value: string, as: string = admin) =>
    call(`/api/projects/${slug}/secrets/${name}`, { method: "PUT", json: { value } }, as);
  return { slug, admin, approve, chat, call, setSecret };
}

export const listenerUrl = () => (env as unknown as { EXFIL_LISTENER_URL: string }).EXFIL_LISTENER_URL;

/** A fresh key on the exfiltration listener: the URL to send to, and what reached it. */
export function listenerKey() {
  const key = uniqueName("sec");
  return {
    url: `${listenerUrl()}/t/${key}/hook`,
    requests: async () =>
      (await (await fetch(`${listenerUrl()}/__requests?key=${key}`)).json()) as { headers: Record<string, string> }[],
  };
}

export const httpTool = (endpoint: string, secret: string) => ({
  name: "notes.add",
  description: "Adds a note",
  parameters: { type: "object", properties: { text: { type: "string" } } },
  endpoint,
  headers: { "X-Key": { secret } },
});
