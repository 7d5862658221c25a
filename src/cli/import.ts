// episodic import <files or folders> [--format f] [--verdicts file]: imports agent runs (one
// episode each) with a progress bar, a summary, and exit code 2 when any file or step was refused.
import { FORMATS, formatHelpLines, isFormat } from '../import/formats.ts';
import type { ImportReport, RunReport } from '../import/index.ts';
import type { ImportWarning } from '../import/warnings.ts';
import { CliError } from './errors.ts';
import { progressBar } from './progress.ts';
import { defineCommand, EXIT, intOption, listOption, usage } from './remote.ts';

const HELP = `Usage: episodic import <file or folder>... [--format ${FORMATS.join('|')}] [--verdicts <file>]
Imports finished agent runs, one episode per run file, through the API (README "Importing agent runs"):
${formatHelpLines('  ').join('\n')}
Folders are walked; results.csv / results.json inside them are read as harness verdicts
(instance_id,resolved): resolved -> SUCCESS, else FAILURE. Importing a file again changes nothing.
  --format <f>        read every file as this format (default: by file name)
  --verdicts <file>   a verdict file (repeatable)
  --concurrency <n>   runs imported at once (default 32)
  --truncate          keep output past its inline limit as head + tail (default: whole, as a blob)
Warns (a "warning:" line; "warnings" in --json) when runs of different instances share one task
text, or when runs carry no times (their times stay unknown).
Exit code 2 when a file could not be read (its line is named) or a step was refused; 4 when nothing
was found to import (a warning says why); 5 when the server could not be reached or went away (the
line says after how many runs; importing again resumes).`;

/** How many of a warning's runs its line names. */
const WARNING_RUNS_SHOWN = 5;

function runLine(r: RunReport): string | null {
  if (r.error) return `  ${r.error.message}`;
  if (!r.rejected.length) return null;
  return r.rejected.map((s) => `  ${r.file}${s.line ? `:${s.line}` : ` step ${s.index + 1}`}: ${s.reason}: ${s.message ?? ''}`).join('\n');
}

function warningLine(w: ImportWarning): string {
  if (!w.runs.length) return `warning: ${w.message}`;
  const more = w.runs.length > WARNING_RUNS_SHOWN ? `, and ${w.runs.length - WARNING_RUNS_SHOWN} more` : '';
  return `warning: ${w.message}; runs: ${w.runs.slice(0, WARNING_RUNS_SHOWN).join(', ')}${more}`;
}

function summaryText(report: ImportReport): string {
  const lines = [
    `imported ${report.imported} run(s), ${report.duplicates} already imported, ${report.failed} failed; ` +
      `steps: ${report.acceptedSteps} accepted, ${report.rejectedSteps} refused (${report.seconds.toFixed(1)} s)`,
  ];
  for (const r of report.runs) {
    const line = runLine(r);
    if (line) lines.push(line);
  }
  for (const w of report.warnings) lines.push(warningLine(w));
  return lines.join('\n');
}

export const importCommand = defineCommand({
  name: 'import',
  summary: `import agent runs (${FORMATS.join(', ')}) from files or folders`,
  help: HELP,
  options: { format: { type: 'string' }, verdicts: { type: 'string', multiple: true }, concurrency: { type: 'string' }, truncate: { type: 'boolean' } },
  async run({ values, positionals, json, client, io }) {
    if (!positionals.length) throw usage('missing the files or folders to import', HELP);
    const format = values.format as string | undefined;
    if (format !== undefined && !isFormat(format)) throw usage(`--format must be one of ${FORMATS.join(', ')}, got "${format}"`, HELP);
    const bar = progressBar('importing', io.stderr);
    const { importRuns, ImportInterruptedError } = await import('../import/index.ts');
    const report = await importRuns(client, positionals, {
      format: format ?? null,
      verdictFiles: listOption(values.verdicts) ?? [],
      concurrency: intOption(values.concurrency, '--concurrency', HELP, 1),
      largeContent: values.truncate ? 'TRUNCATE' : 'BLOB',
      onProgress: (_run, done, total) => bar.update(done, total),
    })
      .catch((err: unknown) => {
        if (!(err instanceof ImportInterruptedError)) throw err;
        throw Object.assign(new CliError(err.message, EXIT.serverLost), {
          details: { error: 'SERVER_LOST', message: err.message, done: err.done, total: err.total },
        });
      })
      .finally(() => bar.finish());
    const summary = { ...report, runs: report.runs };
    if (!report.runs.length) {
      if (!json) io.stdout.write(`${summaryText(report)}\n`);
      throw Object.assign(new CliError('nothing to import: no run file in the paths given', EXIT.notFound), { details: summary });
    }
    if (report.failed || report.rejectedSteps) {
      if (!json) io.stdout.write(`${summaryText(report)}\n`);
      throw Object.assign(new CliError(`${report.failed} file(s) failed, ${report.rejectedSteps} step(s) refused`, EXIT.usage), { details: summary });
    }
    return { text: summaryText(report), json: summary };
  },
});
