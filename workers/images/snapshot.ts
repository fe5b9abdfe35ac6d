// An agent's images in its snapshot: `image` lines after the agent's own lines on export, and on
// restore written into the target project's store before the rest of the slice reaches the agent.
import { imageRefOf, isImageLine, snapshotImageSchema, type SnapshotImage } from "../../core/images";
import type { ImageOwner, ImageStorePort } from "../../core/ports";

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

/** Every image of the agent as snapshot lines, and how many. */
export async function imageSnapshotLines(
  store: ImageStorePort,
  owner: ImageOwner,
): Promise<{ text: string; count: number }> {
  let text = "";
  let count = 0;
  for (const ref of await store.list(owner)) {
    const bytes = await store.read(owner, ref.id);
    if (!bytes) continue;
    const line: SnapshotImage = {
      type: "image",
      id: ref.id,
      mediaType: ref.type,
      bytes: ref.bytes,
      ...(ref.width ? { width: ref.width } : {}),
      ...(ref.height ? { height: ref.height } : {}),
      data: base64Of(bytes),
    };
    text += JSON.stringify(line) + "\n";
    count++;
  }
  return { text, count };
}

/**
 * Stores the slice's image lines in the owner's store (each checked again: its bytes must be an image
 * whose hash is its id) and answers the slice with those lines left blank, so the agent's line numbers
 * still match the request's.
 */
export async function restoreImageLines(
  store: ImageStorePort,
  owner: ImageOwner,
  text: string,
): Promise<{ rest: string; images: number; errors: Array<{ line: number; message: string }> }> {
  const lines = text.split("\n");
  const errors: Array<{ line: number; message: string }> = [];
  let images = 0;
  for (let index = 0; index < lines.length; index++) {
    if (!isImageLine(lines[index]!)) continue;
    const raw = lines[index]!;
    lines[index] = "";
    const line = index + 1;
    let parsed: ReturnType<typeof snapshotImageSchema.safeParse>;
    try {
      parsed = snapshotImageSchema.safeParse(JSON.parse(raw));
    } catch (error) {
      errors.push({ line, message: `not JSON: ${error instanceof Error ? error.message : String(error)}` });
      continue;
    }
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      errors.push({ line, message: `${issue.path.join(".") || "image"}: ${issue.message}` });
      continue;
    }
    try {
      const bytes = Uint8Array.from(atob(parsed.data.data), (c) => c.charCodeAt(0));
      const ref = await imageRefOf(bytes, "data");
      if (ref.id !== parsed.data.id) {
        errors.push({ line, message: `data: the bytes are not image '${parsed.data.id}' (their hash is ${ref.id})` });
        continue;
      }
      await store.put(owner, ref, bytes);
      images++;
    } catch (error) {
      errors.push({ line, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return { rest: lines.join("\n"), images, errors };
}
