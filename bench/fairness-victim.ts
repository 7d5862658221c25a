// The victim of bench/fairness.ts: another tenant's client asking `{ viewer { id } }` one request at
// a time for <ms>, in its own process as a real client is (and as the attacker is): in the server's
// process its fetch, its answers' parsing and its timers waited on the server's event loop too, so
// every loop delay counted two to three times in its latency.
//   node --import tsx bench/fairness-victim.ts <graphql-url> <token> <start-epoch-ms> <end-epoch-ms>
// Prints one JSON line: latencies in ms (for the parent's p99) and how many answers failed.
const [url = '', token, startText, endText] = process.argv.slice(2);
// Starts when the parent says (the attack under way), not when this process is loaded.
await new Promise((r) => setTimeout(r, Number(startText) - Date.now()));

const latencies: number[] = [];
let failed = 0;
for (const until = Number(endText); Date.now() < until; ) {
  const started = performance.now();
  const body = (await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ viewer { id } }' }),
  })
    .then((res) => res.json())
    .catch(() => null)) as { data?: { viewer?: { id?: string } } } | null;
  latencies.push(performance.now() - started);
  if (!body?.data?.viewer?.id) failed += 1;
}
console.log(JSON.stringify({ latencies, failed }));
