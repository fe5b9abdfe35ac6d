import type { ImageOwner, ImageStorePort, LlmPort, LlmRequest } from "../../../core/ports";

/** Base64 of bytes, in slices (a spread of megabytes into one call would overflow the stack). */
function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

/**
 * The model port with the bytes of the request's images: loaded from the agent's store when the call
 * is built, only for the messages that go to the model (history the context left out loads nothing),
 * and only when there are images (a text turn reads no storage). The offline stand-in sees no bytes:
 * it is given none.
 * @example
 * const llm = withImageBytes(llmForProfile(profile, env), imageStore, { project, agent });
 */
export function withImageBytes(llm: LlmPort, store: ImageStorePort, owner: ImageOwner): LlmPort {
  async function loaded(request: LlmRequest): Promise<LlmRequest> {
    if (llm.provider === "offline") return request;
    const ids = new Set<string>();
    for (const message of request.messages) for (const image of message.images ?? []) ids.add(image.id);
    if (ids.size === 0) return request;
    const imageData: Record<string, string> = {};
    await Promise.all(
      [...ids].map(async (id) => {
        const bytes = await store.read(owner, id);
        if (bytes) imageData[id] = base64Of(bytes);
      }),
    );
    return { ...request, imageData };
  }
  return {
    provider: llm.provider,
    complete: async (request) => llm.complete(await loaded(request)),
    async *stream(request) {
      yield* llm.stream(await loaded(request));
    },
  };
}
