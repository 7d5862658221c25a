// Ingesting the spans of one OTLP export request for a tenant. Per trace: with no episode yet and
// no root span, the spans wait (pending.ts); once the root has come, its episode is started (a
// historical one, deduplicated by the trace id), every known span below it is journaled as a step
// through the step ingestor's group commit (deduplicated by the span id), and the episode is
// completed through the normal lifecycle (reward, reflection, retrieval index, pattern jobs).
// A trace whose model calls carry no messages yet is held first (held.ts): its messages may still
// come as log events, and a journaled step never changes. Every span refused on the way is reported
// back; none is dropped silently.
import type pg from 'pg';
import { nextTurn } from '../core/delay.ts';
import { DomainError, IllegalTransitionError, InputLimitError, type LimitViolation, NotFoundError } from '../core/errors.ts';
import { must } from '../core/must.ts';
import type { PriceTable } from '../costs/prices.ts';
import type { EpisodesRow, StepsRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import type { RefusalKind, SpanRefusal } from '../http/span-refusals.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { complete, completionViolations } from '../lifecycle/calls.ts';
import { redoExperienceAfterLateSteps } from '../lifecycle/late-telemetry.ts';
import { startEpisode, startViolations } from '../lifecycle/start.ts';
import type { StepIngestor } from '../steps/ingest.ts';
import { checkSteps, type ItemResult, journalSteps, type LogOptions } from '../steps/journal.ts';
import { STEP_LIMITS } from '../steps/limits.ts';
import type { Writer } from '../write.ts';
import { carriesMessages, operationOf } from './genai.ts';
import { settleLater } from './held.ts';
import { withLogEvents } from './logs.ts';
import { dedupeKeyOfTrace, episodeOfRoot, outcomeOfRoot, sideEffectKeyOfSpan, stepOfSpan } from './mapping.ts';
import { inStartOrder } from './order.ts';
import { expirePending, forgetPending, heldTracesOf, keepPending, pendingHeld, pendingJson, pendingOf } from './pending.ts';
import { admitPending, expiredBefore, MAX_PENDING_SPANS_PER_TENANT, type PendingLimits } from './pending-limits.ts';
import { closeRun, openRunOf, type RunKey, runKeyOf, touchRun } from './runs.ts';
import { earliestStartUs, type OtlpSpan } from './spans.ts';

export type { SpanRefusal } from '../http/span-refusals.ts';

export interface IngestReport {
  /** Spans stored as steps or as episodes (duplicates of stored ones included). */
  stored: number;
  /** Spans kept until their trace's root span arrives. */
  pending: number;
  refused: SpanRefusal[];
}

export interface TraceIngestDeps {
  db: { pool: pg.Pool };
  writer: Writer;
  jobs: JobQueue;
  ingest: StepIngestor;
  redactKeys: readonly string[];
  blobCapBytes: number;
  /** OTLP_PENDING_MAX_BYTES and OTLP_PENDING_EXPIRY_MS. */
  pending: Omit<PendingLimits, 'maxSpansPerTenant'>;
  /** Runs without an agent root span (runs.ts). */
  runs: { idleMs: number; attribute: string };
  /** OTLP_LATE_SPAN_GRACE_MS: how long after its root's end a child is still added to the completed episode. */
  lateSpanGraceMs: number;
  /** OTLP_LOG_EVENTS_WAIT_MS: how long a trace whose model calls carry no messages waits for their log events (0: never). */
  logEventsWaitMs: number;
  /** The model price table: a model call's cost when its span carries none (src/costs/prices.ts). */
  prices: PriceTable;
  /**
   * Waits before each turn of spans is journaled, given its spans (the export's
   * key paced by its cost while other keys are active, src/otlp/http.ts); one turn of the event loop when absent.
   */
  turn?: (spans: number) => Promise<void>;
}

/** Traces of one request settled at once: their step batches meet in the ingestor's group commit. */
const TRACES_AT_ONCE = 8;
/**
 * Spans checked, or journaled as steps, in one turn of the event loop: a 500-span export once held
 * the loop for up to 160 ms at a time (checking and hashing its steps), and another tenant's
 * one-field query waited behind it (issue 50). 50 spans take a few milliseconds.
 */
const SPANS_PER_TURN = 50;

/**
 * When a trace without an episode whose model calls carry no messages (they may still come as log
 * events) is settled: `hold` (an export brought it) keeps it waiting and queues its settling for
 * after the wait; `if_messages` (log events came) only once each model call has its messages;
 * `now` (the wait is over) with what there is.
 */
type Settling = 'hold' | 'if_messages' | 'now';

const emptyReport = (): IngestReport => ({ stored: 0, pending: 0, refused: [] });

interface EpisodeRef {
  id: string;
  /** The span that started the episode. */
  rootSpanId: string | null;
  /** The run key of an episode of model calls without an agent root (runs.ts). */
  run: string | null;
}

export class TraceIngest {
  /** Per run key (a run's calls join it one after another) or held trace, the work on it in this process. */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: TraceIngestDeps) {}

  /**
   * Every span is checked first against the limits of what it would store (screen, through the use
   * cases' own checks): one over a limit is refused alone, before anything is written, and the
   * request's other spans go on.
   */
  async ingest(tenantId: string, sent: readonly OtlpSpan[]): Promise<IngestReport> {
    const { spans, refused } = await screen(sent);
    const byTrace = groupByTrace(spans);
    const episodes = await this.episodesOf(tenantId, [...byTrace.keys()]);
    const report: IngestReport = { stored: 0, pending: 0, refused };
    const waiting = [...byTrace].filter(([traceId, list]) => !episodes.has(traceId) && !list.some(isRoot));
    await this.keep(
      tenantId,
      waiting.flatMap(([, list]) => list),
      report,
    );
    // A root may have come through another request meanwhile: a trace with an episode now is settled here too.
    const appeared = waiting.length
      ? await this.episodesOf(
          tenantId,
          waiting.map(([t]) => t),
        )
      : new Map<string, EpisodeRef>();
    const settle = [...byTrace].filter(([traceId]) => episodes.has(traceId) || appeared.has(traceId) || !waiting.some(([t]) => t === traceId));
    for (const [traceId] of waiting) if (appeared.has(traceId)) episodes.set(traceId, must(appeared.get(traceId)));
    // Model calls without an agent root join their runs one at a time, in the order they started.
    const calls = settle.filter(([traceId, list]) => !episodes.has(traceId) && list.some((s) => isRoot(s) && operationOf(s) === 'model_call'));
    const others = settle.filter((entry) => !calls.includes(entry));
    for (let i = 0; i < others.length; i += TRACES_AT_ONCE) {
      const reports = await Promise.all(
        others.slice(i, i + TRACES_AT_ONCE).map(([traceId, list]) => this.settle(tenantId, traceId, list, episodes.get(traceId) ?? null)),
      );
      for (const r of reports) merge(report, r);
    }
    for (const [traceId, list] of calls.sort((a, b) => earliestStartUs(a[1]) - earliestStartUs(b[1])))
      merge(report, await this.settle(tenantId, traceId, list, null));
    return report;
  }

  /** Spans without their root wait, within the tenant's count and byte caps; spans waiting past the expiry are dropped first. */
  private async keep(tenantId: string, spans: OtlpSpan[], report: IngestReport) {
    if (!spans.length) return;
    const limits = { ...this.deps.pending, maxSpansPerTenant: MAX_PENDING_SPANS_PER_TENANT };
    await expirePending(this.deps.db.pool, expiredBefore(limits, Date.now()));
    const candidates = spans.map((span) => {
      const json = pendingJson(span);
      return { span, json, bytes: Buffer.byteLength(json) };
    });
    const { kept, refused } = admitPending(candidates, await pendingHeld(this.deps.db.pool, tenantId), limits);
    await keepPending(this.deps.db.pool, tenantId, kept);
    report.pending += kept.length;
    for (const r of refused) report.refused.push(refusal(r.span, r.reason, 'pending_cap'));
  }

  private async episodesOf(tenantId: string, traceIds: string[]): Promise<Map<string, EpisodeRef>> {
    const keys = traceIds.map(dedupeKeyOfTrace);
    const p = new Params();
    // dedupe_key is nullable in the table, but these rows matched a trace's key.
    const rows = await queryRows<Pick<EpisodesRow, 'id'> & { dedupe_key: string; root: string | null; run: string | null }>(
      this.deps.db.pool,
      `SELECT id, dedupe_key, metadata->>'rootSpanId' AS root, metadata->>'otlpRun' AS run FROM episodes WHERE tenant_id = ${p.add(tenantId)} AND dedupe_key = ANY(${p.add(keys)}::text[])`,
      p,
    );
    return new Map(rows.map((r) => [r.dedupe_key.slice('otlp:'.length), { id: r.id, rootSpanId: r.root, run: r.run }]));
  }

  /**
   * The traces among these held for their log events (their roots wait with their spans), settled:
   * `waited`, the wait is over, with the events that came; else those whose model calls all have
   * their messages now. A trace settled already (by the other one, a job or a logs request) is
   * settled again as a duplicate, storing nothing twice.
   */
  async settleHeld(tenantId: string, traceIds: readonly string[], waited: boolean): Promise<IngestReport> {
    const report = emptyReport();
    // In their roots' start order, one after another: a run's calls join it in the order they started.
    for (const traceId of await heldTracesOf(this.deps.db.pool, tenantId, [...new Set(traceIds)])) {
      const settled = await this.inTurn(`trace:${tenantId}:${traceId}`, async () => {
        const known = (await this.episodesOf(tenantId, [traceId])).get(traceId) ?? null;
        return this.settle(tenantId, traceId, [], known, waited ? 'now' : 'if_messages');
      });
      merge(report, settled);
    }
    return report;
  }

  /** A trace whose root is known (in this request, held, or stored as its episode): start, journal, complete. */
  private async settle(tenantId: string, traceId: string, spans: OtlpSpan[], known: EpisodeRef | null, settling: Settling = 'hold'): Promise<IngestReport> {
    const kept = await pendingOf(this.deps.db.pool, tenantId, [traceId]);
    const all = await withLogEvents(this.deps.db.pool, tenantId, [traceId], groupByTrace([...spans, ...kept]).get(traceId) ?? []);
    const root = rootOf(all, known);
    // A held trace settled meanwhile (its spans are no longer kept) has nothing left to do.
    if (!all.length || (!known && !root)) return emptyReport();
    if (!known && settling !== 'now' && this.awaitsLogEvents(all)) return settling === 'hold' ? this.hold(tenantId, traceId, spans) : emptyReport();
    if (known?.run || (!known && root && operationOf(root) === 'model_call')) return this.joinRun(tenantId, traceId, all, kept, known);
    const children = inStartOrder(all.filter((s) => s !== root));
    const report: IngestReport = { stored: 0, pending: 0, refused: [] };
    let episode = known;
    if (!episode) {
      const started = await this.start(tenantId, must(root), children);
      if ('refused' in started) {
        // The root alone is refused; the request's other spans of its trace wait for a root, as if it had not come.
        report.refused.push(refusal(must(root), started.refused, 'root'));
        // A held root is forgotten with its refusal: it is held no more.
        await forgetPending(this.deps.db.pool, tenantId, traceId, [must(root).spanId]);
        await this.keep(
          tenantId,
          spans.filter((s) => s !== root),
          report,
        );
        return report;
      }
      episode = started;
    }
    merge(report, await this.journal(tenantId, episode.id, children));
    if (root) merge(report, await this.complete(tenantId, episode.id, root));
    await forgetPending(
      this.deps.db.pool,
      tenantId,
      traceId,
      kept.map((s) => s.spanId),
    );
    return report;
  }

  /** Whether a trace's messages may still come as log events: one of its model calls has none yet (and waiting is on). */
  private awaitsLogEvents(spans: readonly OtlpSpan[]): boolean {
    return this.deps.logEventsWaitMs > 0 && spans.some((s) => operationOf(s) === 'model_call' && !carriesMessages(s));
  }

  /** The trace's spans wait with its root (counted as kept), and its settling is queued for after the wait. */
  private async hold(tenantId: string, traceId: string, spans: OtlpSpan[]): Promise<IngestReport> {
    const report = emptyReport();
    await this.keep(tenantId, spans, report);
    await settleLater(this.deps.jobs, tenantId, traceId, this.deps.logEventsWaitMs);
    return report;
  }

  /**
   * A trace whose root is a model call (no agent or user span around it): one call of a run. It
   * joins the run's open episode, or starts one; the run ends after the idle gap (runs.ts).
   */
  private joinRun(tenantId: string, traceId: string, spans: OtlpSpan[], kept: OtlpSpan[], known: EpisodeRef | null): Promise<IngestReport> {
    const root = must(rootOf(spans, null) ?? spans[0]);
    const { key, byService } = known?.run ? { key: known.run, byService: false } : runKeyOf(root, this.deps.runs.attribute);
    return this.inTurn(`run:${tenantId}:${key}`, () => this.journalRun(tenantId, traceId, spans, kept, known, { key, byService }));
  }

  /** The work after the work already chained on `key` in this process. */
  private inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
    const done = (this.chains.get(key) ?? Promise.resolve()).then(work);
    const settled = done.catch(() => undefined);
    this.chains.set(key, settled);
    void settled.then(() => this.chains.get(key) === settled && this.chains.delete(key));
    return done;
  }

  private async journalRun(tenantId: string, traceId: string, spans: OtlpSpan[], kept: OtlpSpan[], known: EpisodeRef | null, run: RunKey) {
    const { writer, jobs: queue, runs } = this.deps;
    const { pool } = this.deps.db;
    const ordered = inStartOrder(spans);
    const startMs = Math.min(...ordered.map((s) => s.startMs));
    const endMs = Math.max(...ordered.map((s) => Math.max(s.startMs, s.endMs)));
    let open = known ? { episodeId: known.id, lastSpanEndMs: endMs } : await openRunOf(pool, tenantId, run.key);
    // The service's calls are one run only while they come less than the idle gap apart.
    if (open && !known && run.byService && startMs - open.lastSpanEndMs >= runs.idleMs) {
      await closeRun(pool, writer, tenantId, run.key, open.episodeId, open.lastSpanEndMs);
      open = null;
    }
    if (!open) {
      const started = await this.start(tenantId, must(ordered[0]), ordered, run.key);
      if ('refused' in started) {
        // Refused in this answer (or, held, in the tenant's counts): the kept ones are forgotten.
        await forgetPending(
          pool,
          tenantId,
          traceId,
          kept.map((s) => s.spanId),
        );
        return { stored: 0, pending: 0, refused: spans.map((s) => refusal(s, started.refused, 'root')) };
      }
      open = { episodeId: started.id, lastSpanEndMs: endMs };
    }
    const report = await this.journal(tenantId, open.episodeId, ordered);
    await touchRun(queue, pool, tenantId, run.key, { episodeId: open.episodeId, lastSpanEndMs: endMs }, runs.idleMs);
    await forgetPending(
      pool,
      tenantId,
      traceId,
      kept.map((s) => s.spanId),
    );
    return report;
  }

  private async start(tenantId: string, root: OtlpSpan, children: OtlpSpan[], run: string | null = null): Promise<EpisodeRef | { refused: string }> {
    try {
      // The run is refused whole when its root could not also end it: its outcome and end are checked before its start.
      const violations = runViolations(root, children);
      if (violations.length) throw new InputLimitError(violations);
      const input = episodeOfRoot(root, children);
      if (run) input.metadata = { ...input.metadata, otlpRun: run };
      const { episodeId } = await startEpisode(this.deps, tenantId, input);
      return { id: episodeId, rootSpanId: root.spanId, run };
    } catch (err) {
      if (err instanceof DomainError) return { refused: `the root span could not start its episode: ${err.message}` };
      throw err;
    }
  }

  /** The spans as steps, in order of their start; each refused one is reported with its reason. */
  private async journal(tenantId: string, episodeId: string, spans: OtlpSpan[]): Promise<IngestReport> {
    const report: IngestReport = { stored: 0, pending: 0, refused: [] };
    for (let i = 0; i < spans.length; i += SPANS_PER_TURN) {
      const chunk = spans.slice(i, i + SPANS_PER_TURN);
      if (this.deps.turn) await this.deps.turn(chunk.length);
      else if (i > 0) await nextTurn();
      const steps = chunk.map((s) => stepOfSpan(s, this.deps.prices));
      try {
        const logged = await journalSteps(this.deps, tenantId, episodeId, steps, SPAN_STEPS);
        logged.results.forEach((r, k) => tally(report, must(chunk[k]), r));
      } catch (err) {
        if (!(err instanceof NotFoundError || err instanceof IllegalTransitionError)) throw err;
        const checked = checkSteps(steps, SPAN_STEPS);
        checked.perStep.forEach((violations, k) => violations.length && report.refused.push(refusal(must(chunk[k]), messagesOf(violations), 'limit')));
        merge(
          report,
          await this.afterEnd(
            tenantId,
            episodeId,
            checked.validIndexes.map((k) => must(chunk[k])),
            err,
          ),
        );
      }
    }
    return report;
  }

  /**
   * Spans for an episode that no longer takes steps: those it holds already are duplicates. The
   * rest are late: within the grace period after the root's end of an episode OTLP completed, they
   * are appended as its steps and its learning is redone; otherwise refused.
   */
  private async afterEnd(tenantId: string, episodeId: string, spans: OtlpSpan[], error: Error): Promise<IngestReport> {
    const p = new Params();
    const rows = await queryRows<Pick<StepsRow, 'side_effect_key'>>(
      this.deps.db.pool,
      `SELECT side_effect_key FROM steps WHERE episode_id = ${p.add(episodeId)} AND side_effect_key = ANY(${p.add(spans.map((s) => sideEffectKeyOfSpan(s.spanId)))}::text[])`,
      p,
    );
    const held = new Set(rows.map((r) => r.side_effect_key));
    const report: IngestReport = { stored: 0, pending: 0, refused: [] };
    const late = spans.filter((span) => !held.has(sideEffectKeyOfSpan(span.spanId)));
    report.stored += spans.length - late.length;
    if (!late.length) return report;
    const ended = await this.completedAt(episodeId);
    const graceMs = this.deps.lateSpanGraceMs;
    if (ended && Date.now() - ended.getTime() <= graceMs) return mergeInto(report, await this.appendLate(tenantId, episodeId, late));
    const why = ended
      ? `it arrived ${Math.round((Date.now() - ended.getTime()) / 1000)} s after its root span ended, past the grace period of ${graceMs} ms (OTLP_LATE_SPAN_GRACE_MS)`
      : error.message;
    for (const span of late) report.refused.push(refusal(span, `the trace's episode ${episodeId} takes no more steps: ${why}`, 'late'));
    return report;
  }

  /** When the episode was completed (its end), or null when it ended otherwise (failed, cancelled) or is gone. */
  private async completedAt(episodeId: string): Promise<Date | null> {
    const p = new Params();
    const [row] = await queryRows<Pick<EpisodesRow, 'ended_at'>>(
      this.deps.db.pool,
      `SELECT ended_at FROM episodes WHERE id = ${p.add(episodeId)} AND status = 'completed'`,
      p,
    );
    return row?.ended_at ?? null;
  }

  /** Late spans appended to their completed episode (appendLateTelemetry), then its experience redone. */
  private async appendLate(tenantId: string, episodeId: string, spans: OtlpSpan[]): Promise<IngestReport> {
    const report: IngestReport = { stored: 0, pending: 0, refused: [] };
    let appended = 0;
    for (let i = 0; i < spans.length; i += STEP_LIMITS.stepsPerCall) {
      const chunk = spans.slice(i, i + STEP_LIMITS.stepsPerCall);
      try {
        const logged = await journalSteps(
          this.deps,
          tenantId,
          episodeId,
          chunk.map((s) => stepOfSpan(s, this.deps.prices)),
          LATE_SPAN_STEPS,
        );
        logged.results.forEach((r, k) => tally(report, must(chunk[k]), r));
        appended += logged.results.filter((r) => r.item.status === 'accepted').length;
      } catch (err) {
        if (!(err instanceof NotFoundError || err instanceof IllegalTransitionError)) throw err;
        for (const span of chunk) report.refused.push(refusal(span, `the trace's episode ${episodeId} takes no more steps: ${err.message}`, 'late'));
      }
    }
    if (appended) await this.deps.writer.run(tenantId, (w) => redoExperienceAfterLateSteps(w, episodeId, appended));
    return report;
  }

  /** The root span ended: the episode completes (a repeated root finds it completed and is a duplicate). */
  private async complete(tenantId: string, episodeId: string, root: OtlpSpan): Promise<IngestReport> {
    const options = { extractPatterns: 'async' as const, usedRetrievals: [], endedAt: endOf(root) };
    try {
      await complete(this.deps, tenantId, episodeId, outcomeOfRoot(root), options);
      return { stored: 1, pending: 0, refused: [] };
    } catch (err) {
      if (err instanceof IllegalTransitionError) return { stored: 1, pending: 0, refused: [] };
      if (err instanceof InputLimitError) return { stored: 0, pending: 0, refused: [refusal(root, err.message, 'root')] };
      throw err;
    }
  }
}

