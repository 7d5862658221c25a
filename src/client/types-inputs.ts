// The API's input shapes, as the client sends them.

import type { Complexity, DateTimeString, EpisodeStatus, Json, OutcomeKind } from './types-scalars.ts';

export interface TaskContextInput {
  language?: string;
  framework?: string;
  complexity?: Complexity;
  domain?: string;
  tags?: string[];
}
export interface BudgetInput {
  maxSteps?: number;
  maxTokens?: number;
  maxWallMs?: number;
  maxToolCalls?: number;
}
export interface StartEpisodeInput {
  taskDescription: string;
  taskType: string;
  agent?: string;
  budget?: BudgetInput;
  context?: TaskContextInput;
  dedupeKey?: string;
  episodeNumber?: number;
  goalSpec?: Json;
  leaseId?: string;
  workItemId?: string;
  maxAttempts?: number;
  metadata?: Json;
  mode?: 'LIVE' | 'DRY_RUN';
  onBudgetExhausted?: 'FAIL' | 'CONVERGE';
  parentEpisodeId?: string;
  /** Importing a past run: when it really started. */
  startedAt?: DateTimeString;
  importSource?: ImportSourceInput;
}
export interface ImportSourceInput {
  format: string;
  sourceHash: string;
  name?: string;
}
export interface StepResultInput {
  kind: 'SUCCESS' | 'ERROR' | 'TIMEOUT';
  output?: string;
  message?: string;
  errorClass?: string;
}
export interface StepInput {
  kind?: string;
  tool?: string;
  action?: string;
  parameters?: Json;
  result?: StepResultInput;
  observation?: string;
  latencyMs?: number;
  tokens?: number;
  cost?: number;
  sideEffectKey?: string;
  worldBefore?: Json;
  worldAfter?: Json;
  metadata?: Json;
  startedAt?: DateTimeString;
  endedAt?: DateTimeString;
}
export interface OutcomeInput {
  kind: OutcomeKind;
  verdict?: string;
  artifacts?: string[];
  completed?: string[];
  failed?: string[];
  reason?: string;
  details?: string;
}
export interface VirtueScoreInput {
  name: string;
  score: number;
}
export interface LeaseBudgetInput {
  episodes?: number;
  toolCalls?: number;
  tokens?: number;
  wallMs?: number;
}
export interface EpisodeFilter {
  agent?: string;
  domain?: string;
  language?: string;
  outcome?: OutcomeKind;
  startedAfter?: DateTimeString;
  startedBefore?: DateTimeString;
  status?: EpisodeStatus[];
  tags?: string[];
  taskType?: string;
  text?: string;
  workItemId?: string;
}
export interface RetrievalTaskInput {
  description: string;
  taskType?: string;
  context?: { language?: string; framework?: string; domain?: string; complexity?: Complexity; tags?: string[] };
}
export interface RelevantEpisodeFilter {
  agent?: string;
  endedAfter?: DateTimeString;
  minReward?: number;
}
export interface LedgerEventFilter {
  episodeId?: string;
  workItemId?: string;
  types?: string[];
}
