// The term index's rows computed on the index worker (index-workers.ts) are the rows computed
// inline (term-documents.ts), for a batch large enough to be sent there.
import { describe, expect, it } from 'vitest';
import { indexDocumentsOffThread, indexWorkerReady } from '../../src/retrieval/index-workers.ts';
import { type DocumentSource, indexDocuments } from '../../src/retrieval/term-documents.ts';

const diff = [
  'diff --git a/src/pkg/query.py b/src/pkg/query.py',
  '--- a/src/pkg/query.py',
  '+++ b/src/pkg/query.py',
  '@@ -1,2 +1,2 @@',
  '-old_value = 1',
  '+new_value = 2',
].join('\n');

function source(n: number): DocumentSource {
  const steps = Array.from({ length: 150 }, (_, i) => ({
    tool: 'bash',
    action: i % 3 ? 'run' : 'edit',
    parameters: JSON.stringify({ command: `python -m pytest tests/test_query.py::test_${n}_${i} -k "Café naïve ${i % 7}"` }),
    error_class: i % 5 ? null : 'AssertionError',
    error_message: i % 5 ? null : `AssertionError: expected ${i} got ${n}`,
    output: i === 149 ? diff : `collected ${i} items\nFAILED tests/test_query.py::test_${i} - ValueError: bad ${n}`,
  }));
  return {
    episodeId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    episode: { indexed: false, domain: 'django', task_description: `QuerySet.filter() raises on field ${n}`, artifacts: ['src/pkg/query.py'], failure: null },
    steps,
  };
}

describe('the index worker', () => {
  it('answers the rows computed inline', async () => {
    const sources = [source(1), source(2), source(3)];
    expect(await indexWorkerReady()).toBe(true);
    const off = await indexDocumentsOffThread(sources);
    expect(off).toEqual(indexDocuments(sources));
    expect(off.postings?.episodes).toEqual(sources.map((s) => s.episodeId));
    expect(off.files.map((f) => f.path)).toEqual(['src/pkg/query.py', 'src/pkg/query.py', 'src/pkg/query.py']);
  });
});
