// Step fields beyond those the step view names (content another part of the service adds later),
// found by introspection; with introspection off (production) the view shows the fields it names,
// which web/src/generated checks against schema.graphql.

/** Nested types not worth expanding inside a step. */
const OPAQUE = /^Episode$|Connection$/;

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface Field {
  name: string;
  args: Array<{ type: { kind: string } }>;
  type: TypeRef;
}
type Types = Map<string, Field[]>;
/** Api.query: a GraphQL request answering its data or throwing. */
export type Query = <T>(query: string, variables?: Record<string, unknown>) => Promise<T>;

const REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
const TYPE = `fields { name args { type { kind } } type { ${REF} } }`;

function named(t: TypeRef): TypeRef {
  while (t.ofType) t = t.ofType;
  return t;
}

async function load(query: Query, names: string[], into: Types): Promise<void> {
  const params = names.map((_, i) => `$n${i}: String!`).join(', ');
  const fields = names.map((_, i) => `t${i}: __type(name: $n${i}) { ${TYPE} }`).join(' ');
  const data = await query<Record<string, { fields: Field[] | null } | null>>(
    `query Types(${params}) { ${fields} }`,
    Object.fromEntries(names.map((n, i) => [`n${i}`, n])),
  );
  names.forEach((name, i) => into.set(name, data[`t${i}`]?.fields ?? []));
}

function select(field: Field, types: Types, depth: number): string | null {
  if (field.args.some((a) => a.type.kind === 'NON_NULL')) return null;
  const t = named(field.type);
  if (t.kind === 'SCALAR' || t.kind === 'ENUM') return field.name;
  if (t.kind !== 'OBJECT' || depth === 0 || OPAQUE.test(t.name ?? '')) return null;
  const inner = (types.get(t.name ?? '') ?? []).map((f) => select(f, types, depth - 1)).filter(Boolean);
  return inner.length ? `${field.name} { ${inner.join(' ')} }` : null;
}

/**
 * A selection of the fields of `typeName` beyond `known` (scalars, and objects one level deep):
 * fields another part of the service adds later (e.g. a step's content stored apart) show up in
 * the page without a change here. '' when there are none or introspection is off.
 */
export async function extraSelection(query: Query, typeName: string, known: readonly string[]): Promise<string> {
  const types: Types = new Map();
  try {
    await load(query, [typeName], types);
    const extra = (types.get(typeName) ?? []).filter((f) => !known.includes(f.name));
    const nested = [
      ...new Set(
        extra
          .map((f) => named(f.type))
          .filter((t) => t.kind === 'OBJECT' && t.name && !OPAQUE.test(t.name))
          .map((t) => t.name as string),
      ),
    ];
    if (nested.length) await load(query, nested, types);
    return extra
      .map((f) => select(f, types, 1))
      .filter(Boolean)
      .join(' ');
  } catch {
    return '';
  }
}
