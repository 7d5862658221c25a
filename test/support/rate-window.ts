// The key rate limit counts in fixed minutes (src/auth/rate-limit.ts): a test that uses a key's
// minute up and then needs it to stay used up starts with 15 s of the minute left at least.
export async function waitForRoomInTheMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
