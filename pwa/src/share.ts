import { shrinkFile } from "./picture-shrink";
import type { Picture } from "./pictures";

/**
 * Web Share Target: another app shares a link, some text or photos into Pantheon. The service
 * worker (sw.ts) takes the POST, keeps what was shared in this cache and opens `#/share`, where the
 * person chooses the agent; its chat then opens with the text and the photos in the composer.
 */
export const shareCache = "pantheon-share";

/** What was shared, once: reading it removes it. Null when nothing waits. */
export async function takeShared(): Promise<{ content: string; pictures: Picture[] } | null> {
  if (!("caches" in globalThis)) return null;
  const cache = await caches.open(shareCache);
  const meta = await cache.match("/shared/meta");
  if (!meta) return null;
  const { title, text, url, files } = (await meta.json()) as {
    title?: string;
    text?: string;
    url?: string;
    files: { name: string }[];
  };
  const pictures: Picture[] = [];
  for (const [i, file] of files.entries()) {
    const res = await cache.match(`/shared/file/${i}`);
    if (res) pictures.push({ ...(await shrinkFile(await res.blob(), file.name)), key: `shared:${i}` });
  }
  await caches.delete(shareCache);
  // A shared page often repeats its URL in its text: it is said once.
  const content = [title, text, url && !text?.includes(url) ? url : ""].filter(Boolean).join("\n");
  return { content, pictures };
}
