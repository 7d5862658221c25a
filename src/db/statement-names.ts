// Names for prepared statements. A named statement is parsed and planned once per connection and
// then only bound; an unnamed one is parsed and planned again each time, on the same cores as the
// server. Prisma's statements (client.ts) and the by-id reads (by-id-read.ts) each take a prefix,
// so their names never meet.

/** Distinct statements kept prepared on each connection, per prefix; past it a new statement is sent unnamed (parsed each time, as pg does by default). */
const PREPARED_STATEMENTS_MAX = 2_000;

/**
 * A name for each SQL text, `prefix` and a number. A name stands for one text in this process (pg
 * refuses a name reused for another text), and the set is bounded because a statement's text can
 * keep changing shape (Prisma inlines the length of a list into its SQL: IN ($1, $2, ...)).
 */
export function preparedStatementNames(prefix: string): (sql: string) => string {
  const names = new Map<string, string>();
  return (sql) => {
    let name = names.get(sql);
    if (name === undefined && names.size < PREPARED_STATEMENTS_MAX) names.set(sql, (name = `${prefix}${names.size}`));
    return name ?? ''; // pg sends an empty name as the unnamed statement
  };
}
