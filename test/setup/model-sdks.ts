// The model adapters import their SDK (openai, @anthropic-ai/sdk) on the first model call, so a
// worker isolate that never calls a model does not build them at startup. In the deployed worker
// that import is code already in the bundle. Under the test runner it is not: the runner fetches
// the SDK's few hundred modules one by one over its own connection, from inside the request that
// made the first call; when that request is cut off (the fault suite's 400 ms model limit, an
// eviction) the fetch never settles and every later import of the SDK in that isolate waits on it.
// Loading both SDKs here, before any test runs, gives the tests what the bundle has: the import
// resolves at once.
import "openai";
import "@anthropic-ai/sdk";
// The adapters' own entries to them (adapters/llm-*/sdk.ts: only the parts they use).
import "../../adapters/llm-anthropic/sdk";
import "../../adapters/llm-openai/sdk";
