import { makeApi } from "./api";

/**
 * Whether this device's token is good in `project`: a link into another project (a notice's
 * `?project=`) switches the app there only then — a deployment admin's token, or a person's of that
 * project. A refusal (or no network) keeps the device where it is.
 * @example
 * if (await tokenWorksIn("shop", { getToken })) switchTo("shop");
 */
export async function tokenWorksIn(
  project: string,
  deps: { getToken: () => string | null; fetch?: typeof fetch; baseUrl?: string },
): Promise<boolean> {
  if (!deps.getToken()) return false;
  try {
    await makeApi({
      getToken: deps.getToken,
      getProject: () => project,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      ...(deps.baseUrl ? { baseUrl: deps.baseUrl } : {}),
    }).listAgents();
    return true;
  } catch {
    return false;
  }
}
