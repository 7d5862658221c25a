// Limits as the schema's descriptions state them, computed from the limit constants so the text
// cannot drift from the rule.

/** A byte limit as text: "16 MB", "10 KB", "256 bytes". */
export function sizeText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}
