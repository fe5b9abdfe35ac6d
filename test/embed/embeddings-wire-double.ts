import { makeHashedEmbedder } from "../../adapters/embed-hashed";

export interface WireCall {
  url: string;
  headers: Record<string, string>;
  body: { model: string; input: string[]; dimensions?: number };
}

/**
 * A `fetch` speaking the OpenAI embeddings wire format, backed by the hashed embedder. It answers
 * `data` in reverse order (the API does not promise order; `index` is what counts).
 */
export function makeEmbeddingsWireDouble(options: { dimensions: number; fail?: { status: number; body: unknown } }) {
  const hashed = makeHashedEmbedder({ dimensions: options.dimensions });
  const calls: WireCall[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as WireCall["body"];
    calls.push({ url: String(input), headers: Object.fromEntries(new Headers(init?.headers).entries()), body });
    if (options.fail) {
      return new Response(
        typeof options.fail.body === "string" ? options.fail.body : JSON.stringify(options.fail.body),
        {
          status: options.fail.status,
          headers: { "content-type": "application/json" },
        },
      );
    }
    const vectors = await hashed.embed(body.input);
    const data = vectors.map((embedding, index) => ({ object: "embedding", index, embedding })).reverse();
    return Response.json({ object: "list", data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  };
  return { fetch, calls };
}
