// The repository of a task given without context, voted by its best candidates (src/retrieval/inferred-domain.ts).
import { describe, expect, it } from 'vitest';
import { DOMAIN_VOTE, inferredDomain } from '../../src/retrieval/inferred-domain.ts';

const voter = (domain: string | null, total: number, key = `${domain}-${total}`) => ({ domain, total, key });

describe('inferred domain', () => {
  it('keeps the domain a task gives, whatever its candidates say', () => {
    expect(inferredDomain('django/django', [voter('sympy/sympy', 1), voter('sympy/sympy', 0.9)])).toBe('django/django');
  });

  it('takes the domain holding most of the best candidates’ totals', () => {
    expect(inferredDomain(null, [voter('sympy/sympy', 0.2), voter('sphinx-doc/sphinx', 1), voter('sphinx-doc/sphinx', 0.6), voter('sympy/sympy', 0.3)])).toBe(
      'sphinx-doc/sphinx',
    );
  });

  it('infers nothing from a split vote, no candidates or candidates without a domain', () => {
    expect(inferredDomain(null, [voter('a', 1), voter('b', 1)])).toBeNull();
    expect(inferredDomain(null, [])).toBeNull();
    expect(inferredDomain(null, [voter(null, 1), voter(null, 0.8), voter('a', 0.5)])).toBeNull();
  });

  it('counts only the best voters: a long tail of another domain does not outvote them', () => {
    const tail = Array.from({ length: 40 }, (_, i) => voter('other', 0.1, `t${i}`));
    const best = Array.from({ length: DOMAIN_VOTE.voters }, (_, i) => voter('main', 0.5, `b${i}`));
    expect(inferredDomain(null, [...tail, ...best])).toBe('main');
  });

  it('gives the same answer in any order of the candidates', () => {
    const candidates = [voter('a', 0.5, 'k1'), voter('b', 0.5, 'k2'), voter('a', 0.4, 'k3'), ...Array.from({ length: 9 }, (_, i) => voter('b', 0.3, `z${i}`))];
    const answer = inferredDomain(null, candidates);
    expect(inferredDomain(null, [...candidates].reverse())).toBe(answer);
    expect(answer).toBe('b');
  });
});