/** A span is journaled as it came (no large content offloaded); an invalid one is refused alone. */
// A long transcript or tool result is kept whole in the blob store, its preview inline.
const SPAN_STEPS: LogOptions = { largeContent: 'blob', rejectInvalid: true };
const LATE_SPAN_STEPS: LogOptions = { ...SPAN_STEPS, action: 'appendLateTelemetry' };

const messagesOf = (violations: readonly LimitViolation[]) => violations.map((v) => v.message).join('; ');

/** A journaled span counted as stored, or refused with its reason. */
function tally(report: IngestReport, span: OtlpSpan, result: ItemResult) {
  if (result.violations) report.refused.push(refusal(span, messagesOf(result.violations), 'limit'));
  else if (result.item.status === 'rejected') report.refused.push(refusal(span, result.item.message, 'step_rejected'));
  else report.stored += 1;
}

const isRoot = (span: OtlpSpan) => span.parentSpanId === null;

/** When a root span's run ended (a span ending before it starts ends at its start). */
const endOf = (root: OtlpSpan) => new Date(Math.max(root.startMs, root.endMs));

/**
 * Why a root span cannot be the run it starts and ends: its episode's start and its completion,
 * checked by the use cases' own checks (startEpisode's and complete's), as they will check them.
 */
function runViolations(root: OtlpSpan, trace: readonly OtlpSpan[]): LimitViolation[] {
  // The end is the root's end or its start, whichever is later: only its own range is checked.
  return [...startViolations(episodeOfRoot(root, trace), 'episode'), ...completionViolations(outcomeOfRoot(root), endOf(root), 'episode')];
}

