import { describe, expect, it } from "vitest";
import { OutboundRefused } from "../../core/tools";
import { guardedFetchFor } from "../../durable-objects/feature/repo/remote";

/** A fetch that records where it was sent and answers `answer` (a redirect, or 200). */
function recorder(answer: (url: string) => Response = () => new Response("ok")) {
  const reached: string[] = [];
  const fetchImpl = async (input: string | URL | Request) => {
    const url = new Request(input).url;
    reached.push(url);
    return answer(url);
  };
  return { reached, fetchImpl };
}
const envWith = (vars: Record<string, string>) => vars as unknown as Env;
const remote = "https://git.corp.internal/acme/app.git";

describe("a git remote on a private network", () => {
  it("is refused until the deployment admin names its host, then reached", async () => {
    const closed = recorder();
    await expect(guardedFetchFor(envWith({}), remote, closed.fetchImpl)(`${remote}/info/refs`)).rejects.toBeInstanceOf(
      OutboundRefused,
    );
    expect(closed.reached).toEqual([]);
    const open = recorder();
    const env = envWith({ PANTHEON_OUTBOUND_PRIVATE_HOSTS: "git.corp.internal" });
    expect(await (await guardedFetchFor(env, remote, open.fetchImpl)(`${remote}/info/refs`)).text()).toBe("ok");
    expect(open.reached).toEqual([`${remote}/info/refs`]);
  });

  it("opens only that host: another private host, and a redirect from the named one, stay refused", async () => {
    const env = envWith({ PANTHEON_OUTBOUND_PRIVATE_HOSTS: "git.corp.internal" });
    const other = recorder();
    const wiki = "https://wiki.corp.internal/acme/app.git";
    await expect(guardedFetchFor(env, wiki, other.fetchImpl)(`${wiki}/info/refs`)).rejects.toBeInstanceOf(
      OutboundRefused,
    );
    expect(other.reached).toEqual([]);
    const redirected = recorder(
      () => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data" } }),
    );
    await expect(guardedFetchFor(env, remote, redirected.fetchImpl)(`${remote}/info/refs`)).rejects.toBeInstanceOf(
      OutboundRefused,
    );
    expect(redirected.reached).toEqual([`${remote}/info/refs`]);
  });
});
