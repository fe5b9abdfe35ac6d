import { and, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import {
  otlpTraceRequest,
  parseOtlpHeaders,
  runSpans,
  telemetrySettings,
  type SpanRecord,
} from "../../../core/telemetry";
import { hostOf } from "../../../core/secrets";
import { makeGuardedFetch, outboundSettingsFrom } from "../../../core/tools";
import type { BusRequest } from "../../../core/bus";
import type { RunStore } from "../runs/store";
import * as schema from "../schema";

export { telemetrySettings };

export interface TelemetryDeps {
  db: DrizzleSqliteDODatabase<typeof schema>;
  storage: DurableObjectState["storage"];
  env: Env;
  project(): string;
  agent(): string;
  runs: RunStore;
  /** The project's own telemetry settings, loaded once per instance (secrets/project-secrets.ts). */
  settings(): Promise<Partial<Record<(typeof telemetrySettings)[number], string>>>;
  /** Every secret this agent could hold, in every form, out of the spans (core/redaction). */
  redact<T>(value: T): T;
  /** Runs `flush` again after `seconds` (the agents SDK's schedule: it survives an eviction). */
  retryIn(seconds: number): Promise<void>;
  background(work: Promise<unknown>): void;
}

const prefix = "otel/";
/** Runs kept waiting for a receiver that does not answer; older ones are dropped (and said so). */
const maxPending = 500;
const batchRuns = 50;
const sendTimeoutMs = 10_000;

/**
 * Exports each finished run to the project's OTLP/HTTP receiver, off the response path: the run's
 * spans are built from its trace (core/telemetry), kept in the object's storage first, then sent in
 * batches; a failed send is retried with backoff by a schedule, so an eviction or a receiver that is
 * down loses nothing (up to the last 500 runs). A project with no endpoint costs one look at its
 * settings per instance. The settings are the agent's project secrets, forgotten when the project
 * changes one (workers/project-secrets `secretsChanged` tells every agent of an OTLP setting): a new
 * endpoint or header applies from the next batch, and a deleted endpoint stops the export at once
 * and drops what waited. Spans and logs pass the agent's redactor, the OTLP header among its secrets.
 */
export function makeTelemetry(deps: TelemetryDeps) {
  let failures = 0;
  let flushing: Promise<void> | undefined;

  function askedBy(runId: string) {
    const row = deps.db
      .select({ request: schema.busInbox.request, conversationId: schema.busInbox.conversationId })
      .from(schema.busInbox)
      .where(and(eq(schema.busInbox.runId, runId), eq(schema.busInbox.type, "request")))
      .get();
    const request = row?.request as BusRequest | null | undefined;
    return request?.replyTo
      ? { conversationId: row!.conversationId, runId: request.replyTo.runId, callId: request.replyTo.callId }
      : undefined;
  }

  async function record(runId: string): Promise<boolean> {
    const settings = await deps.settings();
    if (!settings.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
    const run = deps.runs.get(runId);
    if (!run) return false;
    const by = askedBy(runId);
    const spans = runSpans({
      project: deps.project(),
      agent: deps.agent(),
      run: {
        id: run.id,
        sessionId: run.sessionId,
        status: run.status,
        trigger: run.trigger,
        startedAt: run.startedAt,
        updatedAt: run.finishedAt ?? run.startedAt,
        error: run.error ?? null,
      },
      trace: deps.runs.trace(runId),
      ...(by ? { askedBy: by } : {}),
    });
    await deps.storage.put(`${prefix}${String(Date.now()).padStart(15, "0")}-${runId}`, deps.redact(spans));
    return true;
  }

  async function send(): Promise<void> {
    for (;;) {
      // Read for each batch (from memory while they stand): a changed or deleted endpoint or header
      // (secrets invalidated by the registry's change) applies from the next batch on.
      const settings = await deps.settings();
      const endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
      const pending = await deps.storage.list<SpanRecord[]>({ prefix, limit: batchRuns });
      if (pending.size === 0) return;
      if (!endpoint) {
        // The project turned its export off: what waited goes too, not to whichever collector it names next.
        await drop(
          [...(await deps.storage.list({ prefix })).keys()],
          "the project deleted OTEL_EXPORTER_OTLP_ENDPOINT",
        );
        return;
      }
      const url = /\/v1\/traces\/?$/.test(endpoint) ? endpoint : `${endpoint.replace(/\/+$/, "")}/v1/traces`;
      const { headers } = parseOtlpHeaders(settings.OTEL_EXPORTER_OTLP_HEADERS);
      const body = JSON.stringify(
        otlpTraceRequest([...pending.values()].flat(), {
          "service.name": "pantheon",
          "service.namespace": deps.project(),
          "pantheon.agent": deps.agent(),
        }),
      );
      // Only the host the project named, through the outbound guard (private ranges refused unless loopback is allowed).
      const { allowLoopback } = outboundSettingsFrom(deps.env);
      const guarded = makeGuardedFetch(
        (input, init) => fetch(input, init),
        () => ({ allowHosts: [hostOf(endpoint)], allowLoopback }),
      );
      let ok = false;
      let why = "";
      try {
        const res = await guarded(url, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(sendTimeoutMs),
        });
        ok = res.ok;
        why = `HTTP ${res.status}`;
        await res.body?.cancel();
      } catch (error) {
        // The redactor keeps the header's value out of the log, should the error quote the request.
        why = deps.redact(error instanceof Error ? error.message : String(error));
      }
      if (!ok) {
        failures++;
        console.error(
          JSON.stringify({
            level: "warn",
            event: "otlp_export_failed",
            project: deps.project(),
            agent: deps.agent(),
            runs: pending.size,
            why,
            retryInSeconds: Math.min(3600, 2 ** failures * 5),
          }),
        );
        await deps.retryIn(Math.min(3600, 2 ** failures * 5));
        return;
      }
      failures = 0;
      await deps.storage.delete([...pending.keys()]);
    }
  }

  /** Drops the spans of runs not sent, saying how many and why. */
  async function drop(keys: string[], why: string): Promise<void> {
    if (keys.length === 0) return;
    console.error(
      JSON.stringify({
        level: "warn",
        event: "otlp_export_dropped",
        project: deps.project(),
        agent: deps.agent(),
        runs: keys.length,
        why,
      }),
    );
    for (let i = 0; i < keys.length; i += 128) await deps.storage.delete(keys.slice(i, i + 128));
  }

  async function trim(): Promise<void> {
    const all = [...(await deps.storage.list({ prefix })).keys()];
    if (all.length <= maxPending) return;
    await drop(all.slice(0, all.length - maxPending), `more than ${maxPending} runs waited for the receiver`);
  }

  /** One flush at a time: a second asked while one runs waits for it, then sends what is left. */
  function flush(): Promise<void> {
    const next = (flushing ?? Promise.resolve()).then(send, send);
    flushing = next.finally(() => {
      if (flushing === next) flushing = undefined;
    });
    return next;
  }

  return {
    /** A run ended: its spans are kept, then sent in the background (never on the turn's own path). */
    runEnded(runId: string): void {
      deps.background(
        (async () => {
          if (!(await record(runId))) return;
          await trim();
          await flush();
        })().catch((error: unknown) =>
          console.error(
            JSON.stringify({
              level: "error",
              event: "otlp_export_error",
              why: deps.redact(error instanceof Error ? error.message : String(error)),
            }),
          ),
        ),
      );
    },
    flush,
  };
}
