// Secrets and optional vars are not in wrangler.toml, so `wrangler types` cannot see them.
// Set them with `wrangler secret put NAME` (production) or in .dev.vars (local).
interface Env {
  /** Admin bearer token. `npm start` generates one into .dev.vars. */
  PANTHEON_ADMIN_TOKEN?: string;
  /**
   * The deployment key project secrets are sealed with (AES-GCM, core/secrets): at least 32
   * characters. A worker secret, or a Cloudflare Secrets Store binding of this name. `npm start`
   * generates one into .dev.vars.
   */
  PANTHEON_SECRETS_KEY?: string | { get(): Promise<string> };
  OPENAI_API_KEY?: string;
  /** Any OpenAI-compatible endpoint, e.g. a local model server. */
  OPENAI_BASE_URL?: string;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  /** OpenAI-compatible embeddings endpoint (the local sidecar in dev). */
  EMBEDDINGS_BASE_URL?: string;
  EMBEDDINGS_MODEL?: string;
  /** Dimensions of EMBEDDINGS_MODEL when it is not one the adapter knows by name. */
  EMBEDDINGS_DIMENSIONS?: string;
  /**
   * "1" only on a test deployment: the quota clock may then be moved by the deployment admin
   * (PUT /api/projects/:slug/test-clock). Never set it in production.
   */
  PANTHEON_TEST_CLOCK?: string;
  /** Telegram Bot API base for the Telegram gateway (default https://api.telegram.org; https in production). */
  TELEGRAM_API_BASE?: string;
  /** The Web Push (VAPID) private key as a P-256 JWK (docs/push.md); `npm start` makes a local one. */
  PANTHEON_VAPID_KEY?: string;
  /** The contact push services may write to about this deployment's pushes (`mailto:` or `https:`). */
  PANTHEON_VAPID_SUBJECT?: string;
}
