import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { projectNameSchema } from "../agents/profile";

/** The project every deployment has: it always exists and cannot be deleted. */
export const defaultProject = "default";

/**
 * The registry instance holding the list of created projects (`GET /api/projects`). Not a valid
 * project slug, so no project's registry can be this one.
 */
export const projectIndexName = "__project-index";

/** A project as its registry and the project index keep it. */
export interface ProjectRecord {
  slug: string;
  title: string;
  createdAt: number;
}

/** `POST /api/projects`. */
export const createProjectSchema = lazySchema(() =>
  z.strictObject({
    slug: projectNameSchema,
    title: z.string().trim().min(1, "at least one character").max(200, "at most 200 characters").optional(),
  }),
);
export type CreateProject = z.infer<typeof createProjectSchema>;

/**
 * What a project's registry says about itself: created explicitly (a record), from before creation
 * was explicit (agents or tokens but no record: adopted, so an upgraded deployment keeps its
 * projects), or never created.
 * @example
 * projectStatus({ stored: null, hasData: true, slug: "team", now: 5 }) // { record: { slug: "team", title: "team", createdAt: 5 }, adopted: true }
 */
export function projectStatus(input: {
  stored: ProjectRecord | null;
  hasData: boolean;
  slug: string;
  now: number;
}): { record: ProjectRecord; adopted: boolean } | null {
  if (input.stored) return { record: input.stored, adopted: false };
  if (input.hasData || input.slug === defaultProject)
    return { record: { slug: input.slug, title: input.slug, createdAt: input.now }, adopted: true };
  return null;
}
