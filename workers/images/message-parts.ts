// Images inside a protocol's user message: OpenAI `image_url` parts (/v1) and AG-UI `image` parts
// (/agui). Each is a data URL/inline base64 or an http(s) URL fetched through the outbound guard, then
// checked by its content and stored in the agent's store like an upload. The doors call these.
import { PantheonError } from "../../core/errors";
import { maxImagesPerMessage } from "../../core/images";
import type { ImageOwner, ImageRef } from "../../core/ports";
import { bytesOfDataUrl, bytesOfUrl, imageStoreOf, storeImage } from "./ingest";

/**
 * Request bodies of a door that takes images inline: one 5 MiB image as base64 (6.7 MiB) with room for
 * the conversation. Larger than the API's 64 KiB; an upload route reads its own body.
 */
export const maxInlineImageBodyBytes = 8 * 1024 * 1024;

/** One image of a message: where its bytes are, and the field that named it (errors say it). */
export interface ImageSource {
  field: string;
  url: string;
}

/** What a door needs to take images into an agent: its store's owner and, for URLs, the agent's allowHosts. */
export interface ImageDoor {
  env: Env;
  owner: ImageOwner;
  allowHosts(): Promise<readonly string[]>;
}

/** Stores every image source (data: or http(s):) and answers their refs in order. */
export async function storeImageSources(
  door: ImageDoor,
  sources: readonly ImageSource[],
  field: string,
): Promise<ImageRef[]> {
  if (sources.length > maxImagesPerMessage) {
    throw new PantheonError(
      "validation_failed",
      `${field}: at most ${maxImagesPerMessage} images per message (got ${sources.length})`,
      { details: { issues: [{ path: [field], message: `at most ${maxImagesPerMessage} images per message` }] } },
    );
  }
  const store = imageStoreOf(door.env);
  const refs: ImageRef[] = [];
  for (const source of sources) {
    let bytes: Uint8Array;
    if (source.url.startsWith("data:")) bytes = bytesOfDataUrl(source.url, source.field);
    else if (/^https?:\/\//i.test(source.url))
      bytes = await bytesOfUrl(door.env, await door.allowHosts(), source.url, source.field);
    else
      throw new PantheonError(
        "bad_request",
        `${source.field}: an image is a data URL ('data:image/png;base64,…') or an http(s) URL`,
        { details: { field: source.field } },
      );
    refs.push(await storeImage(store, door.owner, bytes, source.field));
  }
  return refs;
}

/** The image sources of an OpenAI user message's content parts (`{ type: "image_url", image_url: { url } }`). */
export function openAiImageSources(content: unknown, param: string): ImageSource[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: { type?: unknown; image_url?: { url?: unknown } | string }, index) => {
    if (part?.type !== "image_url") return [];
    const url = typeof part.image_url === "string" ? part.image_url : part.image_url?.url;
    const field = `${param}[${index}].image_url.url`;
    if (typeof url !== "string" || !url)
      throw new PantheonError("bad_request", `${field}: give the image as a data URL or an http(s) URL`, {
        details: { field },
      });
    return [{ field, url }];
  });
}

/**
 * The image sources of an AG-UI user message's parts: `{ type: "image", source: { type: "data", value,
 * mimeType } | { type: "url", value } }` (the pre-1.0 `binary` part with `data` or `url` too). A
 * provider's file handle cannot be read here: it is refused by name.
 */
export function aguiImageSources(content: unknown, path: string): ImageSource[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap(
    (
      part: {
        type?: unknown;
        source?: { type?: unknown; value?: unknown; mimeType?: unknown };
        data?: unknown;
        url?: unknown;
        mimeType?: unknown;
      },
      index,
    ) => {
      const field = `${path}[${index}]`;
      if (part?.type === "binary" && typeof part.mimeType === "string" && part.mimeType.startsWith("image/")) {
        if (typeof part.data === "string")
          return [{ field: `${field}.data`, url: `data:${part.mimeType};base64,${part.data}` }];
        if (typeof part.url === "string") return [{ field: `${field}.url`, url: part.url }];
      }
      if (part?.type !== "image") return [];
      const source = part.source;
      if (source?.type === "data" && typeof source.value === "string")
        return [
          {
            field: `${field}.source.value`,
            url: `data:${typeof source.mimeType === "string" ? source.mimeType : "image/png"};base64,${source.value}`,
          },
        ];
      if (source?.type === "url" && typeof source.value === "string")
        return [{ field: `${field}.source.value`, url: source.value }];
      throw new PantheonError(
        "bad_request",
        `${field}.source: an image's source is { type: "data", value: <base64>, mimeType } or { type: "url", value } (a provider's file handle cannot be read here)`,
        { details: { field: `${field}.source` } },
      );
    },
  );
}
