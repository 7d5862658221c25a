// The step inputs of the API, and their conversion to the domain's step (enums lower-cased, nulls
// and defaults filled in). The GraphQL shapes are inferred from the refs, never restated.

import { sizeText } from '../core/sizes.ts';
import { BLOB_LIMITS, type LargeContentMode } from '../steps/large-content.ts';
import { STEP_LIMITS, type StepInput } from '../steps/limits.ts';
import type { JsonObject, JsonValue } from '../validation/json.ts';
import { builder } from './builder.ts';
import { lower } from './episode-enums.ts';

/** How far a text field may go past its inline limit (the schema descriptions say it). */
const UP_TO_BLOB = `up to ${sizeText(BLOB_LIMITS.blobBytes)} with largeContent BLOB or TRUNCATE`;

const ResultKind = builder.enumType('StepResultKind', { values: ['SUCCESS', 'ERROR', 'TIMEOUT'] as const });

const StepResultInput = builder.inputType('StepResultInput', {
  description: 'success {output} | error {message, errorClass, output} | timeout',
  fields: (t) => ({
    kind: t.field({ type: ResultKind, required: true }),
    output: t.string({
      description: `SUCCESS or ERROR (an error keeps its full output). At most ${sizeText(STEP_LIMITS.resultOutputBytes)} inline; ${UP_TO_BLOB}.`,
    }),
    message: t.string({ description: `ERROR: at most ${sizeText(STEP_LIMITS.errorMessageBytes)} inline; ${UP_TO_BLOB}.` }),
    errorClass: t.string({ description: `At most ${STEP_LIMITS.errorClassChars} characters.` }),
  }),
});

const LargeContent = builder.enumType('LargeContentMode', {
  description: 'What logSteps does with a text field (action, observation, result output or message) past its inline limit.',
  values: {
    REFUSE: { description: 'Refuse it as a limit violation (the default).' },
    BLOB: {
      description:
        'Keep it whole as a content-addressed blob (BLAKE3, at most 16 MB per field, BLOB_TOTAL_CAP_BYTES per tenant); the field holds a head + tail preview.',
    },
    TRUNCATE: { description: 'Keep a head + tail preview, recording the original size and BLAKE3 hash in contentRefs (stored: false).' },
  } as const,
});

const InvalidStep = builder.enumType('InvalidStepPolicy', {
  values: {
    REFUSE_CALL: { description: 'A step that breaks a limit refuses the whole call with an InputLimitError (the default).' },
    REJECT_STEP: { description: 'Such a step is REJECTED (reason invalid, with its violations) and the others are journaled.' },
  } as const,
});

export const LogStepsOptionsInput = builder.inputType('LogStepsOptions', {
  fields: (t) => ({
    largeContent: t.field({ type: LargeContent, defaultValue: 'REFUSE' }),
    onInvalidStep: t.field({ type: InvalidStep, defaultValue: 'REFUSE_CALL' }),
  }),
});

// Named ...Ref: the domain's StepInput is in scope here too.
export const StepInputRef = builder.inputType('StepInput', {
  fields: (t) => ({
    kind: t.string({ defaultValue: 'tool_call', description: 'tool_call, llm_call, observation, ... (snake_case)' }),
    tool: t.string(),
    action: t.string({ description: `At most ${sizeText(STEP_LIMITS.actionBytes)} inline; ${UP_TO_BLOB}.` }),
    parameters: t.field({ type: 'JSON', description: `At most ${sizeText(STEP_LIMITS.parametersBytes)}; stored redacted with a BLAKE3 hash of the original.` }),
    result: t.field({ type: StepResultInput }),
    observation: t.string({ description: `At most ${sizeText(STEP_LIMITS.observationBytes)} inline; ${UP_TO_BLOB}.` }),
    latencyMs: t.int(),
    tokens: t.int(),
    cost: t.float(),
    sideEffectKey: t.string({
      description: `Repeating a key returns the original step instead of a second one. At most ${STEP_LIMITS.sideEffectKeyChars} characters.`,
    }),
    worldBefore: t.field({ type: 'JSON', description: `At most ${sizeText(STEP_LIMITS.worldStateBytes)}.` }),
    worldAfter: t.field({ type: 'JSON', description: `At most ${sizeText(STEP_LIMITS.worldStateBytes)}.` }),
    metadata: t.field({ type: 'JSON', description: `At most ${sizeText(STEP_LIMITS.metadataBytes)}.` }),
    startedAt: t.field({
      type: 'DateTime',
      description: 'When the step really ran (importing a past run): not in the future, not before its episode started.',
    }),
    endedAt: t.field({ type: 'DateTime', description: 'Not in the future, not before startedAt. An imported run measures wall time by these.' }),
  }),
});

type GqlStep = typeof StepInputRef.$inferInput;

function toStepResult(r: NonNullable<GqlStep['result']>): StepInput['result'] {
  if (r.kind === 'SUCCESS') return { kind: 'success', output: r.output ?? null };
  // An error's output is left out when none is given, so the stored result (and its hash) is as before.
  if (r.kind === 'ERROR')
    return { kind: 'error', message: r.message ?? '', errorClass: r.errorClass ?? null, ...(r.output != null ? { output: r.output } : {}) };
  return { kind: 'timeout' };
}

export function toStepInput(s: GqlStep): StepInput {
  return {
    kind: s.kind ?? 'tool_call',
    tool: s.tool ?? null,
    action: s.action ?? null,
    parameters: (s.parameters ?? null) as JsonValue,
    result: s.result ? toStepResult(s.result) : null,
    observation: s.observation ?? null,
    latencyMs: s.latencyMs ?? null,
    tokens: s.tokens ?? null,
    cost: s.cost ?? null,
    sideEffectKey: s.sideEffectKey ?? null,
    worldBefore: (s.worldBefore ?? null) as JsonValue,
    worldAfter: (s.worldAfter ?? null) as JsonValue,
    metadata: (s.metadata ?? null) as JsonObject | null,
    // Only when given: a step's stored size (its JSON) is what it was before these fields existed.
    ...(s.startedAt ? { startedAt: s.startedAt } : {}),
    ...(s.endedAt ? { endedAt: s.endedAt } : {}),
  };
}

export interface LogOptions {
  largeContent: LargeContentMode;
  rejectInvalid: boolean;
}

export const DEFAULT_LOG_OPTIONS: LogOptions = { largeContent: 'refuse', rejectInvalid: false };

export function toLogOptions(raw: typeof LogStepsOptionsInput.$inferInput | null | undefined): LogOptions {
  return { largeContent: lower(raw?.largeContent ?? 'REFUSE'), rejectInvalid: raw?.onInvalidStep === 'REJECT_STEP' };
}
