// What an import says about a file that is not valid JSON: where, and what kind of mistake, never
// the file's bytes. V8's messages quote up to ~20 characters around the error, raw (control
// characters and escape sequences included), which the CLI printed and the import report kept.
const EXCERPT = /, "[\s\S]*"(?:\.\.\.)? is not valid JSON$/u;
const TOKEN = /Unexpected token '(.)'/su;

/** V8's JSON.parse message without the quoted excerpt of the input; an unexpected character by its code point. */
export function jsonErrorWithoutBytes(message: string): string {
  return message
    .replace(EXCERPT, ' (not valid JSON)')
    .replace(TOKEN, (_, ch: string) => `Unexpected character U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`);
}
