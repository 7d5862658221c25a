// `npm run codegen`: the TypeScript types of schema.graphql and of the documents that ask for it,
// by GraphQL Code Generator. Run it after `npm run print-schema` (a schema change), or after a
// change to a document of the monitor; test/unit/codegen.test.ts fails while an output is stale,
// and codegen itself fails on a document the schema does not answer.
//   src/client/generated/schema.ts  every type of the schema (the client's types are checked
//                                   against these: src/client/schema-check.ts);
//   web/src/generated/              the monitor's documents as typed strings (client preset):
//                                   `graphql(\`query ...\`)` answers a TypedDocumentString whose
//                                   result and variables types follow the schema.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CodegenConfig } from '@graphql-codegen/cli';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const SCALARS = {
  ID: 'string',
  DateTime: 'string',
  BigInt: 'string',
  JSON: 'unknown',
};
const COMMON = { scalars: SCALARS, enumsAsTypes: true, useTypeImports: true, avoidOptionals: { field: true, inputValue: false } };

export const CODEGEN_CONFIG: CodegenConfig = {
  cwd: root,
  schema: join(root, 'schema.graphql'),
  silent: true,
  generates: {
    [join(root, 'src/client/generated/schema.ts')]: { plugins: ['typescript'], config: COMMON },
    [join(root, 'web/src/generated/')]: {
      preset: 'client',
      documents: [join(root, 'web/src/**/*.{ts,tsx}'), `!${join(root, 'web/src/generated/**')}`],
      presetConfig: { fragmentMasking: false },
      config: { ...COMMON, documentMode: 'string' },
    },
  },
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { generate } = await import('@graphql-codegen/cli');
  await generate(CODEGEN_CONFIG, true);
}
