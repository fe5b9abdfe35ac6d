// Images through a real local stack (wrangler dev, the IMAGES bucket emulated) with the real clients:
// the official `openai` SDK sends a PNG and a JPEG made here as image_url data URLs to
// /v1/chat/completions and gets the offline model's "cannot see … received 1 image/png 2x2 …"; an
// oversize image (413) and a non-image (415) are refused; an http image URL on loopback is refused for
// an agent whose allowHosts lack it, and fetched for one that has it (PANTHEON_ALLOW_LOOPBACK_OUTBOUND
// on, as in every loopback test). @ag-ui/client's HttpAgent sends an image part. A real vision path:
// an agent on a project provider (an OpenAI-compatible server run here) receives the image_url part
// with the picture's bytes. The PWA's contract: raw upload, a message naming the id, history with the
// ref, the bytes read back. Prints `N passed, N failed` last.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpAgent } from "@ag-ui/client";
import OpenAI from "openai";
import { png } from "./png.mjs";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks, makeCli, makeProjectCall, makeTenant } from "./check-kit.mjs";

const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-images-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 700);

const png2x2 = png(2, 2);
// A 16x8 baseline JPEG (encoded once by an image library; Node has no JPEG encoder of its own).
const jpeg16x8 = Buffer.from(
  "/9j/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAIABADASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABgf/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCAAHlhf//Z",
  "base64",
);
const dataUrl = (type, bytes) => `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;

/** One loopback server: an OpenAI-compatible vision model that records what it is sent, and `/cat.png`. */
const received = [];
const local = createServer(async (req, res) => {
  if (req.url === "/cat.png") {
    res.writeHead(200, { "content-type": "image/png" });
    return res.end(png(4, 3));
  }
  let body = "";
  for await (const chunk of req) body += chunk;
  const parsed = body ? JSON.parse(body) : {};
  received.push(parsed);
  const parts = parsed.messages?.at(-1)?.content;
  const images = Array.isArray(parts) ? parts.filter((p) => p.type === "image_url").length : 0;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: "c1",
      object: "chat.completion",
      created: 0,
      model: parsed.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: `I see ${images} image(s): a red square.` },
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 300, completion_tokens: 6, total_tokens: 306 },
    }),
  );
});
await new Promise((resolve) => local.listen(0, "127.0.0.1", resolve));
const localUrl = `http://127.0.0.1:${local.address().port}`;

/** `pantheon <args>` as an operator runs it (the real CLI in a child process); token and project per call. */
const cli = makeCli({ url: () => server.url, cwd: persistTo, configHome: join(persistTo, "config") });

