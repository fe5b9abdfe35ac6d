import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeController } from "../../pwa/src/controller";
import type { Outbox } from "../../pwa/src/outbox";
import { adminToken, api, ensureProject, uniqueName } from "./client";

// A notice's link into another project than `default` carries `?project=` (core/push/notice.ts); the
// PWA's controller switches to it when the device's token is good there, and stays put when not.

const workerFetch: typeof fetch = (input, init) => SELF.fetch(new URL(String(input), "https://pantheon.test"), init);

function device(token: string, project = "default") {
  const kept = new Map<string, string>([
    ["pantheon.token", token],
    ["pantheon.project", project],
  ]);
  const storage = {
    getItem: (k: string) => kept.get(k) ?? null,
    setItem: (k: string, v: string) => void kept.set(k, v),
    removeItem: (k: string) => void kept.delete(k),
  };
  const controller = makeController({ storage, outbox: {} as Outbox, fetch: workerFetch, connectLive: null });
  return { controller, kept };
}

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
  it("switches the device to it when its token is good there, and keeps the choice", async () => {
    const project = uniqueName("linked");
    await ensureProject(project);
    const { controller, kept } = device(adminToken);
    expect(await controller.openProject(project)).toBe(true);
    expect(controller.getState().project).toBe(project);
    expect(kept.get("pantheon.project")).toBe(project);
  });

  it("leaves a person's device where it is when their token is not of that project; control: their own project's link", async () => {
    const other = uniqueName("linked");
    await ensureProject(other);
    const home = uniqueName("home");
    await ensureProject(home);
    const token = await personToken(home);
    const { controller, kept } = device(token, "default");
    expect(await controller.openProject(other)).toBe(false);
    expect(controller.getState().project).toBe("default");
    expect(kept.get("pantheon.project")).toBe("default");
    // Control: a link into the project the token is of switches to it.
    expect(await controller.openProject(home)).toBe(true);
    expect(controller.getState().project).toBe(home);
  });

  it("a device that is not signed in does not switch", async () => {
    const project = uniqueName("linked");
    await ensureProject(project);
    const { controller } = device(adminToken);
    controller.signOut();
    expect(await controller.openProject(project)).toBe(false);
    expect(controller.getState().project).toBe("default");
  });
});
