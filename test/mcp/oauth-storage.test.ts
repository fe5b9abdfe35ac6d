import { describe, expect, it } from "vitest";
import { makeSecretCipher } from "../../core/secrets";
import { sealedTokenStorage } from "../../durable-objects/agent/mcp";

/** The part of a Durable Object's storage the SDK's OAuth provider uses, over a Map. */
function mapStorage() {
  const map = new Map<string, unknown>();
  const storage = {
    get: async (key: string) => map.get(key),
    put: async (key: string, value: unknown) => void map.set(key, value),
    delete: async (key: string) => map.delete(key),
  } as unknown as DurableObjectStorage;
  return { map, storage };
}

const cipher = async () => makeSecretCipher("k".repeat(44));
const tokens = { access_token: "at-5f1c9e", refresh_token: "rt-0b7d2a", token_type: "bearer", expires_in: 3600 };

describe("the MCP OAuth client's token sets", () => {
  it("are stored sealed for the project and read back whole; other keys stay as the SDK wrote them", async () => {
    const { map, storage } = mapStorage();
    const sealed = sealedTokenStorage(storage, cipher, () => "acme");
    await sealed.put("/helper/notes/client-1/token", tokens);
    await sealed.put("/helper/notes/client-1/client_info/", { client_id: "client-1" });
    const raw = JSON.stringify(map.get("/helper/notes/client-1/token"));
    expect(raw).toContain("pantheonSealed");
    expect(raw).not.toContain("at-5f1c9e");
    expect(raw).not.toContain("rt-0b7d2a");
    expect(await sealed.get("/helper/notes/client-1/token")).toEqual(tokens);
    // The control: a key that is not a token set is kept as written.
    expect(map.get("/helper/notes/client-1/client_info/")).toEqual({ client_id: "client-1" });
  });

  it("do not open for another project", async () => {
    const { storage } = mapStorage();
    await sealedTokenStorage(storage, cipher, () => "acme").put("/helper/notes/c/token", tokens);
    await expect(sealedTokenStorage(storage, cipher, () => "other").get("/helper/notes/c/token")).rejects.toThrow();
  });
});