let server;
try {
  server = await startDevServer({
    port: await freePort(),
    token: deploymentToken,
    persistTo,
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" },
  });
  const call = makeProjectCall(server.url);
  const a = await makeTenant(call, deploymentToken, "a");
  const post = (path, body) => a.call(path, { method: "POST", body: JSON.stringify(body) });
  await post("/api/agents", { name: "eye", description: "offline: cannot see" });
  await post("/api/agents", {
    name: "fetcher",
    description: "may fetch from loopback",
    runtime: { allowHosts: ["127.0.0.1"] },
  });
  await a.call("/api/projects/a/secrets/VISION_KEY", {
    method: "PUT",
    body: JSON.stringify({ value: `sk-${randomBytes(8).toString("hex")}` }),
  });
  await a.call("/api/projects/a/providers/looker", {
    method: "PUT",
    body: JSON.stringify({ baseUrl: `${localUrl}/v1`, keySecret: "VISION_KEY" }),
  });
  const seer = await post("/api/agents", { name: "seer", model: "looker/gpt-4o-mini" });
  check("setup: three agents, one on a project provider that can see", seer.status === 201, shown(seer));

  // ---- /v1 with the official OpenAI SDK ------------------------------------------------------
  const openai = new OpenAI({
    baseURL: `${server.url}/v1`,
    apiKey: a.token,
    defaultHeaders: { "x-pantheon-project": "a" },
    maxRetries: 0,
  });
  const ask = (model, parts) =>
    openai.chat.completions.create({ model, messages: [{ role: "user", content: parts }] }).then(
      (r) => ({ ok: true, text: r.choices[0].message.content }),
      (e) => ({ ok: false, status: e.status, message: e.error?.message ?? e.message }),
    );
  const pngTurn = await ask("eye", [
    { type: "text", text: "What is in this picture?" },
    { type: "image_url", image_url: { url: dataUrl("image/png", png2x2) } },
  ]);
  check(
    "openai SDK: a 2x2 PNG as a data URL gets the offline model's plain 'cannot see … received 1 image/png 2x2'",
    pngTurn.ok &&
      pngTurn.text.startsWith("I cannot see images") &&
      pngTurn.text.includes(`I received 1 image/png 2x2 (${png2x2.length} bytes`),
    shown(pngTurn),
  );
  const jpegTurn = await ask("eye", [{ type: "image_url", image_url: { url: dataUrl("image/jpeg", jpeg16x8) } }]);
  check(
    "openai SDK: a 16x8 JPEG alone (no text) is received as image/jpeg 16x8",
    jpegTurn.ok && jpegTurn.text.includes(`I received 1 image/jpeg 16x8 (${jpeg16x8.length} bytes`),
    shown(jpegTurn),
  );
  const oversize = Buffer.alloc(5 * 1024 * 1024 + 512 * 1024);
  png2x2.copy(oversize);
  const tooBig = await ask("eye", [
    { type: "text", text: "big" },
    { type: "image_url", image_url: { url: dataUrl("image/png", oversize) } },
  ]);
  check(
    "openai SDK: a 5.5 MiB image is a 413 naming the 5 MiB limit",
    !tooBig.ok && tooBig.status === 413 && tooBig.message.includes("larger than 5 MiB"),
    shown(tooBig),
  );
  const notImage = await ask("eye", [
    { type: "text", text: "svg" },
    {
      type: "image_url",
      image_url: { url: dataUrl("image/png", Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>")) },
    },
  ]);
  check(
    "openai SDK: an SVG called image/png is a 415 naming the allowed types",
    !notImage.ok &&
      notImage.status === 415 &&
      notImage.message.includes("image/png, image/jpeg, image/webp or image/gif"),
    shown(notImage),
  );
  const loopRefused = await ask("eye", [
    { type: "text", text: "fetch it" },
    { type: "image_url", image_url: { url: `${localUrl}/cat.png` } },
  ]);
  check(
    "openai SDK: an http image URL on loopback is refused by the outbound guard for an agent whose allowHosts lack it",
    !loopRefused.ok &&
      loopRefused.status === 400 &&
      loopRefused.message.includes("image_url.url: the image URL is refused"),
    shown(loopRefused),
  );
  const loopFetched = await ask("fetcher", [
    { type: "text", text: "fetch it" },
    { type: "image_url", image_url: { url: `${localUrl}/cat.png` } },
  ]);
  check(
    "openai SDK (control): with loopback allowed and 127.0.0.1 in allowHosts, the loopback server's 4x3 PNG is fetched",
    loopFetched.ok && loopFetched.text.includes("I received 1 image/png 4x3"),
    shown(loopFetched),
  );
  const metadata = await ask("fetcher", [
    { type: "image_url", image_url: { url: "http://169.254.169.254/latest/meta-data/cat.png" } },
  ]);
  check(
    "openai SDK: the metadata address is refused even for that agent",
    !metadata.ok && metadata.status === 400,
    shown(metadata),
  );

  // ---- a real vision path: the provider receives the picture's bytes ----------------------------
  const seen = await ask("seer", [
    { type: "text", text: "Describe it." },
    { type: "image_url", image_url: { url: dataUrl("image/png", png2x2) } },
  ]);
  const sent = received.at(-1)?.messages?.at(-1)?.content;
  check(
    "a provider agent's OpenAI-compatible server receives the text and an image_url part with the PNG's bytes",
    seen.ok &&
      seen.text === "I see 1 image(s): a red square." &&
      Array.isArray(sent) &&
      sent[0]?.text === "Describe it." &&
      sent[1]?.image_url?.url === dataUrl("image/png", png2x2),
    shown({ seen, sent: JSON.stringify(sent)?.slice(0, 300) }),
  );

  // ---- AG-UI with @ag-ui/client ---------------------------------------------------------------
  const agui = new HttpAgent({
    url: `${server.url}/agui/agents/eye`,
    headers: { authorization: `Bearer ${a.token}`, "x-pantheon-project": "a" },
  });
  agui.addMessage({
    id: crypto.randomUUID(),
    role: "user",
    content: [
      { type: "text", text: "and this one?" },
      { type: "image", source: { type: "data", value: jpeg16x8.toString("base64"), mimeType: "image/jpeg" } },
    ],
  });
  let aguiText = "";
  const aguiRun = await agui
    .runAgent({}, { onTextMessageContentEvent: ({ event }) => void (aguiText += event.delta) })
    .catch((error) => ({ failure: error.message }));
  check(
    "@ag-ui/client: a user message with an image part gets 'cannot see … received 1 image/jpeg 16x8'",
    !aguiRun?.failure && aguiText.includes("I received 1 image/jpeg 16x8"),
    shown({ aguiText, aguiRun }),
  );

  // ---- the PWA's contract: upload, send by id, read back ------------------------------------------
  const upload = await fetch(`${server.url}/api/agents/eye/images`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.token}`, "x-pantheon-project": "a", "content-type": "image/jpeg" },
    body: png2x2,
  });
  const ref = await upload.json();
  check(
    "POST /api/agents/eye/images (declared image/jpeg, PNG bytes): 201 with the sniffed type and size",
    upload.status === 201 &&
      ref.type === "image/png" &&
      ref.width === 2 &&
      ref.height === 2 &&
      ref.bytes === png2x2.length,
    shown(ref),
  );
  const turn = await post("/api/agents/eye/messages", { content: "here it is", images: [ref.id] });
  const history = await a.call("/api/agents/eye/messages?limit=2");
  check(
    "a message naming the image id is answered and read back with the image ref on the user message",
    turn.status === 200 &&
      turn.body.reply.content.includes("I received 1 image/png 2x2") &&
      JSON.stringify(history.body.messages.find((m) => m.role === "user")?.images) === JSON.stringify([ref]),
    shown({ turn: turn.body?.reply, history: history.body }),
  );
  const back = await fetch(`${server.url}/api/agents/eye/images/${ref.id}`, {
    headers: { authorization: `Bearer ${a.token}`, "x-pantheon-project": "a" },
  });
  const bytes = Buffer.from(await back.arrayBuffer());
  // ---- the CLI's snapshot carries the images into another project --------------------------------
  const b = await makeTenant(call, deploymentToken, "b");
  const file = join(persistTo, "eye.snapshot.jsonl");
  const snap = await cli(["agents", "snapshot", "eye", "--out", file], { token: a.token, project: "a" });
  const restored = await cli(["agents", "restore", file, "--name", "copy"], { token: b.token, project: "b" });
  const copied = await fetch(`${server.url}/api/agents/copy/images/${ref.id}`, {
    headers: { authorization: `Bearer ${b.token}`, "x-pantheon-project": "b" },
  });
  const copiedBytes = Buffer.from(await copied.arrayBuffer());
  const copyHistory = await call(b.token, "b", "/api/agents/copy/messages?limit=50");
  check(
    "pantheon agents snapshot eye | restore --name copy into project b: the image is in b's store and the message still names it",
    snap.code === 0 &&
      /\d+ images?/.test(snap.stderr + snap.stdout) &&
      restored.code === 0 &&
      /Restored .*\d+ images?/.test(restored.stdout) &&
      copied.status === 200 &&
      copiedBytes.equals(png2x2) &&
      copyHistory.body?.messages?.some((m) => m.images?.[0]?.id === ref.id),
    shown({ snap: snap.stderr.slice(0, 200), restored: restored.stdout + restored.stderr, copied: copied.status }),
  );
  check(
    "GET …/images/:id gives the same bytes as image/png with nosniff",
    back.status === 200 &&
      back.headers.get("content-type") === "image/png" &&
      back.headers.get("x-content-type-options") === "nosniff" &&
      bytes.equals(png2x2),
    shown({ status: back.status, type: back.headers.get("content-type") }),
  );
} finally {
  await server?.stop();
  await new Promise((resolve) => local.close(resolve));
  await rm(persistTo, { recursive: true, force: true });
}
finish();
