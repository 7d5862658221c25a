// No function in src/ or web/src/ over 80 lines; a declarative table (a function that returns one
// object literal making up most of it: a Pothos field map, a client's method table) may reach 100.
// Measured on the TypeScript syntax tree, from a function's first line to its last, nested
// functions included.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const FUNCTION_LINES = 80;
const TABLE_LINES = 100;

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) && node.name) {
    return node.name.getText();
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText();
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

/** An object literal, looking through parentheses. */
function objectLiteral(node: ts.Node | undefined): ts.ObjectLiteralExpression | null {
  let value = node;
  while (value && ts.isParenthesizedExpression(value)) value = value.expression;
  return value && ts.isObjectLiteralExpression(value) ? value : null;
}

const lineCount = (source: ts.SourceFile, node: ts.Node): number =>
  source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;

/**
 * A declarative table: the function's body is an object literal, or ends by returning one that
 * makes up at least 80% of its lines (a few lines of setup before a method table).
 */
function isTable(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): boolean {
  if (!node.body) return false;
  if (objectLiteral(node.body)) return true;
  if (!ts.isBlock(node.body)) return false;
  const last = node.body.statements.at(-1);
  const table = last && ts.isReturnStatement(last) ? objectLiteral(last.expression) : null;
  return !!table && lineCount(source, table) >= 0.8 * lineCount(source, node);
}

interface Measured {
  where: string;
  lines: number;
  limit: number;
}

function measure(file: string): Measured[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      found.push({ where: `${relative(ROOT, file)}:${nameOf(fn)}`, lines: lineCount(source, fn), limit: isTable(fn, source) ? TABLE_LINES : FUNCTION_LINES });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const allFiles = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'web/src'))];
const measured = allFiles.flatMap(measure);

describe('function length', () => {
  it(`no function in src/ or web/src/ is over ${FUNCTION_LINES} lines (a declarative table over ${TABLE_LINES})`, () => {
    const over = measured.filter((m) => m.lines > m.limit).map((m) => `${m.where}: ${m.lines} lines (limit ${m.limit})`);
    expect(over).toEqual([]);
  });

  it('would catch a long function and tell a table from code', () => {
    const body = Array.from({ length: 90 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const table = Array.from({ length: 90 }, (_, i) => `  k${i}: ${i},`).join('\n');
    const parse = (text: string) => ts.createSourceFile('example.ts', text, ts.ScriptTarget.Latest, true);
    const code = parse(`function long() {\n${body}\n}`);
    const arrow = parse(`const t = () => ({\n${table}\n});`);
    const methods = parse(`function m() {\n  const a = 1;\n  return {\n${table}\n  };\n}`);
    const first = (source: ts.SourceFile) => source.statements[0] as ts.Node;
    const fnOf = (source: ts.SourceFile): ts.FunctionLikeDeclaration => {
      const node = first(source);
      if (ts.isFunctionDeclaration(node)) return node;
      const init = (node as ts.VariableStatement).declarationList.declarations[0]?.initializer;
      if (init && ts.isArrowFunction(init)) return init;
      throw new Error('no function');
    };
    expect(isTable(fnOf(code), code)).toBe(false);
    expect(isTable(fnOf(arrow), arrow)).toBe(true);
    expect(isTable(fnOf(methods), methods)).toBe(true);
    expect(lineCount(code, fnOf(code))).toBe(92);
  });
});
