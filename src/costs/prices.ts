// The model price table: what a model's input and output tokens cost, so a run whose telemetry
// carries tokens but no cost (every instrumentation library's spans) still has one. Prices are USD
// per million tokens, as the vendors publish them; MODEL_PRICES (src/config.ts) adds or replaces
// entries. A model the table does not know has an unknown cost, never 0. docs/COSTS.md lists the
// defaults and how a model name is matched. Pure.

export interface ModelPrice {
  /** USD per million input (prompt) tokens. */
  input: number;
  /** USD per million output (completion) tokens. */
  output: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** List prices of common models (USD per 1M tokens, standard tier, no cache discount). */
export const DEFAULT_MODEL_PRICES: PriceTable = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  o1: { input: 15, output: 60 },
  'o1-mini': { input: 1.1, output: 4.4 },
  o3: { input: 2, output: 8 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'claude-opus-4': { input: 15, output: 75 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-3-5-sonnet': { input: 3, output: 15 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-3-haiku': { input: 0.25, output: 1.25 },
  'gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4 },
  'gemini-1.5-pro': { input: 1.25, output: 5 },
  'gemini-1.5-flash': { input: 0.075, output: 0.3 },
};

/** The defaults with the configured entries over them (an entry of MODEL_PRICES replaces the default of its name). */
export function priceTable(overrides: PriceTable = {}): PriceTable {
  const table: Record<string, ModelPrice> = {};
  for (const [model, price] of Object.entries({ ...DEFAULT_MODEL_PRICES, ...overrides })) table[normalised(model)] = price;
  return table;
}

/** Lower case, without a provider prefix ("openai/gpt-4o" and "models/gemini-1.5-pro" name the model after the slash). */
function normalised(model: string): string {
  const name = model.trim().toLowerCase();
  return name.slice(name.lastIndexOf('/') + 1);
}

/**
 * A model's price: the entry of its name, else the longest entry it extends with a version suffix
 * ("gpt-4o-mini-2024-07-18" is gpt-4o-mini, not gpt-4o; "claude-sonnet-4-20250514" is
 * claude-sonnet-4), else null (unknown).
 */
export function priceOf(model: string | null, table: PriceTable): ModelPrice | null {
  if (!model) return null;
  const name = normalised(model);
  const exact = table[name];
  if (exact) return exact;
  let best: string | null = null;
  for (const key of Object.keys(table)) {
    if (/^[-@:]/.test(name.slice(key.length)) && name.startsWith(key) && (best === null || key.length > best.length)) best = key;
  }
  return best === null ? null : (table[best] ?? null);
}

export interface TokenCounts {
  inputTokens: number | null;
  outputTokens: number | null;
}

/** USD for the tokens at the price; null when the split into input and output is not known (a total alone is not priced). */
export function costOf(tokens: TokenCounts, price: ModelPrice): number | null {
  if (tokens.inputTokens == null && tokens.outputTokens == null) return null;
  return ((tokens.inputTokens ?? 0) * price.input + (tokens.outputTokens ?? 0) * price.output) / 1_000_000;
}
