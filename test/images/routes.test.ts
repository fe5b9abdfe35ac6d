import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../workers/api";
import { ownBodyRoutes } from "../../workers/own-body";
import { tenant } from "../secrets/helpers";
import { dataUrl, gif3x4, jpeg16x8, png2x2 } from "./fixtures";

type Ref = { id: string; type: string; bytes: number; width?: number; height?: number };

async function project(prefix = "img") {
  const t = await tenant(prefix);
  expect(
    (await t.call("/api/agents", { method: "POST", json: { name: "eye", description: "looks at pictures" } })).status,
  ).toBe(201);
  const upload = (bytes: Uint8Array | string, type = "image/png", as = t.chat, agent = "eye") =>
    t.call(
      `/api/agents/${agent}/images`,
      { method: "POST", body: bytes as BodyInit, headers: { "content-type": type } },
      as,
    );
  return { ...t, upload };
}

describe("POST /api/agents/:name/images stores an image by what its bytes are", () => {
  it("a chat token uploads a PNG (201 with its ref) and reads the same bytes back with the sniffed type and nosniff", async () => {
    const p = await project();
    const res = await p.upload(png2x2);
    expect(res.status).toBe(201);
    const ref = (await res.json()) as Ref;
    expect(ref).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{64}\.png$/),
      type: "image/png",
      bytes: png2x2.length,
      width: 2,
      height: 2,
    });
    const back = await p.call(`/api/agents/eye/images/${ref.id}`, {}, p.chat);
    expect(back.status).toBe(200);
    expect(back.headers.get("content-type")).toBe("image/png");
    expect(back.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await back.arrayBuffer())).toEqual(png2x2);
    // The same bytes again are the same image (content-addressed: stored once).
    expect(((await (await p.upload(png2x2)).json()) as Ref).id).toBe(ref.id);
  });

  it("the declared type is not trusted: JPEG bytes called image/png are a JPEG; a multipart `file` works too", async () => {
    const p = await project();
    const jpeg = (await (await p.upload(jpeg16x8, "image/png")).json()) as Ref;
    expect(jpeg).toMatchObject({ type: "image/jpeg", width: 16, height: 8 });
    const form = new FormData();
    form.set("file", new Blob([gif3x4], { type: "image/gif" }), "tiny.gif");
    const res = await p.call("/api/agents/eye/images", { method: "POST", body: form }, p.chat);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ type: "image/gif", width: 3, height: 4 });
  });

  it("415 for a non-image called image/png, naming what is allowed; 413 over 5 MiB naming the limit; each beside an upload that works", async () => {
    const p = await project();
    const svg = await p.upload('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "image/png");
    expect(svg.status).toBe(415);
    expect(((await svg.json()) as { error: { message: string } }).error.message).toBe(
      "body: the bytes are not an image Pantheon takes (by their content, whatever the declared type): send image/png, image/jpeg, image/webp or image/gif",
    );
    const big = new Uint8Array(5 * 1024 * 1024 + 1);
    big.set(png2x2);
    const huge = await p.upload(big);
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { error: { message: string } }).error.message).toContain("larger than 5 MiB");
    expect((await p.upload(png2x2)).status).toBe(201);
    // A multipart body over the cap is refused too, before the form is parsed.
    const form = new FormData();
    form.set("file", new Blob([big], { type: "image/png" }), "big.png");
    const multipart = await p.call("/api/agents/eye/images", { method: "POST", body: form }, p.chat);
    expect(multipart.status).toBe(413);
  });

  it("the /api entrance's 64 KiB limit lets through only a route that declares it reads its own body: a 200 KiB picture is taken, the same bytes as a message are 413", async () => {
    // Declared beside the route (readsOwnBody), read from the routes themselves: the upload is the only one.
    expect(ownBodyRoutes(apiRoutes.routes).map(({ method, path }) => `${method} ${path}`)).toEqual([
      "POST /api/agents/:name/images",
    ]);
    const p = await project();
    const picture = new Uint8Array(200 * 1024);
    picture.set(png2x2);
    const taken = await p.upload(picture);
    expect(taken.status).toBe(201);
    expect(await taken.json()).toMatchObject({ type: "image/png", bytes: 200 * 1024 });
    const asMessage = await p.call(
      "/api/agents/eye/messages",
      { method: "POST", body: picture as BodyInit, headers: { "content-type": "application/json" } },
      p.chat,
    );
    expect(asMessage.status).toBe(413);
    expect(((await asMessage.json()) as { error: { message: string } }).error.message).toBe(
      "the request body is larger than 64 KiB: /api takes at most 64 KiB",
    );
  });

  it("another project's token is refused on this project's agent and never reads its images; the owner's token does", async () => {
    const a = await project("imga");
    const b = await project("imgb");
    const ref = (await (await a.upload(png2x2)).json()) as Ref;
    // b's token naming project a: refused before anything is stored or read.
    const upload = await a.call(
      "/api/agents/eye/images",
      { method: "POST", body: jpeg16x8, headers: { "content-type": "image/jpeg" } },
      b.chat,
    );
    expect([401, 403]).toContain(upload.status);
    const read = await a.call(`/api/agents/eye/images/${ref.id}`, {}, b.chat);
    expect([401, 403]).toContain(read.status);
    // In its own project, b's agent of the same name does not hold a's image.
    expect((await b.call(`/api/agents/eye/images/${ref.id}`, {}, b.chat)).status).toBe(404);
    // Positive control: a's own chat token reads it.
    expect((await a.call(`/api/agents/eye/images/${ref.id}`, {}, a.chat)).status).toBe(200);
    // An agent that does not exist gets no image.
    expect((await a.upload(png2x2, "image/png", a.chat, "nobody")).status).toBe(404);
  });

  it("deleting an agent deletes its images: a new agent of the same name does not inherit them", async () => {
    const p = await project();
    const ref = (await (await p.upload(png2x2)).json()) as Ref;
    expect((await p.call(`/api/agents/eye/images/${ref.id}`)).status).toBe(200);
    expect((await p.call("/api/agents/eye", { method: "DELETE" })).status).toBe(204);
    expect(
      (await p.call("/api/agents", { method: "POST", json: { name: "eye", description: "a new eye" } })).status,
    ).toBe(201);
    expect((await p.call(`/api/agents/eye/images/${ref.id}`)).status).toBe(404);
    const mention = await p.call("/api/agents/eye/messages", {
      method: "POST",
      json: { content: "this one", images: [ref.id] },
    });
    expect(mention.status).toBe(400);
  });
});

