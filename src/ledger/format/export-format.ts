// The format tags of a ledger export's header line (docs/LEDGER.md §6.2). Their own module so the
// CLI's export command can write them without loading the verifier. v4 (§9): the row lines include
// served copies (§3.3: reward_score, the context pack hashes, results_hash). v3: a value an
// episode.forgotten event names with its claimed hash has no row line (a v2 verifier would demand
// one). v2 added the consistency line an export after a checkpoint carries for an incremental
// check (§7.3.1); v1 and v2 files still verify.
export const EXPORT_FORMAT = 'episodic.export.v4';
export const EXPORT_FORMATS: readonly string[] = ['episodic.export.v1', 'episodic.export.v2', 'episodic.export.v3', EXPORT_FORMAT];
