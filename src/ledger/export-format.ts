// The format tag of a ledger export's header line (docs/LEDGER.md §6.2). Its own module so the
// CLI's export command can write it without loading the verifier.
export const EXPORT_FORMAT = 'episodic.export.v1';
