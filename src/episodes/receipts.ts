// Run receipts: at the end of an episode that ran with a context pack, a record of the
// pack it used, whether the pack sufficed, the budget it spent and the ledger head it ended on.
// The receipt is itself a ledger event, so it is chained and provable like any other.

export interface ReceiptInput {
  contextPackHash: string;
  manifestHash: string | null;
  packMisses: number;
  usage: { steps: number; tokens: number; toolCalls: number; wallMs: number | null };
}

export interface RunReceipt {
  contextPackHash: string;
  manifestHash: string | null;
  /** 'sufficient' when the agent never missed anything in the pack. */
  sufficiency: 'sufficient' | 'insufficient';
  packMisses: number;
  budgetDelta: ReceiptInput['usage'];
  /** The chain head just before the receipt: seq and hash. */
  ledgerHead: { seq: number; hash: string };
}

export function buildRunReceipt(input: ReceiptInput, ledgerHead: { seq: number; hash: string }): RunReceipt {
  return {
    contextPackHash: input.contextPackHash,
    manifestHash: input.manifestHash,
    sufficiency: input.packMisses === 0 ? 'sufficient' : 'insufficient',
    packMisses: input.packMisses,
    budgetDelta: input.usage,
    ledgerHead,
  };
}
