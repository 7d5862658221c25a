// Every paged field of the schema declares its page sizes (src/graphql/page-size.ts), so the node
// limit counts it: a new connection or list sized by first/last/limit cannot escape the limit.
import { type GraphQLField, getNamedType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { pageSizeOf } from '../../src/graphql/page-size.ts';
import { schema } from '../../src/graphql/schema.ts';

const SIZE_ARGS = ['first', 'last', 'limit'];

function fields(): Array<{ name: string; field: GraphQLField<unknown, unknown> }> {
  return Object.values(schema.getTypeMap())
    .filter(isObjectType)
    .filter((type) => !type.name.startsWith('__'))
    .flatMap((type) => Object.values(type.getFields()).map((field) => ({ name: `${type.name}.${field.name}`, field })));
}

const isConnection = (field: GraphQLField<unknown, unknown>) => {
  const type = getNamedType(field.type);
  return isObjectType(type) && 'edges' in type.getFields() && 'pageInfo' in type.getFields();
};

describe('page sizes', () => {
  it('every connection field and every field with a first, last or limit argument declares its page size', () => {
    const paged = fields().filter(({ field }) => isConnection(field) || field.args.some((a) => SIZE_ARGS.includes(a.name)));
    expect(paged.length).toBeGreaterThanOrEqual(10);
    expect(paged.filter(({ field }) => !pageSizeOf(field)).map(({ name }) => name)).toEqual([]);
  });

  it('declares only arguments the field has, a default within its maximum, and the default its argument shows', () => {
    for (const { name, field } of fields()) {
      const page = pageSizeOf(field);
      if (!page) continue;
      expect(page.args.length, name).toBeGreaterThan(0);
      for (const arg of page.args) {
        const declared = field.args.find((a) => a.name === arg);
        expect(declared, `${name}(${arg})`).toBeDefined();
        if (declared?.defaultValue !== undefined) expect(declared.defaultValue, `${name}(${arg}) default`).toBe(page.defaultSize);
      }
      expect(page.defaultSize, name).toBeGreaterThan(0);
      expect(page.defaultSize, name).toBeLessThanOrEqual(page.maxSize);
    }
  });

  it('records the sizes the connections page with', () => {
    const size = (type: string, field: string) => {
      const t = schema.getType(type);
      const f = isObjectType(t) ? t.getFields()[field] : undefined;
      return f ? pageSizeOf(f) : null;
    };
    expect(size('Query', 'episodes')).toMatchObject({ defaultSize: 20, maxSize: 100 });
    expect(size('Episode', 'steps')).toMatchObject({ defaultSize: 50, maxSize: 1000 });
    expect(size('Query', 'ledgerEvents')).toMatchObject({ args: ['first'], defaultSize: 100, maxSize: 500 });
  });
});
