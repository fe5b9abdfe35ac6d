import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeApi } from "../../pwa/src/api";
import { describeUploadError, uploadPictures } from "../../pwa/src/chat-pictures";
import { mergeHistory, storedImages } from "../../pwa/src/chat-state";
import { fitWithin, LONGEST_SIDE } from "../../pwa/src/pictures";
import { adminToken, uniqueName } from "./client";

// The PWA's picture path against the real worker: upload, send with the ids, read the message
// back with its pictures, fetch the bytes with the token. The browser spec (test/browser/images.spec.mjs)
// drives the same code from a fake camera; this pins the client's contract with the routes.

const base = "https://pantheon.test";
let uploads = 0;
const workerFetch: typeof fetch = (input, init) => {
  if (init?.method === "POST" && String(input).endsWith("/images")) uploads++;
  return SELF.fetch(input, init);
};
const pwaApi = (token = adminToken) =>
  makeApi({ getToken: () => token, getProject: () => "default", baseUrl: base, fetch: workerFetch });

/** A 3×2 PNG (RGB, one colour): small enough to write out, real enough to be sniffed and sized. */
function tinyPng(): Blob {
  const hex =
    "89504e470d0a1a0a0000000d49484452000000030000000208020000001216f14d0000001049444154789c631068f800410c70160054d409017f3aedb30000000049454e44ae426082";
  return new Blob([Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)))], { type: "image/png" });
}

describe("pictures from the PWA", () => {
  it("sizes a picture so its long side is at most 1568 and keeps its shape; a small one stays as it is", () => {
    expect(fitWithin(4000, 3000)).toEqual({ width: 1568, height: 1176 });
    expect(fitWithin(3000, 4000)).toEqual({ width: 1176, height: 1568 });
    expect(fitWithin(3840, 2160)).toEqual({ width: LONGEST_SIDE, height: 882 });
    expect(fitWithin(640, 480)).toEqual({ width: 640, height: 480 });
    expect(fitWithin(20000, 1)).toEqual({ width: 1568, height: 1 });
  });

  it("uploads, sends the ids with the message, reads the message back with its pictures and fetches the bytes", async () => {
    const api = pwaApi();
    const agent = uniqueName("pwa-pics");
    await api.createAgent({ name: agent });
    const png = tinyPng();
    const pictures = [
      { blob: png, type: "image/png", name: "tiny.png" } as { blob: Blob; type: string; name: string; id?: string },
    ];
    const { ids, failed } = await uploadPictures(api, agent, pictures);
    expect(failed).toBeUndefined();
    expect(ids).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.png$/)]);
    expect(pictures[0]?.id).toBe(ids[0]);

    const sent = await api.sendMessage(agent, { content: "Look at this", images: ids });
    expect(sent.userMessage ? storedImages(sent.userMessage) : []).toEqual([
      { id: ids[0], type: "image/png", width: 3, height: 2 },
    ]);
    const { messages } = await api.listMessages(agent);
    const mine = messages.find((m) => m.role === "user");
    expect(mine?.content).toBe("Look at this");
    const [item] = mergeHistory([], mine ? [mine] : []);
    expect(item?.kind === "message" && item.images).toEqual([{ id: ids[0], type: "image/png", width: 3, height: 2 }]);

    const bytes = await api.getImage(agent, ids[0]!);
    expect(bytes.type).toBe("image/png");
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(new Uint8Array(await png.arrayBuffer()));
  });

  it("a message with pictures only (no text) is taken", async () => {
    const api = pwaApi();
    const agent = uniqueName("pwa-pics");
    await api.createAgent({ name: agent });
    const { ids } = await uploadPictures(api, agent, [{ blob: tinyPng(), type: "image/png", name: "only.png" }]);
    const sent = await api.sendMessage(agent, { images: ids });
    expect(sent.userMessage && storedImages(sent.userMessage).map((i) => i.id)).toEqual(ids);
  });

  it("stops at a refused file with the server's reason, and a retry uploads only what is missing", async () => {
    const api = pwaApi();
    const agent = uniqueName("pwa-pics");
    await api.createAgent({ name: agent });
    const pictures: { blob: Blob; type: string; name: string; id?: string }[] = [
      { blob: tinyPng(), type: "image/png", name: "fine.png" },
      { blob: new Blob(["just some notes"], { type: "text/plain" }), type: "text/plain", name: "notes.txt" },
    ];
    uploads = 0;
    const first = await uploadPictures(api, agent, pictures);
    expect(first.failed).toMatchObject({ index: 1, error: { status: 415 } });
    expect(pictures[0]?.id).toMatch(/\.png$/);
    const text = describeUploadError(1, 2, "notes.txt", first.failed?.error);
    expect(text).toContain("Picture 2 (notes.txt) was not sent: ");
    expect(text).toContain((first.failed?.error as Error).message);
    expect(uploads).toBe(2);

    // The person takes the bad file out and sends again: the good picture is not uploaded twice.
    pictures.pop();
    uploads = 0;
    const second = await uploadPictures(api, agent, pictures);
    expect(second).toEqual({ ids: [pictures[0]?.id] });
    expect(uploads).toBe(0);
  });

  it("a token that is not valid cannot read a picture the PWA fetches; the owner's can (positive control)", async () => {
    const api = pwaApi();
    const agent = uniqueName("pwa-pics");
    await api.createAgent({ name: agent });
    const { ids } = await uploadPictures(api, agent, [{ blob: tinyPng(), type: "image/png", name: "mine.png" }]);
    const wrong = await pwaApi("not-a-token")
      .getImage(agent, ids[0]!)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(wrong).toMatchObject({ status: 401 });
    expect((await api.getImage(agent, ids[0]!)).size).toBeGreaterThan(0);
  });
});
