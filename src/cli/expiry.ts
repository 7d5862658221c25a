// --expires for API keys: an ISO date or a duration from now (30d, 12h), never in the past.
import { CliError, EXIT } from './errors.ts';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function parseExpiry(value: string, now: Date): Date {
  const duration = /^(\d+)([mhd])$/.exec(value.trim());
  const at = duration ? new Date(now.getTime() + Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS]) : new Date(value);
  if (Number.isNaN(at.getTime()))
    throw new CliError(`--expires must be an ISO date (2027-01-31, 2027-01-31T12:00:00Z) or a duration (90d, 12h, 30m), got "${value}"`, EXIT.usage);
  if (at.getTime() <= now.getTime())
    throw new CliError(
      `--expires ${value} is in the past (now ${now.toISOString()}): a key would be born expired; give a later date or a duration such as 90d`,
      EXIT.usage,
    );
  return at;
}
