import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { FeatureDO } from "../../durable-objects/feature/feature-do";
import { approvedFeature } from "./helpers";

const stubOf = (feature: string) =>
  (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${feature}`)) as DurableObjectStub<FeatureDO>;
const admin = { kind: "person" as const, id: "admin", scope: "admin" as const };
const workerOf = (feature: string, task: number) => ({ kind: "agent" as const, name: `${feature}-task-${task}` });

describe("a task's pending diff", () => {
  it("is against the task's own base: another task merged meanwhile does not show in it", async () => {
    const f = await approvedFeature("## Tasks\n1. One — first\n2. Two — second\n", {
      files: { "shared.ts": "export const a = 1;\n" },
    });
    const stub = stubOf(f.feature);
    for (const task of [1, 2]) expect((await stub.beginTask(task, admin)).ok).toBe(true);
    await stub.writeFile({ task: 1, path: "shared.ts", content: "export const a = 2;\n" }, workerOf(f.feature, 1));
    const one = ((await stub.taskDetail(1)) as any).value;
    expect(one.patch).toContain("-export const a = 1;");
    expect(one.patch).toContain("+export const a = 2;");
    const merged = (await stub.commitTask({ task: 1, key: "one", summary: "a is 2" }, workerOf(f.feature, 1))) as any;
    expect(merged.value.committed).toBe(true);

    // Task 2 began at the first commit: it adds a line to the file as it saw it.
    await stub.writeFile(
      { task: 2, path: "shared.ts", content: "export const a = 1;\nexport const b = 1;\n" },
      workerOf(f.feature, 2),
    );
    const two = ((await stub.taskDetail(2)) as any).value;
    expect(two.patch).toContain("+export const b = 1;");
    expect(two.patch).not.toContain("export const a = 2;");
    expect(two.patch).not.toContain("-export const a");
    expect(two.pending).toMatchObject({ filesChanged: 1, insertions: 1, deletions: 0 });
  });
});
