import type { ImageOwner, ImageRef, ImageStorePort } from "../../core/ports";

type Meta = {
  size: number;
  key: string;
  httpMetadata?: { contentType?: string };
  customMetadata?: Record<string, string>;
};

/** The slice of an R2 bucket binding this adapter uses (so type checks outside workerd need no Cloudflare types). */
export interface R2BucketSlice {
  head(key: string): Promise<Meta | null>;
  get(key: string): Promise<(Meta & { body: ReadableStream<Uint8Array>; arrayBuffer(): Promise<ArrayBuffer> }) | null>;
  put(
    key: string,
    value: Uint8Array,
    options: { httpMetadata: { contentType: string }; customMetadata: Record<string, string>; sha256: string },
  ): Promise<unknown>;
  delete(keys: string[]): Promise<void>;
  list(options: {
    prefix: string;
    include: ("httpMetadata" | "customMetadata")[];
    cursor?: string;
  }): Promise<{ objects: Meta[]; truncated: boolean; cursor?: string }>;
}

const keyOf = (owner: ImageOwner, id: string) => `${owner.project}/${owner.agent}/${id}`;

/** The ref an object's metadata keeps (written by `put`). */
function refOf(
  id: string,
  object: { size: number; httpMetadata?: { contentType?: string }; customMetadata?: Record<string, string> },
): ImageRef {
  const width = Number(object.customMetadata?.width);
  const height = Number(object.customMetadata?.height);
  return {
    id,
    type: object.httpMetadata?.contentType ?? "application/octet-stream",
    bytes: object.size,
    ...(width > 0 ? { width } : {}),
    ...(height > 0 ? { height } : {}),
  };
}

/**
 * Images in an R2 bucket under `<project>/<agent>/<sha256>.<ext>`. The key is the content's hash, so
 * a retried upload finds its object there and writes nothing.
 * @example
 * const images = makeR2ImageStore(env.IMAGES);
 * await images.put({ project: "default", agent: "scout" }, ref, bytes);
 */
export function makeR2ImageStore(bucket: R2BucketSlice): ImageStorePort {
  return {
    async put(owner, ref, bytes) {
      const key = keyOf(owner, ref.id);
      if (await bucket.head(key)) return;
      await bucket.put(key, bytes, {
        httpMetadata: { contentType: ref.type },
        customMetadata: {
          ...(ref.width ? { width: String(ref.width) } : {}),
          ...(ref.height ? { height: String(ref.height) } : {}),
        },
        sha256: ref.id.slice(0, 64),
      });
    },
    async head(owner, id) {
      const object = await bucket.head(keyOf(owner, id));
      return object ? refOf(id, object) : null;
    },
    async open(owner, id) {
      const object = await bucket.get(keyOf(owner, id));
      return object ? { ref: refOf(id, object), body: object.body } : null;
    },
    async read(owner, id) {
      const object = await bucket.get(keyOf(owner, id));
      return object ? new Uint8Array(await object.arrayBuffer()) : null;
    },
    async list(owner) {
      const refs: ImageRef[] = [];
      const prefix = `${owner.project}/${owner.agent}/`;
      let cursor: string | undefined;
      do {
        const page = await bucket.list({
          prefix,
          include: ["httpMetadata", "customMetadata"],
          ...(cursor ? { cursor } : {}),
        });
        for (const object of page.objects) refs.push(refOf(object.key.slice(prefix.length), object));
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
      return refs;
    },
    async removeAll(owner) {
      const prefix = `${owner.project}/${owner.agent}/`;
      let removed = 0;
      for (;;) {
        // Each page is deleted before the next is listed, so the listing starts again from the top.
        const page = await bucket.list({ prefix, include: [] });
        if (!page.objects.length) return removed;
        await bucket.delete(page.objects.map((o) => o.key));
        removed += page.objects.length;
      }
    },
  };
}
