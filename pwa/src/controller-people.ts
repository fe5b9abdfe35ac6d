import { makeApi, type Api } from "./api";
import { describeError } from "./errors";
import type { Store } from "./state";

export interface PeopleDeps {
  api: Api;
  store: Store;
  fetch?: typeof fetch;
  /** What this device is, sent when it redeems an invite so token lists can say whose phone it is. */
  device: string;
  /** Keeps the new token, project and person as a pasted token is kept; the controller signs in with them. */
  signInWith(token: string, project: string, person: string): Promise<void>;
}

/**
 * A short label for a device from its user agent: "Chrome on Android", "Safari on iPhone".
 * @example
 * describeDevice("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36") // "Chrome on Android"
 */
export function describeDevice(userAgent: string): string {
  const os = /iPhone/.test(userAgent)
    ? "iPhone"
    : /iPad/.test(userAgent)
      ? "iPad"
      : /Android/.test(userAgent)
        ? "Android"
        : /Mac OS X/.test(userAgent)
          ? "Mac"
          : /Windows/.test(userAgent)
            ? "Windows"
            : /Linux/.test(userAgent)
              ? "Linux"
              : "a device";
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : "a browser";
  return `${browser} on ${os}`;
}

/**
 * People and devices: an admin invites a person (a one-time sign-in link and its QR code), sees
 * whose device each token is, revokes a device or withdraws an invite; a person's device opens the
 * link and is signed in as them.
 */
export function makePeopleFeature(deps: PeopleDeps) {
  const { api, store } = deps;
  const setPeople = (update: (p: ReturnType<Store["get"]>["people"]) => ReturnType<Store["get"]>["people"]) =>
    store.set((s) => ({ ...s, people: update(s.people) }));

  async function load(): Promise<void> {
    setPeople((p) => ({
      ...p,
      tokens: { status: "loading", ...(p.tokens.status === "ready" ? { data: p.tokens.data } : {}) },
      error: null,
    }));
    try {
      const [{ tokens }, { invites }] = await Promise.all([api.listTokens(), api.listInvites()]);
      setPeople((p) => ({
        ...p,
        tokens: { status: "ready", data: tokens },
        invites: { status: "ready", data: invites },
      }));
    } catch (error) {
      setPeople((p) => ({
        ...p,
        tokens: { status: "error", error: describeError(error) },
        invites: { status: "idle" },
      }));
    }
  }

  /** Runs one change: busy while it goes, its failure explained, the lists read again after. */
  async function change(busy: string, action: () => Promise<void>): Promise<boolean> {
    setPeople((p) => ({ ...p, busy, error: null }));
    try {
      await action();
      return true;
    } catch (error) {
      setPeople((p) => ({ ...p, error: describeError(error, "invoke") }));
      return false;
    } finally {
      setPeople((p) => ({ ...p, busy: null }));
      await load();
    }
  }

  return {
    load,
    invite: (input: { name: string; scope: "chat" | "approve" | "admin"; expiresIn?: number }) =>
      change("invite", async () => {
        const created = await api.createInvite(input);
        setPeople((p) => ({ ...p, created }));
      }),
    revoke: (id: string) => change(`revoke:${id}`, async () => void (await api.revokeToken(id))),
    withdraw: (id: string) => change(`withdraw:${id}`, async () => void (await api.withdrawInvite(id))),
    dismissCreated: () => setPeople((p) => ({ ...p, created: null })),

    /** Opens a sign-in link on this device: redeems the code (no token needed) and signs in as the person. */
    async join(code: string, project: string): Promise<boolean> {
      store.set((s) => ({ ...s, join: { busy: true, error: null } }));
      try {
        const anonymous = makeApi({
          getToken: () => null,
          getProject: () => project,
          ...(deps.fetch ? { fetch: deps.fetch } : {}),
        });
        const signed = await anonymous.redeemInvite({ code, device: deps.device });
        store.set((s) => ({ ...s, join: { busy: false, error: null } }));
        await deps.signInWith(signed.token, project, signed.person ?? signed.name);
        return true;
      } catch (error) {
        store.set((s) => ({ ...s, join: { busy: false, error: describeError(error, "sign-in") } }));
        return false;
      }
    },
  };
}
