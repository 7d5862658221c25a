// GraphiQL as served at /graphql in a browser: the page yoga renders from the installed
// @graphql-yoga/render-graphiql (every script and style inline, nothing fetched from a CDN, so it
// works offline), with the API key's header laid out in the Headers tab and explained in the
// opening query. The header persists in the browser's localStorage once edited.
import type { YogaServerOptions } from 'graphql-yoga';

export { renderGraphiQL } from '@graphql-yoga/render-graphiql';

// Lines of at most 56 characters: the editor pane is about 60 wide at 1440 px, and a longer line was cut.
const OPENING_QUERY = `# Episodic GraphQL API.
#
# Every request needs an API key. Open "Headers" below
# and replace the placeholder with your key. The
# server's first start wrote its admin key to
# .episodic/admin-key:
#
#   cat .episodic/admin-key
#
# {"authorization": "Bearer epk_..."}
#
# GraphiQL keeps the header in this browser
# (localStorage) for the next visit. Then press the run
# button, and open the docs (book icon) to browse the
# schema.
{
  viewer {
    name
  }
}
`;

export const KEY_PLACEHOLDER = 'Bearer <paste the key from .episodic/admin-key>';

export function graphiqlOptions(): NonNullable<Exclude<YogaServerOptions<object, object>['graphiql'], boolean | ((...args: never[]) => unknown)>> {
  return {
    title: 'Episodic',
    subscriptionsProtocol: 'WS',
    defaultQuery: OPENING_QUERY,
    defaultHeaders: JSON.stringify({ authorization: KEY_PLACEHOLDER }, null, 2),
    shouldPersistHeaders: true,
    defaultEditorToolsVisibility: 'headers',
  };
}
