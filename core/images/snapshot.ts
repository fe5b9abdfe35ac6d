import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { imageIdPattern, maxImageBytes } from "./limits";

/** An image ref as a message line of a snapshot carries it. */
export const imageRefSchema = lazySchema(() =>
  z.strictObject({
    id: z.string().regex(imageIdPattern, "an image id (<sha256>.<png|jpg|webp|gif>)"),
    type: z.enum(["image/png", "image/jpeg", "image/webp", "image/gif"]),
    bytes: z.number().int().min(1).max(maxImageBytes),
    width: z.number().int().min(1).optional(),
    height: z.number().int().min(1).optional(),
  }),
);

/**
 * One image of an agent in its snapshot: the ref and the bytes as base64. A restore checks the bytes
 * again (their hash must be the id) and writes them into the new project's store.
 * @example
 * {"type":"image","id":"3f…a1.png","mediaType":"image/png","bytes":68,"width":2,"height":2,"data":"iVBORw0…"}
 */
export const snapshotImageSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal("image"),
    id: z.string().regex(imageIdPattern, "an image id (<sha256>.<png|jpg|webp|gif>)"),
    mediaType: z.string().max(40),
    bytes: z.number().int().min(1).max(maxImageBytes),
    width: z.number().int().min(1).optional(),
    height: z.number().int().min(1).optional(),
    data: z.string().max(Math.ceil(maxImageBytes / 3) * 4 + 4),
  }),
);
export type SnapshotImage = z.infer<typeof snapshotImageSchema>;

/** Whether a snapshot line is an image line (cheap: before any JSON parse). */
export const isImageLine = (line: string) => /^\{\s*"type"\s*:\s*"image"/.test(line);
