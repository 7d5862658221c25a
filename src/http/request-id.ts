// A client may name its request (x-request-id) so its logs and ours line up. The name is echoed in a
// header, written to logs and put in error extensions, so only a short plain token is taken as is.
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** The client's request id if it is 1-100 characters of [A-Za-z0-9._:-]; null otherwise (the server makes one). */
export function requestIdFrom(header: string | string[] | undefined): string | null {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : null;
}
