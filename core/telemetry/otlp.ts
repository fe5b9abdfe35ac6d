import type { AttributeValue, SpanRecord } from "./spans";

/**
 * Spans as an OTLP/HTTP JSON export request (`POST <endpoint>/v1/traces`, `Content-Type:
 * application/json`), the encoding every OTLP receiver takes (the OpenTelemetry Collector, Honeycomb,
 * Grafana, Langfuse, Datadog…): ids as hex, times as nanosecond strings, enums as numbers.
 */
const kinds = { internal: 1, server: 2, client: 3 } as const;
const statusCodes = { unset: 0, ok: 1, error: 2 } as const;

type AnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: AnyValue[] } };

function anyValue(value: AttributeValue): AnyValue {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((v) => ({ stringValue: v })) } };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { stringValue: value };
}
const attributes = (values: Record<string, AttributeValue>) =>
  Object.entries(values).map(([key, value]) => ({ key, value: anyValue(value) }));
const nanos = (ms: number) => `${Math.round(ms)}000000`;

/**
 * @example
 * otlpTraceRequest(spans, { "service.name": "pantheon" }).resourceSpans[0].scopeSpans[0].spans.length
 */
export function otlpTraceRequest(spans: readonly SpanRecord[], resource: Record<string, AttributeValue>) {
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes(resource) },
        scopeSpans: [
          {
            scope: { name: "pantheon", version: "1" },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: kinds[s.kind],
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.endMs),
              attributes: attributes(s.attributes),
              status: { code: statusCodes[s.status.code], ...(s.status.message ? { message: s.status.message } : {}) },
            })),
          },
        ],
      },
    ],
  };
}

/**
 * The project secrets that turn a project's export on (`pantheon secrets set OTEL_EXPORTER_OTLP_ENDPOINT`):
 * every agent of the project reads them, whatever its profile.
 */
export const telemetrySettings = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS"] as const;

/**
 * Reads `OTEL_EXPORTER_OTLP_HEADERS` as OpenTelemetry writes it: `key=value` pairs joined by commas,
 * values percent-encoded. A malformed pair is skipped (and named), never sent half-read.
 * @example
 * parseOtlpHeaders("x-honeycomb-team=abc,x-scope=a%20b") // { headers: { "x-honeycomb-team": "abc", "x-scope": "a b" }, skipped: [] }
 */
export function parseOtlpHeaders(text: string | undefined): { headers: Record<string, string>; skipped: string[] } {
  const headers: Record<string, string> = {};
  const skipped: string[] = [];
  for (const pair of (text ?? "").split(",")) {
    if (!pair.trim()) continue;
    const at = pair.indexOf("=");
    const key = at > 0 ? pair.slice(0, at).trim() : "";
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key)) {
      skipped.push(pair.slice(0, Math.max(0, at)).trim() || "(no key)");
      continue;
    }
    try {
      headers[key.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      skipped.push(key);
    }
  }
  return { headers, skipped };
}

/**
 * The secret values `OTEL_EXPORTER_OTLP_HEADERS` holds, by name, for the redactor: the whole setting,
 * each header's value, and each longer word of one (a collector's error may echo a token without its
 * `Bearer `). The endpoint is a URL, like a model's base URL: not among them.
 * @example
 * otlpHeaderSecrets("authorization=Bearer abcdefgh1234");
 * // { OTEL_EXPORTER_OTLP_HEADERS: "…", "OTEL_EXPORTER_OTLP_HEADERS (authorization)": "Bearer abcdefgh1234",
 * //   "OTEL_EXPORTER_OTLP_HEADERS (authorization, word 2)": "abcdefgh1234" }
 */
export function otlpHeaderSecrets(text: string | undefined): Record<string, string> {
  if (!text) return {};
  const name = "OTEL_EXPORTER_OTLP_HEADERS";
  const out: Record<string, string> = { [name]: text };
  for (const [key, value] of Object.entries(parseOtlpHeaders(text).headers)) {
    out[`${name} (${key})`] = value;
    const words = value.split(/\s+/);
    if (words.length < 2) continue;
    for (const [i, word] of words.entries()) if (word.length >= 8) out[`${name} (${key}, word ${i + 1})`] = word;
  }
  return out;
}
