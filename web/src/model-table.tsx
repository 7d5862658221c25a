// Tokens and cost per model, one table for the dashboard and the episode page: a cost the price
// table could not tell is shown as unknown, with the part of it that is known.

import { num, usd } from './format.tsx';
import { graphql } from './generated/gql.ts';
import type { ModelUsageLineFragment } from './generated/graphql.ts';

// The fragment's text is appended to the documents that spread it (string mode).
graphql(`
  fragment ModelUsageLine on ModelUsage { model calls inputTokens outputTokens tokens cost knownCost }
`);

export type ModelLine = ModelUsageLineFragment;

const costText = (m: ModelLine) => (m.cost !== null ? usd(m.cost) : (m.knownCost ?? 0) > 0 ? `unknown (${usd(m.knownCost ?? 0)} known)` : 'unknown');

export function ModelTable({ lines }: { lines: readonly ModelLine[] }) {
  return (
    <div class="table-wrap">
      <table class="models">
        <thead>
          <tr>
            <th>Model</th>
            <th>Calls</th>
            <th>Input</th>
            <th>Output</th>
            <th>Tokens</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((m) => (
            <tr key={m.model ?? ''} data-model={m.model ?? ''}>
              <td>{m.model ?? 'no model named'}</td>
              <td>{num(m.calls)}</td>
              <td>{num(m.inputTokens)}</td>
              <td>{num(m.outputTokens)}</td>
              <td>{num(m.tokens)}</td>
              <td>{costText(m)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
