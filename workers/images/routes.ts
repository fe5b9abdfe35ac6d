import { Hono } from "hono";
import { z } from "zod";
import { agentNameSchema } from "../../core/agents";
import { PantheonError, unknownAgent } from "../../core/errors";
import { imageIdPattern, maxImageBytes } from "../../core/images";
import { nameParam } from "../api/agents";
import { lazySchema } from "../../core/lazy-schema";
import { registryStub } from "../../durable-objects/stubs";
import type { AppContext, AppEnv } from "../env";
import { readsOwnBody } from "../own-body";
import { scope } from "../scopes";
import { valid } from "../validation";
import { imageStoreOf, readCapped, storeImage } from "./ingest";

const imageParam = lazySchema(() =>
  z.object({
    name: agentNameSchema,
    id: z.string().regex(imageIdPattern, "an image id as the upload answered (<sha256>.<png|jpg|webp|gif>)"),
  }),
);

/** Multipart bodies may carry a little more than the file itself (boundaries, part headers). */
const multipartSlack = 64 * 1024;

/** The agent must exist in the token's project: an image is never stored for a name no one made. */
async function ownerOf(c: AppContext, name: string) {
  const project = c.get("project");
  if (!(await registryStub(c.env, project).getAgent(name)).ok) throw unknownAgent(name, project);
  return { project, agent: name };
}

/** The uploaded bytes: the raw body, or the `file` field of a multipart form. */
async function uploadedBytes(c: AppContext): Promise<{ bytes: Uint8Array; field: string }> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (!type.startsWith("multipart/form-data"))
    return { bytes: await readCapped(c.req.raw.body, "body", c.req.header("content-length")), field: "body" };
  // The form is parsed from a body read with the cap (a chunked body has no length to refuse up front).
  const body = await readCapped(c.req.raw.body, "file", c.req.header("content-length"), maxImageBytes + multipartSlack);
  let form: FormData;
  try {
    form = await new Response(body as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": c.req.header("content-type")! },
    }).formData();
  } catch {
    throw new PantheonError(
      "bad_request",
      "the multipart body could not be read: send the image as the form field 'file' (or as the raw body with its Content-Type)",
    );
  }
  const file = form.get("file");
  if (!file || typeof file === "string")
    throw new PantheonError("validation_failed", "file: send the image as the form field 'file'", {
      details: { issues: [{ path: ["file"], message: "send the image as the form field 'file'" }] },
    });
  return { bytes: await readCapped(file.stream(), "file", String(file.size)), field: "file" };
}

/**
 * An agent's images: `POST /api/agents/:name/images` (the raw bytes with their Content-Type, or a
 * multipart `file`) stores one and answers its ref; `GET /api/agents/:name/images/:id` gives it back.
 * The type is what the bytes are (core/images sniffImage), never what the request calls them.
 * @example
 * const res = await fetch(`${base}/api/agents/scout/images`, { method: "POST", headers: { authorization, "content-type": "image/jpeg" }, body: jpeg });
 * const { id } = await res.json(); // then POST …/messages { content: "what is this?", images: [id] }
 */
export const imageRoutes = new Hono<AppEnv>()
  .post(
    "/:name/images",
    scope("chat"),
    readsOwnBody(maxImageBytes + multipartSlack),
    valid("param", nameParam),
    async (c) => {
      const owner = await ownerOf(c, c.req.valid("param").name);
      const { bytes, field } = await uploadedBytes(c);
      const ref = await storeImage(imageStoreOf(c.env), owner, bytes, field);
      return c.json(ref, 201);
    },
  )
  .get("/:name/images/:id", scope("chat"), valid("param", imageParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const owner = await ownerOf(c, name);
    const found = await imageStoreOf(c.env).open(owner, id);
    if (!found) throw new PantheonError("not_found", `no image '${id}' in agent '${name}'`, { details: { image: id } });
    return c.body(found.body, 200, {
      "content-type": found.ref.type,
      "content-length": String(found.ref.bytes),
      "x-content-type-options": "nosniff",
      // Content-addressed: the same id is always the same bytes.
      "cache-control": "private, max-age=31536000, immutable",
    });
  });
