import { PantheonError } from "../errors";

/**
 * Which feature a work tool acts on, with no global state: the one named, else the one the run's own
 * context belongs to (a worker knows its task), else the project's only feature, else an error that
 * lists the candidates.
 * @example
 * resolveFeature({ explicit: undefined, own: "login-page", all: ["a", "login-page"] }) // "login-page"
 */
export function resolveFeature(input: {
  explicit?: string | undefined;
  own?: string | null | undefined;
  all: readonly string[];
}): string {
  if (input.explicit) {
    if (!input.all.includes(input.explicit)) {
      throw new PantheonError(
        "not_found",
        `feature '${input.explicit}' does not exist${input.all.length ? ` (features: ${input.all.join(", ")})` : " (the project has no features yet)"}`,
        {
          details: { feature: input.explicit, candidates: [...input.all] },
        },
      );
    }
    return input.explicit;
  }
  if (input.own) return input.own;
  if (input.all.length === 1) return input.all[0]!;
  if (input.all.length === 0)
    throw new PantheonError("not_found", "the project has no features yet: create one with feature.create", {
      details: { candidates: [] },
    });
  throw new PantheonError(
    "validation_failed",
    `several features exist; name one with 'feature': ${input.all.join(", ")}`,
    {
      details: {
        candidates: [...input.all],
        issues: [{ path: ["feature"], message: `one of: ${input.all.join(", ")}` }],
      },
    },
  );
}
