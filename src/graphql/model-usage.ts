// Tokens and cost split by model (src/monitor/model-usage.ts): an episode's, and the dashboard's.

import { type ModelUsage, usageByModelOfEpisode } from '../monitor/model-usage.ts';
import { builder } from './builder.ts';

export const ModelUsageRef = builder.objectRef<ModelUsage>('ModelUsage').implement({
  description: "One model's calls, tokens and cost (USD). The cost is the spans' own, else tokens times the model price table (MODEL_PRICES, docs/COSTS.md).",
  fields: (t) => ({
    model: t.exposeString('model', { nullable: true, description: 'metadata.model of the steps; null for steps with tokens that name no model.' }),
    calls: t.exposeInt('calls', { description: 'Steps that called it.' }),
    inputTokens: t.exposeFloat('inputTokens'),
    outputTokens: t.exposeFloat('outputTokens'),
    tokens: t.exposeFloat('tokens'),
    cost: t.exposeFloat('cost', {
      nullable: true,
      description: 'USD; null when the cost of some call is unknown (no cost on its span and a model the price table does not know), never a made-up 0.',
    }),
    knownCost: t.exposeFloat('knownCost', { description: 'USD of the calls whose cost is known.' }),
    unknownCostCalls: t.exposeInt('unknownCostCalls', { description: 'Calls whose cost is unknown.' }),
  }),
});

builder.prismaObjectFields('Episode', (t) => ({
  usageByModel: t.field({
    type: [ModelUsageRef],
    description: "The episode's tokens and cost per model, the most used first.",
    resolve: (e, _args, ctx) => usageByModelOfEpisode(ctx.services.db.pool, e.tenantId, e.id),
  }),
  costKnown: t.boolean({
    description: 'False when some model call used tokens whose cost is unknown: usedCost then counts only the known part.',
    resolve: async (e, _args, ctx) => (await usageByModelOfEpisode(ctx.services.db.pool, e.tenantId, e.id)).every((u) => u.unknownCostCalls === 0),
  }),
}));
