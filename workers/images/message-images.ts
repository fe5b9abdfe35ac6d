import { PantheonError } from "../../core/errors";
import type { ImageOwner, ImageRef, ImageStorePort } from "../../core/ports";

/**
 * The refs of the image ids a message names, each from the agent's own store: an id the store does
 * not hold (another agent's or project's included) is a 400 naming it.
 */
export async function refsOfIds(
  store: ImageStorePort,
  owner: ImageOwner,
  ids: readonly string[],
  field = "images",
): Promise<ImageRef[]> {
  const refs = await Promise.all(ids.map((id) => store.head(owner, id)));
  return refs.map((ref, index) => {
    if (ref) return ref;
    throw new PantheonError(
      "bad_request",
      `${field}[${index}]: no image '${ids[index]}' in agent '${owner.agent}' (upload it first: POST /api/agents/${owner.agent}/images)`,
      { details: { field: `${field}[${index}]`, image: ids[index] } },
    );
  });
}