describe("messages carry images", () => {
  it("the offline model says it cannot see and what it received; history and trace carry the ref, never the bytes", async () => {
    const p = await project();
    const ref = (await (await p.upload(png2x2)).json()) as Ref;
    const res = await p.call(
      "/api/agents/eye/messages",
      { method: "POST", json: { content: "what is in this picture?", images: [ref.id] } },
      p.chat,
    );
    expect(res.status).toBe(200);
    const turn = (await res.json()) as { runId: string; reply: { content: string }; userMessage: { images: Ref[] } };
    expect(turn.reply.content).toContain(
      `I cannot see images: I am Pantheon's offline stand-in, not a vision model. I received 1 image/png 2x2 (${png2x2.length} bytes`,
    );
    expect(turn.userMessage.images).toEqual([ref]);
    const page = (await (await p.call("/api/agents/eye/messages", {}, p.chat)).json()) as {
      messages: { role: string; images?: Ref[] }[];
    };
    expect(page.messages.find((m) => m.role === "user")?.images).toEqual([ref]);
    const run = (await (await p.call(`/api/agents/eye/runs/${turn.runId}`, {}, p.chat)).json()) as {
      trace: { name: string; data: any }[];
    };
    expect(run.trace.find((s) => s.name === "model_called")?.data.images).toEqual([ref]);
    expect(JSON.stringify(run.trace)).not.toContain("iVBORw0KGgo");
    // A later turn still has the picture in its history: it counts in the budget and the model sees it again.
    const later = (await (
      await p.call("/api/agents/eye/messages", { method: "POST", json: { content: "and now?" } }, p.chat)
    ).json()) as { runId: string };
    const laterRun = (await (await p.call(`/api/agents/eye/runs/${later.runId}`, {}, p.chat)).json()) as {
      trace: { name: string; data: any }[];
    };
    expect(laterRun.trace.find((s) => s.name === "model_called")?.data.images).toEqual([ref]);
  });

  it("an image id not in this agent's store, or too many, is a 400 naming the field; the agent's own image works", async () => {
    const a = await project("imga");
    const b = await project("imgb");
    const theirs = (await (await b.upload(jpeg16x8)).json()) as Ref;
    const mine = (await (await a.upload(png2x2)).json()) as Ref;
    const foreign = await a.call(
      "/api/agents/eye/messages",
      { method: "POST", json: { content: "look", images: [mine.id, theirs.id] } },
      a.chat,
    );
    expect(foreign.status).toBe(400);
    expect(((await foreign.json()) as { error: { message: string } }).error.message).toBe(
      `images[1]: no image '${theirs.id}' in agent 'eye' (upload it first: POST /api/agents/eye/images)`,
    );
    const five = await a.call(
      "/api/agents/eye/messages",
      { method: "POST", json: { content: "look", images: Array(5).fill(mine.id) } },
      a.chat,
    );
    expect(five.status).toBe(400);
    expect(JSON.stringify(await five.json())).toContain("at most 4 images per message");
    const bad = await a.call(
      "/api/agents/eye/messages",
      { method: "POST", json: { content: "look", images: ["../../etc/passwd"] } },
      a.chat,
    );
    expect(bad.status).toBe(400);
    // Only a picture, no words: still a turn.
    const ok = await a.call("/api/agents/eye/messages", { method: "POST", json: { images: [mine.id] } }, a.chat);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { reply: { content: string } }).reply.content).toMatch(/^I cannot see images/);
  });
});

