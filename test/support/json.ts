// A GraphQL answer (or a JSON payload) as the tests read it: by path (data.episodes.edges[0].node.id),
// with expect(...) stating the shape each test relies on. Typing every document's answer would
// restate the schema in each test; this is the tests' one loose type, and the only `any` in them.
// biome-ignore lint/suspicious/noExplicitAny: the tests' one loose type for answers read by path (see above)
export type Json = any;