/** Why a span cannot be its step: journalSteps' own check of a call of that one step, as the journal will check it. */
const stepViolations = (span: OtlpSpan): LimitViolation[] => (checkSteps([stepOfSpan(span)], SPAN_STEPS).perStep[0] ?? []).map(unnumbered);

/**
 * The request's spans that fit every limit, and a refusal for each other one: the root the request
 * carries for a trace is checked as its run, any other span as its step, SPANS_PER_TURN in a turn
 * of the event loop. Nothing is written yet.
 */
async function screen(spans: readonly OtlpSpan[]): Promise<{ spans: OtlpSpan[]; refused: SpanRefusal[] }> {
  const admitted: OtlpSpan[] = [];
  const refused: SpanRefusal[] = [];
  let screened = 0;
  for (const list of groupByTrace(spans).values()) {
    const root = rootOf(list, null);
    const children = list.filter((s) => s !== root);
    for (const span of list) {
      if (++screened % SPANS_PER_TURN === 0) await nextTurn();
      const violations = span === root ? runViolations(span, children) : stepViolations(span);
      if (violations.length) refused.push(refusal(span, messagesOf(violations), 'limit'));
      else admitted.push(span);
    }
  }
  return { spans: admitted, refused };
}

/** A step's violations name its fields as `step.<field>`: a span is one step, not a position in a call's list. */
const unnumbered = (v: LimitViolation): LimitViolation => ({
  ...v,
  field: v.field.replace(/^steps\.0\./, 'step.'),
  message: v.message.replaceAll('steps.0.', 'step.'),
});