describe("/v1/chat/completions and /agui take images", () => {
  it("an OpenAI image_url data URL is sniffed, stored and shown to the model; a non-image is a 415 and a loopback URL outside allowHosts is refused", async () => {
    const p = await project();
    const v1 = (content: unknown) =>
      p.call(
        "/v1/chat/completions",
        { method: "POST", json: { model: "eye", messages: [{ role: "user", content }] } },
        p.chat,
      );
    const ok = await v1([
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: dataUrl("image/jpeg", jpeg16x8) } },
    ]);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).choices[0].message.content).toContain(
      `I received 1 image/jpeg 16x8 (${jpeg16x8.length} bytes`,
    );
    const svg = await v1([
      { type: "text", text: "and this?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${btoa("<svg/>")}` } },
    ]);
    expect(svg.status).toBe(415);
    expect(((await svg.json()) as any).error.message).toContain(
      "messages[0].content[1].image_url.url: the bytes are not an image",
    );
    const loop = await v1([{ type: "image_url", image_url: { url: "http://127.0.0.1:9/cat.png" } }]);
    expect(loop.status).toBe(400);
    expect(((await loop.json()) as any).error.message).toMatch(
      /^messages\[0\]\.content\[0\]\.image_url\.url: the image URL is refused: /,
    );
    const metadata = await v1([
      { type: "image_url", image_url: { url: "http://169.254.169.254/latest/meta-data/cat.png" } },
    ]);
    expect(metadata.status).toBe(400);
  });

  it("an AG-UI user message with an image part (inline data) reaches the model", async () => {
    const p = await project();
    const res = await p.call(
      "/agui/agents/eye",
      {
        method: "POST",
        headers: { accept: "text/event-stream" },
        json: {
          threadId: "t1",
          runId: "r1",
          state: {},
          tools: [],
          context: [],
          forwardedProps: {},
          messages: [
            {
              id: "m1",
              role: "user",
              content: [
                { type: "text", text: "see?" },
                {
                  type: "image",
                  source: { type: "data", value: btoa(String.fromCharCode(...gif3x4)), mimeType: "image/gif" },
                },
              ],
            },
          ],
        },
      },
      p.chat,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("I received 1 image/gif 3x4");
  });
});

describe("snapshots carry images", () => {
  it("an agent's images travel in its snapshot and are restored into another project's store", async () => {
    const a = await project("snapa");
    const b = await tenant("snapb");
    const ref = (await (await a.upload(png2x2)).json()) as Ref;
    expect(
      (
        await a.call(
          "/api/agents/eye/messages",
          { method: "POST", json: { content: "keep this", images: [ref.id] } },
          a.chat,
        )
      ).status,
    ).toBe(200);
    const text = await (await a.call("/api/agents/eye/snapshot")).text();
    const lines = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines[0].counts.images).toBe(1);
    expect(lines.find((l) => l.type === "image")).toMatchObject({
      id: ref.id,
      mediaType: "image/png",
      bytes: png2x2.length,
      width: 2,
      height: 2,
    });
    expect(lines.find((l) => l.type === "message" && l.role === "user").images).toEqual([ref]);
    const ndjson = { "content-type": "application/x-ndjson" };
    const restored = await b.call("/api/agents/copy/snapshot/restore", { method: "POST", body: text, headers: ndjson });
    expect(restored.status).toBe(201);
    expect(await restored.json()).toMatchObject({ images: 1, errors: [] });
    const back = await b.call(`/api/agents/copy/images/${ref.id}`);
    expect(new Uint8Array(await back.arrayBuffer())).toEqual(png2x2);
    const page = (await (await b.call("/api/agents/copy/messages")).json()) as {
      messages: { role: string; images?: Ref[] }[];
    };
    expect(page.messages.find((m) => m.role === "user")?.images).toEqual([ref]);
    // An image line whose bytes are not its id is refused by line (the rest still restores).
    const forged = JSON.stringify({
      ...lines.find((l) => l.type === "image"),
      data: btoa(String.fromCharCode(...gif3x4)),
      mediaType: "image/gif",
    });
    const refused = await b.call("/api/agents/copy/snapshot/restore", {
      method: "POST",
      body: forged + "\n",
      headers: ndjson,
    });
    expect(((await refused.json()) as any).errors[0].message).toMatch(/^data: the bytes are not image/);
  });
});
