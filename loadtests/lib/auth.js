// The bearer token the services' writes need (docs/security.md): API_TOKEN, which the
// benchmark runner sets to the token of the stack it started. Unset, no header is sent
// (a write then answers 401, or 403 where the server has no token configured).
const TOKEN = __ENV.API_TOKEN || '';

export function authHeaders() {
  return TOKEN ? { Authorization: `Bearer ${TOKEN}` } : {};
}
