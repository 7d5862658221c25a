// The format tags of a ledger export's header line (docs/LEDGER.md §6.2). Their own module so the
// CLI's export command can write them without loading the verifier. v2 adds the consistency line
// an export after a checkpoint carries for an incremental check (§7.3.1); v1 files still verify.
export const EXPORT_FORMAT = 'episodic.export.v2';
export const EXPORT_FORMATS: readonly string[] = ['episodic.export.v1', EXPORT_FORMAT];