/**
 * The span that starts and ends the trace's episode: the one that started it, once there is an
 * episode; else a parentless invoke_agent span, else the earliest parentless span. Another
 * parentless span of the trace (a second root) is journaled as a step like any other span.
 */
function rootOf(spans: readonly OtlpSpan[], known: EpisodeRef | null): OtlpSpan | null {
  const roots = spans.filter(isRoot);
  if (known) return roots.find((s) => s.spanId === known.rootSpanId) ?? null;
  const agent = (s: OtlpSpan) => (operationOf(s) === 'invoke_agent' ? 0 : 1);
  return roots.sort((a, b) => agent(a) - agent(b) || a.startMs - b.startMs || a.spanId.localeCompare(b.spanId))[0] ?? null;
}

const refusal = (span: OtlpSpan, reason: string, kind: RefusalKind): SpanRefusal => ({ traceId: span.traceId, spanId: span.spanId, reason, kind });

/** Spans by trace, each span once (a span repeated in one request, or kept and sent again, counts once). */
function groupByTrace(spans: readonly OtlpSpan[]): Map<string, OtlpSpan[]> {
  const byTrace = new Map<string, Map<string, OtlpSpan>>();
  for (const span of spans) {
    let trace = byTrace.get(span.traceId);
    if (!trace) byTrace.set(span.traceId, (trace = new Map()));
    if (!trace.has(span.spanId)) trace.set(span.spanId, span);
  }
  return new Map([...byTrace].map(([traceId, trace]) => [traceId, [...trace.values()]]));
}

function merge(into: IngestReport, from: IngestReport) {
  into.stored += from.stored;
  into.pending += from.pending;
  into.refused.push(...from.refused);
}

const mergeInto = (into: IngestReport, from: IngestReport): IngestReport => (merge(into, from), into);
