import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tokenWorksIn } from "../../pwa/src/project-link";
import { adminToken, api, ensureProject, uniqueName } from "./client";

// A notice's link into another project than `default` carries `?project=` (core/push/notice.ts); the
// PWA switches to it (controller.openProject) only when the device's token is good there.

const workerFetch: typeof fetch = (input, init) => SELF.fetch(input, init);
const base = "https://pantheon.test";

async function personToken(project: string): Promise<string> {
  const headers = { "x-pantheon-project": project };
  const invite = (await (
    await api("/api/invites", { method: "POST", json: { name: uniqueName("person"), scope: "chat" }, headers })
  ).json()) as any;
  const redeemed = (await (
    await api("/api/invites/redeem", { method: "POST", token: null, headers, json: { code: invite.code } })
  ).json()) as any;
  return redeemed.token;
}

describe("a link into another project", () => {
  it("is followed with a deployment admin's token", async () => {
    const project = uniqueName("linked");
    await ensureProject(project);
    expect(await tokenWorksIn(project, { getToken: () => adminToken, fetch: workerFetch, baseUrl: base })).toBe(true);
  });

  it("is not followed with a person's token of another project; control: their own project's link is", async () => {
    const other = uniqueName("linked");
    await ensureProject(other);
    const home = uniqueName("home");
    await ensureProject(home);
    const token = await personToken(home);
    expect(await tokenWorksIn(other, { getToken: () => token, fetch: workerFetch, baseUrl: base })).toBe(false);
    expect(await tokenWorksIn(home, { getToken: () => token, fetch: workerFetch, baseUrl: base })).toBe(true);
  });

  it("is not followed by a device without a token", async () => {
    expect(await tokenWorksIn("default", { getToken: () => null, fetch: workerFetch, baseUrl: base })).toBe(false);
  });
});
