import { orchestrationRoutes } from "./orchestration";
import { Hono } from "hono";
import type { ExtractSchema } from "hono/types";
import type { AppEnv } from "../env";
import { agentRoutes } from "./agents";
import { agentInteropRoutes } from "./agent-interop";
import { busRoutes, conversationRoutes } from "./bus";
import { connectionRoutes } from "./connections";
import { featureRoutes } from "./features";
import { gatewayRoutes } from "../doors/gateways/admin-routes";
import { contextRoutes } from "./context";
import { healthRoutes, version } from "./health";
import { mcpRoutes } from "./mcp";
import { mcpProjectRoutes } from "./mcp-project";
import { memoryRoutes } from "./memory";
import { snapshotRoutes } from "./snapshots";
import { evalRoutes } from "./evals";
import { messageRoutes } from "./messages";
import { imageRoutes } from "../images";
import { projectRoutes } from "./projects";
import { forgeRoutes } from "./forge";
import { quotaDeploymentRoutes, quotaRoutes } from "./quotas";
import { secretRoutes } from "./secrets";
import { providerRoutes } from "./providers";
import { telegramOwnerRoutes } from "../doors/gateways/admin-routes";
import { approvalRoutes, runRoutes } from "./runs";
import { scheduleRoutes } from "./schedules";
import { scriptRoutes } from "./scripts";
import { scriptToolRoutes } from "./script-tools";
import { skillRoutes } from "./skills";
import { sessionRoutes } from "./sessions";
import { inviteRedeemRoutes, inviteRoutes } from "./invites";
import { pushRoutes } from "./push";
import { tokenRoutes } from "./tokens";
import { toolRoutes } from "./tools";

/** `GET /api/health` without a token (its contract; workers/app.ts answers it ahead of auth). */
export const livenessRoutes = new Hono<AppEnv>().get("/api/health", (c) => c.json({ ok: true, version }));

/**
 * Every authenticated `/api` route, chained so Hono infers each one's input and output types.
 * workers/app.ts mounts it after auth and the scope policy; the order here is the matching order.
 */
export const apiRoutes = new Hono<AppEnv>()
  .route("/api/health", healthRoutes)
  .route("/api/agents", agentInteropRoutes)
  .route("/api/agents", agentRoutes)
  .route("/api/agents", messageRoutes)
  .route("/api/agents", imageRoutes)
  .route("/api/agents", sessionRoutes)
  .route("/api/agents", runRoutes)
  .route("/api/agents", mcpRoutes)
  .route("/api/agents", toolRoutes)
  .route("/api/agents", scriptRoutes)
  .route("/api/agents", scheduleRoutes)
  .route("/api/agents", memoryRoutes)
  .route("/api/agents", snapshotRoutes)
  .route("/api/agents", evalRoutes)
  .route("/api/agents", contextRoutes)
  .route("/api/agents", orchestrationRoutes)
  .route("/api/approvals", approvalRoutes)
  .route("/api/tokens", tokenRoutes)
  .route("/api/invites", inviteRoutes)
  .route("/api/push", pushRoutes)
  .route("/api/agents", connectionRoutes)
  .route("/api/bus", busRoutes)
  .route("/api/conversations", conversationRoutes)
  .route("/api/agents", gatewayRoutes)
  .route("/api/features", featureRoutes)
  .route("/api/projects", projectRoutes)
  .route("/api/projects", secretRoutes)
  .route("/api/projects", forgeRoutes)
  .route("/api/projects", providerRoutes)
  .route("/api/projects", scriptToolRoutes)
  .route("/api/projects", skillRoutes)
  .route("/api/projects", mcpProjectRoutes)
  .route("/api/projects", quotaDeploymentRoutes)
  .route("/api/quotas", quotaRoutes)
  .route("/api/gateways", telegramOwnerRoutes);

/**
 * The HTTP API's contract: every `/api` route with its params, query, body and response. Clients
 * import it as a type only (nothing of the worker is bundled) and call through Hono's `hc`.
 * @example
 * import { hc } from "hono/client";
 * import type { ApiRoutes } from "../../workers/api";
 * const client = hc<ApiRoutes>("https://pantheon.example", { headers: { authorization: `Bearer ${token}` } });
 * const { agents } = await (await client.api.agents.$get()).json();
 */
export type ApiRoutes = Hono<
  AppEnv,
  ExtractSchema<typeof livenessRoutes | typeof inviteRedeemRoutes | typeof apiRoutes>
>;

export { inviteRedeemRoutes };
